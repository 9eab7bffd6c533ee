//! `kubectl glass`: Kubeglass for any kubeconfig context, in one command.
//!
//! The binary carries the built app. It writes the app to a private
//! temporary folder, starts the person's own `kubectl proxy` for a context
//! with the capability URL and the hardened flags (docs/kubectl-proxy.md),
//! waits for it to answer, prints the URL and opens the browser. Ctrl-C,
//! SIGTERM or kubectl exiting stops everything and removes the folder.
//! Nothing but `kubectl` is needed at run time.
#![warn(missing_docs)]

pub mod app;
pub mod kubeconfig;
pub mod port;
pub mod proxy;
