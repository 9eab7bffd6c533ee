//! Small, thin components shared by pages.

pub mod banner;
pub mod dialog;
pub mod palette;
pub mod scroll;
