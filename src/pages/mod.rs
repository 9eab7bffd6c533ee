//! Pages: one per view, each a thin arrangement of components over models and the cluster's signals.

pub mod api;
pub mod changes;
pub mod create;
pub mod events;
pub mod logs;
pub mod object;
pub mod overview;
pub mod parts;
pub mod resource;
pub mod top;
pub mod xray;
