//! Ctrl-C, SIGTERM and SIGHUP, caught, so the launcher stops its proxies
//! and removes its folder whichever arrives.

use tokio::signal::unix::{SignalKind, signal};

use crate::launch_error::LaunchError;

/// Ctrl-C, SIGTERM and SIGHUP, caught.
pub struct Stop(Vec<tokio::signal::unix::Signal>);

impl Stop {
    /// Catches all three.
    pub fn new() -> Result<Self, LaunchError> {
        [
            SignalKind::interrupt(),
            SignalKind::terminate(),
            SignalKind::hangup(),
        ]
        .into_iter()
        .map(|k| signal(k).map_err(LaunchError::Signals))
        .collect::<Result<_, _>>()
        .map(Self)
    }

    /// Resolves when any of them arrives.
    pub async fn wait(&mut self) {
        let [a, b, c] = &mut self.0[..] else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = a.recv() => {}
            _ = b.recv() => {}
            _ = c.recv() => {}
        }
    }

    /// True when one has arrived already.
    pub fn came(&mut self) -> bool {
        use std::task::{Context, Poll};
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        self.0
            .iter_mut()
            .any(|s| matches!(s.poll_recv(&mut cx), Poll::Ready(_)))
    }
}
