//! `kubectl glass`: Kubeglass for any kubeconfig context, in one command.
//!
//! The binary carries the built app. For a context it starts the person's
//! own `kubectl proxy` on a Unix socket in a private folder, listens on
//! 127.0.0.1 itself, and lets through only requests that carry the run's
//! token (held in memory), name our host and come from our own page: the
//! app, served from memory with real security headers and compressed, and
//! the API, passed to the socket. It prints the URL and opens the browser
//! through a private redirect file. Ctrl-C, SIGTERM, SIGHUP, kubectl
//! exiting or a closed stdout stops everything and removes the folder;
//! kubectl dies with the launcher however it dies. docs/security.md has
//! the threat model.
#![warn(missing_docs)]

pub mod assets;
pub mod gate;
pub mod headers;
pub mod kubeconfig;
pub mod launch_error;
pub mod open;
pub mod orphan;
pub mod port;
pub mod proxy;
pub mod ready;
pub mod say;
pub mod serve;
pub mod signals;
pub mod stdout;
pub mod store;
