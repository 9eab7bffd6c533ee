//! Small components shared by pages; each reads models and the cluster's signals, and leaves the rules to `model/`.

pub mod banner;
pub mod dialog;
pub mod diff;
pub mod editor;
pub mod keys;
pub mod namespace;
pub mod outcome;
pub mod palette;
pub mod problem;
pub mod resolved;
pub mod scroll;
pub mod theme;
