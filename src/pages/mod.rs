//! Pages: one per view, each a thin arrangement of components over state.

pub mod overview;
pub mod workloads;
