//! `kubectl glass`: Kubeglass for any kubeconfig context, in one command.
//!
//! The binary carries the built app. For every context of the kubeconfig it
//! opens a door of its own (port, name, token), and starts the person's own
//! `kubectl proxy` on a Unix socket in a private folder when a tab first
//! needs it (`upstream`, which stops it again when no tab has for a while),
//! listens on 127.0.0.1 itself, and lets through only requests that carry the run's
//! token (held in memory), name our host and come from our own page: the
//! app, served from memory with real security headers and compressed, and
//! the API, passed to the socket. It prints the URL and opens the browser
//! through a private redirect file. Ctrl-C, SIGTERM, SIGHUP, kubectl
//! exiting or a closed stdout stops everything and removes the folder;
//! kubectl dies with the launcher however it dies. docs/security.md has
//! the threat model.
//!
//! # The modules
//!
//! The `kubectl glass` launcher and front door: the built `dist/` embedded
//! (rust-embed) and served from memory with real headers and precompressed
//! copies (`assets`); its own listeners on 127.0.0.1 and `[::1]` at one port
//! free on both (`port`; `serve`, hyper on a current-thread tokio runtime,
//! within `serve::Limits`: a 10 s header-read timeout, 128 connections at most,
//! a pause after a failed accept) admitting only our `Host` (the run's random
//! `<name>.localhost:port`, an origin nobody has visited; `127.0.0.1:port` for
//! programs only, never `localhost`), the in-memory token (constant-time) and
//! our own origin, WebSocket upgrades only for watches and followed logs, and
//! for `--read-only` an allowlist of reads (`gate`); allowlists of the headers
//! that cross it each way, and every answer not the app's own `no-store` and
//! sandboxed (`headers`); requests passed to kubectl's socket, streamed or
//! upgraded (`relay`), each holding its context's proxy while it lasts
//! (`upstream`); the person's `kubectl proxy` on a Unix socket in a
//! 0700 folder with `hack/reject-paths` (`proxy`, whose `Proxy` guard stops
//! kubectl on any return), dying with the launcher (`orphan`, whose watchdog
//! also removes the folder), and with a closed stdout (`stdout`); waiting for
//! kubectl to serve (`ready`), the browser opened through a 0600 redirect file
//! (`open`), Ctrl-C, SIGTERM and SIGHUP (`signals`), why a start failed
//! (`launch_error`); the app's per-context store in a 0600 file, served under
//! the token (`store`), its saved tables beside it in a 0700 folder, each
//! table bounded and all of them too (`saved`), contexts from `kubectl
//! config view` (`kubeconfig`),
//! their names escaped before they reach the terminal (`say`).
#![warn(missing_docs)]

pub mod assets;
pub mod forward;
pub mod gate;
pub mod headers;
pub mod kubeconfig;
pub mod launch_error;
pub mod open;
pub mod orphan;
pub mod port;
pub mod proxy;
pub mod ready;
pub mod relay;
pub mod saved;
pub mod say;
pub mod serve;
pub mod signals;
pub mod stdout;
pub mod store;
pub mod upstream;
