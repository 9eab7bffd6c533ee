//! kubeglass-client: client-go's architecture in runtime-agnostic Rust.
//!
//! The crate builds requests and decodes responses but never performs I/O
//! itself: a [`transport::Transport`] sends requests and a [`clock::Clock`]
//! tells the time and sleeps. The browser implementations live in
//! `kubeglass-web`; the fakes for tests (a scripted API server, a stepped
//! clock) and the scenarios run against fakes and the real cluster alike
//! live in the `kubeglass-testing` crate (`crates/testing`, never
//! published), which no build of the app links. Nothing here depends on
//! web-sys, wasm-bindgen, js-sys, gloo or tokio.
#![warn(missing_docs)]

pub mod api;
pub mod backoff;
pub mod cache;
pub mod clock;
pub mod discovery;
pub mod names;
pub mod reconnect;
pub mod record;
pub mod remotecommand;
pub mod rest;
pub mod tabs;
pub mod transport;
pub mod typed;
pub mod workqueue;

pub use k8s_openapi;
pub use kube_core;
