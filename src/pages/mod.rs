//! Pages: one per view, each a thin arrangement of components over state.

pub mod api;
pub mod object;
pub mod overview;
pub mod resource;
pub mod workloads;
pub mod xray;
