//! Delaying and rate-limiting queues: items wait on a timer heap driven by the injected clock.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::Hash;
use std::rc::Rc;
use std::time::Duration;

use futures::FutureExt;
use futures::channel::oneshot;

use super::queue::Queue;
use super::rate_limiter::RateLimiter;
use crate::clock::{Clock, Timestamp};

struct Timers<T> {
    /// (ready time, sequence) of every pending entry, earliest first; entries
    /// whose sequence no longer matches `waiting` are stale and skipped.
    heap: BinaryHeap<Reverse<(Timestamp, u64)>>,
    /// The item of each live sequence number.
    items: HashMap<u64, T>,
    /// Each waiting item's ready time and sequence: an item waits once, at
    /// the earliest time it was asked for.
    waiting: HashMap<T, (Timestamp, u64)>,
    next_seq: u64,
    /// Wakes the driver when an earlier timer is added.
    wake: Option<oneshot::Sender<()>>,
}

/// A [`Queue`] whose items can be added after a delay (`add_after`).
///
/// The timers fire from [`DelayingQueue::run`], a future the owner spawns
/// once; it ends when the queue shuts down.
pub struct DelayingQueue<T> {
    queue: Queue<T>,
    clock: Rc<dyn Clock>,
    timers: Rc<RefCell<Timers<T>>>,
}

impl<T> Clone for DelayingQueue<T> {
    fn clone(&self) -> Self {
        Self {
            queue: self.queue.clone(),
            clock: self.clock.clone(),
            timers: self.timers.clone(),
        }
    }
}

impl<T: Clone + Eq + Hash + 'static> DelayingQueue<T> {
    /// An empty delaying queue on `clock`.
    pub fn new(name: &str, clock: Rc<dyn Clock>) -> Self {
        let passive: Rc<dyn crate::clock::PassiveClock> = Rc::new(ClockRef(clock.clone()));
        Self {
            queue: Queue::new(name, passive),
            clock,
            timers: Rc::new(RefCell::new(Timers {
                heap: BinaryHeap::new(),
                items: HashMap::new(),
                waiting: HashMap::new(),
                next_seq: 0,
                wake: None,
            })),
        }
    }

    /// The underlying queue (get, done, add, len, shut down).
    pub fn queue(&self) -> &Queue<T> {
        &self.queue
    }

    /// Adds `item` once `delay` has passed (at once for a zero delay). An
    /// item already waiting keeps the earlier of its two times. Every call
    /// counts in `workqueue_retries_total`, as client-go's `AddAfter` does.
    pub fn add_after(&self, item: T, delay: Duration) {
        if self.queue.shutting_down() {
            return;
        }
        self.queue.count_retry();
        if delay.is_zero() {
            self.queue.add(item);
            return;
        }
        let at = self.clock.now() + delay;
        let mut t = self.timers.borrow_mut();
        if let Some((existing, _)) = t.waiting.get(&item)
            && *existing <= at
        {
            return;
        }
        if let Some((_, old_seq)) = t.waiting.remove(&item) {
            t.items.remove(&old_seq);
        }
        let seq = t.next_seq;
        t.next_seq += 1;
        t.heap.push(Reverse((at, seq)));
        t.items.insert(seq, item.clone());
        t.waiting.insert(item, (at, seq));
        if let Some(w) = t.wake.take() {
            let _ = w.send(());
        }
    }

    /// Items waiting on a timer.
    pub fn waiting(&self) -> usize {
        self.timers.borrow().waiting.len()
    }

    /// Moves due items into the queue; returns the next ready time.
    fn fire_due(&self) -> Option<Timestamp> {
        let now = self.clock.now();
        let mut due = Vec::new();
        let next = {
            let mut t = self.timers.borrow_mut();
            loop {
                let Some(Reverse((at, seq))) = t.heap.peek().copied() else {
                    break None;
                };
                let Some(item) = t.items.get(&seq).cloned() else {
                    t.heap.pop(); // stale
                    continue;
                };
                if at > now {
                    break Some(at);
                }
                t.heap.pop();
                t.items.remove(&seq);
                t.waiting.remove(&item);
                due.push(item);
            }
        };
        for item in due {
            self.queue.add(item);
        }
        next
    }

    /// Fires timers until the queue shuts down. Spawn it once.
    pub async fn run(self) {
        while !self.queue.shutting_down() {
            let next = self.fire_due();
            let (tx, rx) = oneshot::channel();
            self.timers.borrow_mut().wake = Some(tx);
            let timer = match next {
                Some(at) => self
                    .clock
                    .sleep(at.saturating_sub(self.clock.now()))
                    .left_future(),
                None => futures::future::pending().right_future(),
            };
            futures::future::select(timer, rx).await;
        }
    }

    /// Shuts the queue down and stops the timer driver.
    pub fn shut_down(&self) {
        self.queue.shut_down();
        if let Some(w) = self.timers.borrow_mut().wake.take() {
            let _ = w.send(());
        }
    }
}

/// Lets the queue's metrics read the full clock as a passive one.
struct ClockRef(Rc<dyn Clock>);

impl crate::clock::PassiveClock for ClockRef {
    fn now(&self) -> Timestamp {
        self.0.now()
    }
}

/// A delaying queue with a rate limiter: failed items come back after the
/// limiter's delay (`add_rate_limited`), and `forget` clears their history.
pub struct RateLimitingQueue<T> {
    delaying: DelayingQueue<T>,
    limiter: Rc<RefCell<Box<dyn RateLimiter<T>>>>,
}

impl<T> Clone for RateLimitingQueue<T> {
    fn clone(&self) -> Self {
        Self {
            delaying: self.delaying.clone(),
            limiter: self.limiter.clone(),
        }
    }
}

impl<T: Clone + Eq + Hash + 'static> RateLimitingQueue<T> {
    /// A queue on `clock` limited by `limiter`.
    pub fn new(name: &str, clock: Rc<dyn Clock>, limiter: Box<dyn RateLimiter<T>>) -> Self {
        Self {
            delaying: DelayingQueue::new(name, clock),
            limiter: Rc::new(RefCell::new(limiter)),
        }
    }

    /// The delaying queue underneath (add_after, run, shut down).
    pub fn delaying(&self) -> &DelayingQueue<T> {
        &self.delaying
    }

    /// The plain queue underneath (add, get, done, len).
    pub fn queue(&self) -> &Queue<T> {
        self.delaying.queue()
    }

    /// Adds `item` again after the limiter's delay.
    pub fn add_rate_limited(&self, item: T) {
        let delay = self
            .limiter
            .borrow_mut()
            .when(&item, self.delaying.clock.now());
        // add_after counts the retry.
        self.delaying.add_after(item, delay);
    }

    /// Clears `item`'s failure history (call after it succeeded).
    pub fn forget(&self, item: &T) {
        self.limiter.borrow_mut().forget(item);
    }

    /// How many times `item` was rate limited since the last forget.
    pub fn num_requeues(&self, item: &T) -> u32 {
        self.limiter.borrow().num_requeues(item)
    }
}
