//! Applies changes to the view at most once per animation frame.
//!
//! Informer notifications add object keys to a work queue; the queue is
//! stingy, so a key updated 100 times between two frames is waiting once.
//! On the next `requestAnimationFrame` every waiting key is handed to the
//! apply function in one batch, which reads the latest state from the store.

use std::cell::{Cell, RefCell};
use std::hash::Hash;
use std::rc::{Rc, Weak};

use kubeglass_client::clock::Clock;
use kubeglass_client::workqueue::Queue;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

type Apply<K> = Box<dyn FnMut(Vec<K>)>;

/// Asks for `callback` to run before the next frame is drawn; false when it
/// cannot be scheduled. The browser's is [`animation_frames`]; a native test
/// passes one it pumps by hand.
pub type RequestFrame = Rc<dyn Fn(Box<dyn FnOnce()>) -> bool>;

/// The browser's frames: `requestAnimationFrame`.
pub fn animation_frames() -> RequestFrame {
    Rc::new(|callback: Box<dyn FnOnce()>| {
        let cb = Closure::once_into_js(callback);
        web_sys::window()
            .and_then(|w| w.request_animation_frame(cb.unchecked_ref()).ok())
            .is_some()
    })
}

struct Inner<K: Clone + Eq + Hash + 'static> {
    queue: Queue<K>,
    /// The app's clock: the queue's waits and each frame's apply are timed by it.
    clock: Rc<dyn Clock>,
    apply: RefCell<Apply<K>>,
    /// True while a frame callback is pending.
    scheduled: Cell<bool>,
    /// Schedules the next frame.
    request_frame: RequestFrame,
    /// Keys applied so far (for tests and the X-ray page).
    applied: Cell<u64>,
    /// Frames that applied something.
    frames: Cell<u64>,
    /// The most keys applied in one frame.
    largest_batch: Cell<usize>,
    /// The longest time one frame's apply took, in ms.
    slowest_apply_ms: Cell<f64>,
}

/// What the X-ray page shows of one live frame queue.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameQueueStats {
    /// The queue's metrics (client-go names; "work" is the time a batch took to apply).
    pub metrics: kubeglass_client::workqueue::QueueMetrics,
    /// Keys applied so far.
    pub applied: u64,
    /// Frames that applied something.
    pub frames: u64,
    /// The most keys applied in one frame.
    pub largest_batch: usize,
    /// The longest one frame's apply took, in ms.
    pub slowest_apply_ms: f64,
    /// How many queues of this name are alive now (0: every view using it has gone).
    pub live: usize,
}

impl FrameQueueStats {
    /// Adds `other` (a queue of the same name) into these figures.
    fn merge(&mut self, other: &FrameQueueStats) {
        let m = &mut self.metrics;
        m.depth += other.metrics.depth;
        m.adds += other.metrics.adds;
        m.retries += other.metrics.retries;
        m.queue_latency.merge(&other.metrics.queue_latency);
        m.work_duration.merge(&other.metrics.work_duration);
        self.applied += other.applied;
        self.frames += other.frames;
        self.largest_batch = self.largest_batch.max(other.largest_batch);
        self.slowest_apply_ms = self.slowest_apply_ms.max(other.slowest_apply_ms);
        self.live += other.live;
    }
}

trait Stats {
    fn stats(&self) -> FrameQueueStats;
}

impl<K: Clone + Eq + Hash + 'static> Stats for Inner<K> {
    fn stats(&self) -> FrameQueueStats {
        FrameQueueStats {
            metrics: self.queue.metrics(),
            applied: self.applied.get(),
            frames: self.frames.get(),
            largest_batch: self.largest_batch.get(),
            slowest_apply_ms: self.slowest_apply_ms.get(),
            live: 1,
        }
    }
}

impl<K: Clone + Eq + Hash + 'static> Drop for Inner<K> {
    fn drop(&mut self) {
        // Keep what a closed view's queue did, summed by name, for X-ray.
        let stats = FrameQueueStats {
            live: 0,
            ..self.stats()
        };
        let _ = RETIRED.try_with(|r| {
            let mut r = r.borrow_mut();
            match r.iter_mut().find(|s| s.metrics.name == stats.metrics.name) {
                Some(s) => s.merge(&stats),
                None => r.push(stats),
            }
        });
    }
}

thread_local! {
    /// Every frame queue created and not yet dropped (weakly held).
    static LIVE: RefCell<Vec<Weak<dyn Stats>>> = const { RefCell::new(Vec::new()) };
    /// What dropped queues did, summed by name.
    static RETIRED: RefCell<Vec<FrameQueueStats>> = const { RefCell::new(Vec::new()) };
}

/// Every frame queue since the page opened, summed by name in order of
/// first use: those alive now (`live` > 0) and those whose views have gone.
pub fn frame_queue_stats() -> Vec<FrameQueueStats> {
    let mut out: Vec<FrameQueueStats> = RETIRED.with(|r| r.borrow().clone());
    let live: Vec<FrameQueueStats> = LIVE.with(|live| {
        let mut live = live.borrow_mut();
        live.retain(|w| w.strong_count() > 0);
        live.iter()
            .filter_map(Weak::upgrade)
            .map(|q| q.stats())
            .collect()
    });
    for s in live {
        match out.iter_mut().find(|o| o.metrics.name == s.metrics.name) {
            Some(o) => o.merge(&s),
            None => out.push(s),
        }
    }
    out
}

/// A work queue drained once per animation frame.
pub struct FrameQueue<K: Clone + Eq + Hash + 'static> {
    inner: Rc<Inner<K>>,
}

impl<K: Clone + Eq + Hash + 'static> Clone for FrameQueue<K> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

impl<K: Clone + Eq + Hash + 'static> FrameQueue<K> {
    /// A queue named `name`, timed by `clock`, whose batches go to `apply`
    /// once per animation frame.
    pub fn new(name: &str, clock: Rc<dyn Clock>, apply: impl FnMut(Vec<K>) + 'static) -> Self {
        Self::with_frames(name, clock, animation_frames(), apply)
    }

    /// [`FrameQueue::new`] on the frames `request_frame` schedules.
    pub fn with_frames(
        name: &str,
        clock: Rc<dyn Clock>,
        request_frame: RequestFrame,
        apply: impl FnMut(Vec<K>) + 'static,
    ) -> Self {
        let inner = Rc::new(Inner {
            queue: Queue::new(name, clock.clone()),
            clock,
            request_frame,
            apply: RefCell::new(Box::new(apply)),
            scheduled: Cell::new(false),
            applied: Cell::new(0),
            frames: Cell::new(0),
            largest_batch: Cell::new(0),
            slowest_apply_ms: Cell::new(0.0),
        });
        let weak: Weak<dyn Stats> = Rc::downgrade(&(inner.clone() as Rc<dyn Stats>));
        LIVE.with(|live| {
            let mut live = live.borrow_mut();
            live.retain(|w| w.strong_count() > 0);
            live.push(weak);
        });
        Self { inner }
    }

    /// Marks `key` as changed; it is applied at the next frame.
    pub fn add(&self, key: K) {
        self.inner.queue.add(key);
        if !self.inner.scheduled.replace(true) {
            let inner = self.inner.clone();
            let scheduled = (self.inner.request_frame)(Box::new(move || Self::frame(&inner)));
            if !scheduled {
                self.inner.scheduled.set(false);
            }
        }
    }

    fn frame(inner: &Rc<Inner<K>>) {
        inner.scheduled.set(false);
        let mut batch = Vec::new();
        while let Some(k) = inner.queue.try_get() {
            batch.push(k);
        }
        if batch.is_empty() {
            return;
        }
        inner.applied.set(inner.applied.get() + batch.len() as u64);
        inner.frames.set(inner.frames.get() + 1);
        inner
            .largest_batch
            .set(inner.largest_batch.get().max(batch.len()));
        let started = inner.clock.now();
        (inner.apply.borrow_mut())(batch.clone());
        let took = inner.clock.now().saturating_sub(started).as_secs_f64() * 1000.0;
        inner
            .slowest_apply_ms
            .set(inner.slowest_apply_ms.get().max(took));
        for k in &batch {
            inner.queue.done(k);
        }
    }

    /// Keys applied so far.
    pub fn applied(&self) -> u64 {
        self.inner.applied.get()
    }

    /// Frames that applied at least one key.
    pub fn frames(&self) -> u64 {
        self.inner.frames.get()
    }

    /// The queue's metrics (client-go names).
    pub fn metrics(&self) -> kubeglass_client::workqueue::QueueMetrics {
        self.inner.queue.metrics()
    }
}
