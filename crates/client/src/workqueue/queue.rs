//! The basic work queue: fair, stingy, and never hands one item to two workers at once.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::rc::Rc;

use futures::channel::oneshot;

use super::metrics::QueueMetrics;
use crate::clock::PassiveClock;

struct Inner<T> {
    /// Items waiting to be handed out, in the order they were added. Every
    /// item here is also in `dirty` and none is in `processing`.
    queue: VecDeque<T>,
    /// Items that need processing: queued, or re-added while being processed
    /// (those go back into `queue` when `done` is called).
    dirty: HashSet<T>,
    /// Items handed out by `get` and not yet `done`.
    processing: HashSet<T>,
    shutting_down: bool,
    /// Workers waiting in `get` for an item.
    getters: VecDeque<oneshot::Sender<()>>,
    /// Callers of `shut_down_with_drain` waiting for `processing` to empty.
    drainers: Vec<oneshot::Sender<()>>,
    metrics: QueueMetrics,
    /// When each queued item was added (for queue latency).
    added_at: HashMap<T, std::time::Duration>,
    /// When each item being processed was handed out (for work duration).
    started_at: HashMap<T, std::time::Duration>,
}

/// A work queue shared by producers and workers (clones share the queue).
pub struct Queue<T> {
    inner: Rc<RefCell<Inner<T>>>,
    clock: Rc<dyn PassiveClock>,
}

impl<T> Clone for Queue<T> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            clock: self.clock.clone(),
        }
    }
}

impl<T> std::fmt::Debug for Queue<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let i = self.inner.borrow();
        f.debug_struct("Queue")
            .field("len", &i.queue.len())
            .field("processing", &i.processing.len())
            .field("shutting_down", &i.shutting_down)
            .finish()
    }
}

impl<T: Clone + Eq + Hash + 'static> Queue<T> {
    /// An empty queue; `clock` times the metrics.
    pub fn new(name: &str, clock: Rc<dyn PassiveClock>) -> Self {
        Self {
            inner: Rc::new(RefCell::new(Inner {
                queue: VecDeque::new(),
                dirty: HashSet::new(),
                processing: HashSet::new(),
                shutting_down: false,
                getters: VecDeque::new(),
                drainers: Vec::new(),
                metrics: QueueMetrics::new(name),
                added_at: HashMap::new(),
                started_at: HashMap::new(),
            })),
            clock,
        }
    }

    fn wake_one(inner: &mut Inner<T>) {
        while let Some(tx) = inner.getters.pop_front() {
            if tx.send(()).is_ok() {
                return;
            }
        }
    }

    /// Marks `item` as needing processing. An item already waiting is not
    /// added twice; one being processed is queued again after its `done`.
    pub fn add(&self, item: T) {
        let now = self.clock.now();
        let mut i = self.inner.borrow_mut();
        if i.shutting_down || i.dirty.contains(&item) {
            return;
        }
        i.metrics.adds += 1;
        i.dirty.insert(item.clone());
        if i.processing.contains(&item) {
            return;
        }
        i.added_at.insert(item.clone(), now);
        i.queue.push_back(item);
        i.metrics.depth = i.queue.len();
        Self::wake_one(&mut i);
    }

    fn pop(&self, i: &mut Inner<T>) -> Option<T> {
        let now = self.clock.now();
        let item = i.queue.pop_front()?;
        i.dirty.remove(&item);
        i.processing.insert(item.clone());
        if let Some(at) = i.added_at.remove(&item) {
            i.metrics.observe_queue_latency(now.saturating_sub(at));
        }
        i.started_at.insert(item.clone(), now);
        i.metrics.depth = i.queue.len();
        Some(item)
    }

    /// The next item if one is waiting, without waiting (call `done` after).
    pub fn try_get(&self) -> Option<T> {
        let mut i = self.inner.borrow_mut();
        self.pop(&mut i)
    }

    /// Waits for the next item; `None` once the queue is shut down and empty.
    pub async fn get(&self) -> Option<T> {
        loop {
            let rx = {
                let mut i = self.inner.borrow_mut();
                if let Some(item) = self.pop(&mut i) {
                    return Some(item);
                }
                if i.shutting_down {
                    return None;
                }
                let (tx, rx) = oneshot::channel();
                i.getters.push_back(tx);
                rx
            };
            let _ = rx.await;
        }
    }

    /// Marks `item` as processed. If it was added again meanwhile, it is queued now.
    pub fn done(&self, item: &T) {
        let now = self.clock.now();
        let mut i = self.inner.borrow_mut();
        if !i.processing.remove(item) {
            return;
        }
        if let Some(at) = i.started_at.remove(item) {
            i.metrics.observe_work_duration(now.saturating_sub(at));
        }
        if i.dirty.contains(item) {
            i.added_at.insert(item.clone(), now);
            i.queue.push_back(item.clone());
            i.metrics.depth = i.queue.len();
            Self::wake_one(&mut i);
        }
        if i.processing.is_empty() {
            for tx in i.drainers.drain(..) {
                let _ = tx.send(());
            }
        }
    }

    /// Items waiting to be handed out.
    pub fn len(&self) -> usize {
        self.inner.borrow().queue.len()
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Refuses new items; workers get what is queued, then `None`. A
    /// [`Queue::shut_down_with_drain`] still waiting returns now, as in
    /// client-go, where `ShutDown` ends a drain.
    pub fn shut_down(&self) {
        let mut i = self.inner.borrow_mut();
        Self::close(&mut i);
        for tx in i.drainers.drain(..) {
            let _ = tx.send(());
        }
    }

    fn close(i: &mut Inner<T>) {
        i.shutting_down = true;
        for tx in i.getters.drain(..) {
            let _ = tx.send(());
        }
    }

    /// Shuts down, then waits until every item handed out is `done` (or
    /// until [`Queue::shut_down`] ends the drain).
    pub async fn shut_down_with_drain(&self) {
        let rx = {
            let mut i = self.inner.borrow_mut();
            Self::close(&mut i);
            if i.processing.is_empty() {
                return;
            }
            let (tx, rx) = oneshot::channel();
            i.drainers.push(tx);
            rx
        };
        let _ = rx.await;
    }

    /// True once `shut_down` was called.
    pub fn shutting_down(&self) -> bool {
        self.inner.borrow().shutting_down
    }

    /// A snapshot of the metrics, with unfinished work measured now.
    pub fn metrics(&self) -> QueueMetrics {
        let now = self.clock.now();
        let i = self.inner.borrow();
        let mut m = i.metrics.clone();
        m.unfinished_work_seconds = i
            .started_at
            .values()
            .map(|s| now.saturating_sub(*s).as_secs_f64())
            .sum();
        m.longest_running_processor_seconds = i
            .started_at
            .values()
            .map(|s| now.saturating_sub(*s).as_secs_f64())
            .fold(0.0, f64::max);
        m
    }

    pub(crate) fn count_retry(&self) {
        self.inner.borrow_mut().metrics.retries += 1;
    }
}
