//! kubeglass-kubectl: what kubectl does on top of client-go, for Kubeglass.
//!
//! `kubeglass-client` is the port of client-go and nothing else; this crate
//! holds kubectl's side, built on it: the verbs a person runs and the queue
//! that runs them ([`actions`]), `kubectl auth can-i`'s access reviews
//! ([`access`]), RBAC read in the tab: who can, and `can-i --list` ([`rbac`]),
//! the relationship map joined from what objects say of each other ([`map`]),
//! `kubectl top`'s metrics.k8s.io usage ([`usage`]) and
//! the session file `kubectl glass` writes beside the app ([`session`]).
//! Like the client it performs no I/O itself (requests go through the
//! client's `Transport`, time through its `Clock`) and depends on no
//! web-sys, wasm-bindgen, js-sys, gloo or tokio.
#![warn(missing_docs)]

pub mod access;
pub mod actions;
pub mod columns;
pub mod drain;
pub mod forwards;
pub mod map;
pub mod rbac;
pub mod session;
pub mod usage;
