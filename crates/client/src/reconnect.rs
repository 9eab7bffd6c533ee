//! A signal that the API is reachable again, so retries waiting out a long backoff can go at once.
//!
//! Backoff protects a struggling server; it is no reason to leave a user
//! looking at stale data for 30 s after `kubectl proxy` comes back. While the
//! API is unreachable the app probes it cheaply (`GET /version`) and calls
//! [`Reconnect::notify`] on the first answer; reflectors waiting after a
//! connection failure then retry immediately.

use std::cell::RefCell;
use std::rc::Rc;

use futures::FutureExt;
use futures::channel::oneshot;
use futures::future::LocalBoxFuture;

/// Shared wake-up for everyone waiting to reconnect.
#[derive(Clone, Default)]
pub struct Reconnect {
    /// One sender per pending waiter; drained by `notify`.
    waiters: Rc<RefCell<Vec<oneshot::Sender<()>>>>,
}

impl std::fmt::Debug for Reconnect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reconnect")
            .field("waiting", &self.waiting())
            .finish()
    }
}

impl Reconnect {
    /// A signal nobody waits on yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Completes at the next [`Reconnect::notify`].
    pub fn wait(&self) -> LocalBoxFuture<'static, ()> {
        let (tx, rx) = oneshot::channel();
        self.waiters.borrow_mut().push(tx);
        rx.map(|_| ()).boxed_local()
    }

    /// Wakes every current waiter.
    pub fn notify(&self) {
        for tx in self.waiters.borrow_mut().drain(..) {
            let _ = tx.send(());
        }
    }

    /// How many waiters are still pending.
    pub fn waiting(&self) -> usize {
        let mut w = self.waiters.borrow_mut();
        w.retain(|tx| !tx.is_canceled());
        w.len()
    }
}
