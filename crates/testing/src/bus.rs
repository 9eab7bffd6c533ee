//! A fake of the browser's BroadcastChannel and Web Locks, in memory, for
//! tests of watches shared between tabs (`kubeglass_client::tabs`): every
//! "tab" is a `SharedWatches` given a clone of one [`MemoryBus`].
//!
//! As in the browser, a message reaches every listener of its channel but
//! the one that posted it (in this tab or another), a lock is held
//! by one at a time, `try_lock` takes it only when it is free and nobody is
//! waiting, and waiters get it in the order they asked.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use futures::channel::{mpsc, oneshot};
use futures::future::LocalBoxFuture;
use futures::{FutureExt, StreamExt};
use kubeglass_client::tabs::{Bus, Channel, LockGuard};

#[derive(Default)]
struct Lock {
    held: bool,
    waiters: VecDeque<oneshot::Sender<()>>,
}

#[derive(Default)]
struct Inner {
    /// Each channel's listeners, each with its own number.
    channels: HashMap<String, Vec<(u64, mpsc::UnboundedSender<String>)>>,
    listeners: u64,
    locks: HashMap<String, Lock>,
    posted: usize,
    silent: bool,
}

/// Channels and locks shared by the fake tabs that hold a clone.
#[derive(Clone, Default)]
pub struct MemoryBus {
    inner: Rc<RefCell<Inner>>,
}

impl MemoryBus {
    /// A bus no tab uses yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether somebody holds the lock `name`.
    pub fn held(&self, name_prefix: &str) -> bool {
        self.inner
            .borrow()
            .locks
            .iter()
            .any(|(n, l)| n.starts_with(name_prefix) && l.held)
    }

    /// From now on every message posted is lost (a tab that never answers).
    pub fn silence(&self) {
        self.inner.borrow_mut().silent = true;
    }

    /// Messages posted so far.
    pub fn posted(&self) -> usize {
        self.inner.borrow().posted
    }

    /// Hands `message` to every listener of `channel` but `from`.
    fn post(&self, channel: &str, from: u64, message: String) {
        let mut inner = self.inner.borrow_mut();
        inner.posted += 1;
        if inner.silent {
            return;
        }
        if let Some(listeners) = inner.channels.get_mut(channel) {
            listeners.retain(|(n, l)| *n == from || l.unbounded_send(message.clone()).is_ok());
        }
    }

    /// Hands the lock `name` to the next waiter still waiting, or frees it.
    fn release(&self, name: &str) {
        let mut inner = self.inner.borrow_mut();
        let Some(lock) = inner.locks.get_mut(name) else {
            return;
        };
        while let Some(w) = lock.waiters.pop_front() {
            if w.send(()).is_ok() {
                return;
            }
        }
        lock.held = false;
    }

    fn guard(&self, name: &str) -> LockGuard {
        LockGuard::new(Release {
            bus: self.clone(),
            name: name.to_owned(),
        })
    }
}

struct Release {
    bus: MemoryBus,
    name: String,
}

impl Drop for Release {
    fn drop(&mut self) {
        self.bus.release(&self.name);
    }
}

/// A lock asked for: if it was handed over but never taken (the asker
/// gave up in between), it is handed on.
struct Waiting {
    bus: MemoryBus,
    name: String,
    granted: Option<oneshot::Receiver<()>>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(mut rx) = self.granted.take()
            && let Ok(Some(())) = rx.try_recv()
        {
            self.bus.release(&self.name);
        }
    }
}

impl Bus for MemoryBus {
    fn listen(&self, channel: &str) -> Channel {
        let (tx, rx) = mpsc::unbounded();
        let me = {
            let mut inner = self.inner.borrow_mut();
            inner.listeners += 1;
            let me = inner.listeners;
            inner
                .channels
                .entry(channel.to_owned())
                .or_default()
                .push((me, tx));
            me
        };
        let (bus, name) = (self.clone(), channel.to_owned());
        Channel {
            messages: rx.boxed_local(),
            post: Rc::new(move |message: String| bus.post(&name, me, message)),
        }
    }

    fn try_lock(&self, name: &str) -> LocalBoxFuture<'static, Option<LockGuard>> {
        let free = {
            let mut inner = self.inner.borrow_mut();
            let lock = inner.locks.entry(name.to_owned()).or_default();
            let free = !lock.held && lock.waiters.is_empty();
            lock.held |= free;
            free
        };
        let guard = free.then(|| self.guard(name));
        futures::future::ready(guard).boxed_local()
    }

    fn lock(&self, name: &str) -> LocalBoxFuture<'static, LockGuard> {
        let (tx, rx) = oneshot::channel();
        {
            let mut inner = self.inner.borrow_mut();
            let lock = inner.locks.entry(name.to_owned()).or_default();
            if lock.held {
                lock.waiters.push_back(tx);
            } else {
                lock.held = true;
                let _ = tx.send(());
            }
        }
        let mut waiting = Waiting {
            bus: self.clone(),
            name: name.to_owned(),
            granted: Some(rx),
        };
        async move {
            let rx = waiting.granted.as_mut().expect("asked once");
            // The sender lives in the lock's queue until it is granted.
            let _ = rx.await;
            waiting.granted = None;
            waiting.bus.guard(&waiting.name)
        }
        .boxed_local()
    }
}
