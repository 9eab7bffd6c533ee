//! Small components shared by pages; each reads models and the cluster's signals, and holds no rule of its own.

pub mod banner;
pub mod dialog;
pub mod keys;
pub mod namespace;
pub mod outcome;
pub mod palette;
pub mod problem;
pub mod resolved;
pub mod scroll;
pub mod theme;
