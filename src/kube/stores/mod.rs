//! The app's stores: state owned by the app for the tab's life, not by whichever page runs first, provided as context.
//!
//! `cluster` (the clock's tick, the server version, the connection, the
//! namespaces and the namespace the app works in), `session` (the
//! launcher's file, read once before any page is drawn), `versions` (every
//! version of an object the object page's informer hands over, for its
//! History), `changes` (every add, update and delete of the recorded
//! kinds and the Warning events, for the changes page) and `saved` (tables
//! saved with their version, so the next visit draws at once and resumes
//! with a watch).

pub mod changes;
pub mod cluster;
pub mod saved;
pub mod session;
pub mod versions;
