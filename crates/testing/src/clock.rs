//! The fake clock: time moves only when a test advances it.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::FutureExt;
use futures::channel::oneshot;
use futures::future::LocalBoxFuture;

use kubeglass_client::clock::{Clock, PassiveClock, Timestamp};

/// A clock that only moves when a test advances it.
#[derive(Clone, Default)]
pub struct FakeClock {
    inner: Rc<RefCell<ClockInner>>,
}

#[derive(Default)]
struct ClockInner {
    now: Timestamp,
    /// Pending sleeps: when each fires, and who to wake.
    timers: Vec<(Timestamp, oneshot::Sender<()>)>,
    /// Random values drawn so far (each draw mixes the next count).
    draws: u64,
}

impl FakeClock {
    /// A clock starting at `start` after the epoch.
    pub fn new(start: Timestamp) -> Self {
        let c = Self::default();
        c.inner.borrow_mut().now = start;
        c
    }

    /// Moves time forward by `d`, firing every sleep that is due.
    pub fn advance(&self, d: Duration) {
        let mut inner = self.inner.borrow_mut();
        inner.now += d;
        let now = inner.now;
        let timers = std::mem::take(&mut inner.timers);
        for (at, tx) in timers {
            if at <= now {
                let _ = tx.send(());
            } else {
                inner.timers.push((at, tx));
            }
        }
    }

    /// The deadline of the earliest pending sleep, if any.
    pub fn next_timer(&self) -> Option<Timestamp> {
        let mut inner = self.inner.borrow_mut();
        inner.timers.retain(|(_, tx)| !tx.is_canceled());
        inner.timers.iter().map(|(at, _)| *at).min()
    }

    /// Advances to the earliest pending sleep and returns how far it moved.
    pub fn advance_to_next_timer(&self) -> Option<Duration> {
        let at = self.next_timer()?;
        let d = at.saturating_sub(self.now());
        self.advance(d);
        Some(d)
    }

    /// Number of sleeps still waiting.
    pub fn pending_timers(&self) -> usize {
        self.next_timer();
        self.inner.borrow().timers.len()
    }
}

impl PassiveClock for FakeClock {
    fn now(&self) -> Timestamp {
        self.inner.borrow().now
    }
}

/// Deterministic per clock, a new value on every draw (splitmix64 of a
/// counter), so tests are reproducible and sources made in the same instant
/// still differ.
impl kubeglass_client::clock::Entropy for FakeClock {
    fn random_u64(&self) -> u64 {
        let mut inner = self.inner.borrow_mut();
        inner.draws += 1;
        let mut z = inner.draws.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Clock for FakeClock {
    fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()> {
        let (tx, rx) = oneshot::channel();
        {
            let mut inner = self.inner.borrow_mut();
            let at = inner.now + duration;
            inner.timers.push((at, tx));
        }
        async move {
            let _ = rx.await;
        }
        .boxed_local()
    }
}
