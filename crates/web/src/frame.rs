//! Applies changes to the view at most once per animation frame.
//!
//! Informer notifications add object keys to a work queue; the queue is
//! stingy, so a key updated 100 times between two frames is waiting once.
//! On the next `requestAnimationFrame` every waiting key is handed to the
//! apply function in one batch, which reads the latest state from the store.

use std::cell::{Cell, RefCell};
use std::hash::Hash;
use std::rc::Rc;

use kubeglass_client::workqueue::Queue;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use crate::WebClock;

type Apply<K> = Box<dyn FnMut(Vec<K>)>;

struct Inner<K> {
    queue: Queue<K>,
    apply: RefCell<Apply<K>>,
    /// True while a frame callback is pending.
    scheduled: Cell<bool>,
    /// Keys applied so far (for tests and the X-ray page).
    applied: Cell<u64>,
    /// Frames that applied something.
    frames: Cell<u64>,
}

/// A work queue drained once per animation frame.
pub struct FrameQueue<K> {
    inner: Rc<Inner<K>>,
}

impl<K> Clone for FrameQueue<K> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

impl<K: Clone + Eq + Hash + 'static> FrameQueue<K> {
    /// A queue named `name` whose batches go to `apply`.
    pub fn new(name: &str, apply: impl FnMut(Vec<K>) + 'static) -> Self {
        Self {
            inner: Rc::new(Inner {
                queue: Queue::new(name, Rc::new(WebClock)),
                apply: RefCell::new(Box::new(apply)),
                scheduled: Cell::new(false),
                applied: Cell::new(0),
                frames: Cell::new(0),
            }),
        }
    }

    /// Marks `key` as changed; it is applied at the next frame.
    pub fn add(&self, key: K) {
        self.inner.queue.add(key);
        if !self.inner.scheduled.replace(true) {
            let inner = self.inner.clone();
            let cb = Closure::once_into_js(move || Self::frame(&inner));
            let scheduled = web_sys::window()
                .and_then(|w| w.request_animation_frame(cb.unchecked_ref()).ok())
                .is_some();
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
        (inner.apply.borrow_mut())(batch.clone());
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
