//! Why the launcher could not start, in words for the terminal.

use std::path::PathBuf;

use crate::proxy;

/// Why the launcher could not start, in words for the terminal.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// `-n` is not a namespace name.
    #[error("-n: {0}")]
    Namespace(#[from] kubeglass_client::names::NameError),
    /// `--kubeconfig` names no file.
    #[error("--kubeconfig {}: no such file", .0.display())]
    NoKubeconfig(PathBuf),
    /// kubectl could not be run at all.
    #[error("cannot run {}: {source}", kubectl.display())]
    Kubectl {
        /// The kubectl asked for.
        kubectl: PathBuf,
        /// Why it did not run.
        source: std::io::Error,
    },
    /// kubectl's view of the kubeconfig did not read.
    #[error("{0}")]
    Kubeconfig(String),
    /// `--all-contexts` with a kubeconfig that has none.
    #[error("the kubeconfig has no contexts")]
    NoContexts,
    /// No `--context` and no current context.
    #[error("the kubeconfig has no current context: pass --context")]
    NoCurrentContext,
    /// Ctrl-C, SIGTERM or SIGHUP cannot be caught, or the async runtime
    /// did not start, so the proxies could outlive us.
    #[error("cannot handle signals: {0}")]
    Signals(std::io::Error),
    /// This binary has no app inside (built before `make app`).
    #[error(
        "this kubectl-glass was built without the app (dist/ was empty): build it with `make install`"
    )]
    NoApp,
    /// Standard output is closed (`kubectl glass | head -0`): a write failed.
    #[error("standard output is closed; stopping")]
    Stdout(std::io::Error),
    /// Standard output's reader has gone since (`kubectl glass | head -1`).
    #[error("standard output is closed; stopping")]
    StdoutGone,
    /// The private folder for the run could not be made or filled.
    #[error("{}: {source}", path.display())]
    Folder {
        /// The folder or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No port could be bound for a context.
    #[error("cannot listen on 127.0.0.1 and [::1]: {0}")]
    NoPort(std::io::Error),
    /// No randomness for the capability token.
    #[error("{0}")]
    Token(#[from] proxy::NoRandomness),
    /// Every context failed to start (with `--all-contexts`).
    #[error("no context could be started")]
    NoneStarted,
}
