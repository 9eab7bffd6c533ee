//! The queues between a reflector and an informer's processor.
//!
//! Two designs, both fed through [`ReflectorStore`]:
//!
//! - [`DeltaFifo`], client-go's classic queue: one entry per *key* holding
//!   every change (delta) since it was last popped, so an object that changes
//!   ten times before the consumer runs is processed once with ten deltas.
//!   A relist queues `Replaced` (or `Sync`) for every listed object and a
//!   deletion for every known key the list no longer has, as a
//!   [`Tombstone`] (client-go's `DeletedFinalStateUnknown`) because the real
//!   final state was never seen.
//! - [`RealFifo`], client-go's newer in-order queue: one entry per *event* in
//!   arrival order, a relist kept whole as one atomic entry, and batch pops.
//!
//! Both keep "has synced" the client-go way: the items queued by the first
//! relist must all have been popped. Both notify a [`Wakeup`] whenever
//! something is queued, so an async consumer can sleep until there is work.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::task::{Poll, Waker};

use kube_core::Resource;

use super::store::{ReflectorStore, object_key};

/// What happened to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeltaType {
    /// Created (or first seen by a watch).
    Added,
    /// Changed.
    Updated,
    /// Deleted.
    Deleted,
    /// Listed by a relist (client-go emits this only when asked to; else `Sync`).
    Replaced,
    /// Re-delivered by a periodic resync or a relist; nothing changed.
    Sync,
}

/// The last state of an object whose deletion was inferred from a relist,
/// not seen: client-go's `DeletedFinalStateUnknown`.
#[derive(Debug)]
pub struct Tombstone<K> {
    /// The store key of the deleted object.
    pub key: String,
    /// The last state this side knew, if it knew any.
    pub last_known: Option<Rc<K>>,
}

impl<K> Clone for Tombstone<K> {
    fn clone(&self) -> Self {
        Self {
            key: self.key.clone(),
            last_known: self.last_known.clone(),
        }
    }
}

/// The object a delta carries.
#[derive(Debug)]
pub enum DeltaObject<K> {
    /// A state the server sent.
    Object(Rc<K>),
    /// A deletion nobody saw happen.
    Tombstone(Tombstone<K>),
}

impl<K> Clone for DeltaObject<K> {
    fn clone(&self) -> Self {
        match self {
            DeltaObject::Object(o) => DeltaObject::Object(o.clone()),
            DeltaObject::Tombstone(t) => DeltaObject::Tombstone(t.clone()),
        }
    }
}

impl<K> DeltaObject<K> {
    /// The object, or the tombstone's last known state.
    pub fn object(&self) -> Option<&Rc<K>> {
        match self {
            DeltaObject::Object(o) => Some(o),
            DeltaObject::Tombstone(t) => t.last_known.as_ref(),
        }
    }

    /// True for a [`Tombstone`].
    pub fn is_tombstone(&self) -> bool {
        matches!(self, DeltaObject::Tombstone(_))
    }
}

/// One change to one object.
#[derive(Debug)]
pub struct Delta<K> {
    /// What happened.
    pub kind: DeltaType,
    /// The object after it happened (or its tombstone).
    pub object: DeltaObject<K>,
}

impl<K> Clone for Delta<K> {
    fn clone(&self) -> Self {
        Self {
            kind: self.kind,
            object: self.object.clone(),
        }
    }
}

/// A unit of work popped from a queue.
#[derive(Debug)]
pub enum Popped<K> {
    /// Deltas of one object, oldest first.
    Deltas {
        /// The object's store key.
        key: String,
        /// Its deltas, oldest first.
        deltas: Vec<Delta<K>>,
    },
    /// A complete relist to swap in at once (in-order FIFO only); the
    /// consumer works out adds, updates and deletes against what it holds.
    Replace {
        /// Every object the list returned.
        objects: Vec<Rc<K>>,
        /// The list's resourceVersion.
        resource_version: String,
    },
}

/// Applied to every object before it is queued: e.g. drop `managedFields`.
pub type Transform<K> = Rc<dyn Fn(K) -> K>;

/// What a queue may consult about the objects its consumer already holds
/// (client-go's `KeyListerGetter`): the informer's indexer.
pub trait KnownObjects<K> {
    /// Every key held.
    fn known_keys(&self) -> Vec<String>;
    /// The object held under `key`.
    fn known(&self, key: &str) -> Option<Rc<K>>;
}

/// A queue an informer's processor consumes; the reflector fills it.
pub trait InformerQueue<K>: ReflectorStore<K> {
    /// Pops up to `max` units of work, oldest first.
    fn pop_batch(&mut self, max: usize) -> Vec<Popped<K>>;
    /// Queues a `Sync` for every known object (periodic resync).
    fn resync(&mut self);
    /// True once everything the first relist queued has been popped.
    fn has_synced(&self) -> bool;
    /// Units of work waiting.
    fn len(&self) -> usize;
    /// True when nothing waits.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Signalled whenever work is queued.
    fn wakeup(&self) -> Wakeup;
}

/// A level-triggered wake-up for one async consumer.
#[derive(Clone, Default)]
pub struct Wakeup {
    inner: Rc<RefCell<WakeupInner>>,
}

#[derive(Default)]
struct WakeupInner {
    pending: bool,
    closed: bool,
    waker: Option<Waker>,
}

impl std::fmt::Debug for Wakeup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wakeup")
            .field("pending", &self.inner.borrow().pending)
            .finish()
    }
}

impl Wakeup {
    /// Marks work as pending and wakes the consumer.
    pub fn notify(&self) {
        let mut i = self.inner.borrow_mut();
        i.pending = true;
        if let Some(w) = i.waker.take() {
            w.wake();
        }
    }

    /// Wakes the consumer for good: every later [`Wakeup::wait`] returns at once.
    pub fn close(&self) {
        self.inner.borrow_mut().closed = true;
        self.notify();
    }

    /// True after [`Wakeup::close`].
    pub fn is_closed(&self) -> bool {
        self.inner.borrow().closed
    }

    /// Completes when work has been signalled since the last wait returned.
    pub async fn wait(&self) {
        futures::future::poll_fn(|cx| {
            let mut i = self.inner.borrow_mut();
            if i.pending || i.closed {
                i.pending = false;
                Poll::Ready(())
            } else {
                i.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        })
        .await;
    }
}

/// client-go's `DeltaFIFO`: per key, every change since the last pop.
pub struct DeltaFifo<K> {
    items: HashMap<String, Vec<Delta<K>>>,
    queue: VecDeque<String>,
    known: Option<Rc<dyn KnownObjects<K>>>,
    transform: Option<Transform<K>>,
    emit_replaced: bool,
    populated: bool,
    initial_population: usize,
    wakeup: Wakeup,
}

impl<K> std::fmt::Debug for DeltaFifo<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeltaFifo")
            .field("queued", &self.queue.len())
            .field("populated", &self.populated)
            .field("initial_population", &self.initial_population)
            .finish_non_exhaustive()
    }
}

impl<K: Resource> DeltaFifo<K> {
    /// An empty queue. `known` is what the consumer holds (the indexer);
    /// without it, deletions on relist are inferred from the queue alone.
    pub fn new(known: Option<Rc<dyn KnownObjects<K>>>) -> Self {
        Self {
            items: HashMap::new(),
            queue: VecDeque::new(),
            known,
            transform: None,
            emit_replaced: true,
            populated: false,
            initial_population: 0,
            wakeup: Wakeup::default(),
        }
    }

    /// Applies `transform` to every object before queueing it.
    pub fn with_transform(mut self, transform: Transform<K>) -> Self {
        self.transform = Some(transform);
        self
    }

    /// Relists queue `Sync` instead of `Replaced` (client-go's old default).
    pub fn without_replaced_deltas(mut self) -> Self {
        self.emit_replaced = false;
        self
    }

    /// The deltas queued for `key`, oldest first.
    pub fn get(&self, key: &str) -> Option<&[Delta<K>]> {
        self.items.get(key).map(Vec::as_slice)
    }

    /// Queued keys in pop order.
    pub fn list_keys(&self) -> Vec<String> {
        self.queue.iter().cloned().collect()
    }

    /// Pops the oldest key with its deltas.
    pub fn pop(&mut self) -> Option<(String, Vec<Delta<K>>)> {
        let key = self.queue.pop_front()?;
        let deltas = self.items.remove(&key).unwrap_or_default();
        if self.initial_population > 0 {
            self.initial_population -= 1;
        }
        Some((key, deltas))
    }

    fn queue_action(&mut self, kind: DeltaType, object: DeltaObject<K>, key: String) {
        let deltas = match self.items.get_mut(&key) {
            Some(d) => d,
            None => {
                self.queue.push_back(key.clone());
                self.items.entry(key).or_default()
            }
        };
        deltas.push(Delta { kind, object });
        collapse_deletes(deltas);
        self.wakeup.notify();
    }

    fn queue_object(&mut self, kind: DeltaType, obj: K) {
        let obj = match &self.transform {
            Some(t) => t(obj),
            None => obj,
        };
        let key = object_key(&obj);
        self.queue_action(kind, DeltaObject::Object(Rc::new(obj)), key);
    }

    /// The newest state queued for `key`, if any.
    fn newest_queued(&self, key: &str) -> Option<Rc<K>> {
        self.items
            .get(key)
            .and_then(|d| d.last())
            .and_then(|d| d.object.object().cloned())
    }
}

/// Two deletions in a row are one (delta_fifo.go `isDeletionDup`): keep
/// the older, which carries the most information, unless it is only a
/// tombstone (`DeletedFinalStateUnknown`); then keep the newer.
fn collapse_deletes<K>(deltas: &mut Vec<Delta<K>>) {
    let n = deltas.len();
    if n < 2 {
        return;
    }
    let (older, newer) = (&deltas[n - 2], &deltas[n - 1]);
    if older.kind == DeltaType::Deleted && newer.kind == DeltaType::Deleted {
        if older.object.is_tombstone() {
            deltas.remove(n - 2);
        } else {
            deltas.pop();
        }
    }
}

impl<K: Resource> ReflectorStore<K> for DeltaFifo<K> {
    fn add(&mut self, obj: K) {
        self.populated = true;
        self.queue_object(DeltaType::Added, obj);
    }

    fn update(&mut self, obj: K) {
        self.populated = true;
        self.queue_object(DeltaType::Updated, obj);
    }

    fn delete(&mut self, obj: K) {
        self.populated = true;
        let key = object_key(&obj);
        let queued = self.items.contains_key(&key);
        let known = match &self.known {
            Some(k) => k.known(&key).is_some(),
            None => false,
        };
        // A delete for something neither queued nor held would only confuse
        // the consumer with an object it never saw.
        if !queued && !known {
            return;
        }
        self.queue_object(DeltaType::Deleted, obj);
    }

    fn replace(&mut self, objs: Vec<K>, _resource_version: &str) {
        let kind = if self.emit_replaced {
            DeltaType::Replaced
        } else {
            DeltaType::Sync
        };
        let mut keys = HashSet::with_capacity(objs.len());
        let listed = objs.len();
        for obj in objs {
            let obj = match &self.transform {
                Some(t) => t(obj),
                None => obj,
            };
            let key = object_key(&obj);
            keys.insert(key.clone());
            self.queue_action(kind, DeltaObject::Object(Rc::new(obj)), key);
        }
        // Everything held or queued that the list no longer has was deleted
        // while nobody watched: queue a tombstone with the last state known.
        let mut candidates: Vec<String> = self.queue.iter().cloned().collect();
        if let Some(known) = &self.known {
            candidates.extend(known.known_keys());
        }
        let mut seen = HashSet::new();
        let mut deletions = 0;
        for key in candidates {
            if keys.contains(&key) || !seen.insert(key.clone()) {
                continue;
            }
            let already_deleted = self
                .items
                .get(&key)
                .and_then(|d| d.last())
                .is_some_and(|d| d.kind == DeltaType::Deleted);
            if already_deleted {
                continue;
            }
            let last_known = self
                .newest_queued(&key)
                .or_else(|| self.known.as_ref().and_then(|k| k.known(&key)));
            let tombstone = Tombstone {
                key: key.clone(),
                last_known,
            };
            self.queue_action(DeltaType::Deleted, DeltaObject::Tombstone(tombstone), key);
            deletions += 1;
        }
        if !self.populated {
            self.populated = true;
            self.initial_population = listed + deletions;
        }
        self.wakeup.notify();
    }
}

impl<K: Resource> InformerQueue<K> for DeltaFifo<K> {
    fn pop_batch(&mut self, max: usize) -> Vec<Popped<K>> {
        let mut out = Vec::new();
        while out.len() < max {
            match self.pop() {
                Some((key, deltas)) => out.push(Popped::Deltas { key, deltas }),
                None => break,
            }
        }
        out
    }

    fn resync(&mut self) {
        let Some(known) = self.known.clone() else {
            return;
        };
        for key in known.known_keys() {
            // Something already queued for the key says more than a resync would.
            if self.items.contains_key(&key) {
                continue;
            }
            if let Some(obj) = known.known(&key) {
                self.queue_action(DeltaType::Sync, DeltaObject::Object(obj), key);
            }
        }
    }

    fn has_synced(&self) -> bool {
        self.populated && self.initial_population == 0
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn wakeup(&self) -> Wakeup {
        self.wakeup.clone()
    }
}

/// client-go's in-order FIFO: every event in arrival order, a relist as one
/// atomic entry, batch pops.
pub struct RealFifo<K> {
    entries: VecDeque<Popped<K>>,
    known: Option<Rc<dyn KnownObjects<K>>>,
    transform: Option<Transform<K>>,
    populated: bool,
    initial_population: usize,
    wakeup: Wakeup,
}

impl<K> std::fmt::Debug for RealFifo<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RealFifo")
            .field("queued", &self.entries.len())
            .field("populated", &self.populated)
            .finish_non_exhaustive()
    }
}

impl<K: Resource> RealFifo<K> {
    /// An empty queue; `known` is consulted for periodic resyncs.
    pub fn new(known: Option<Rc<dyn KnownObjects<K>>>) -> Self {
        Self {
            entries: VecDeque::new(),
            known,
            transform: None,
            populated: false,
            initial_population: 0,
            wakeup: Wakeup::default(),
        }
    }

    /// Applies `transform` to every object before queueing it.
    pub fn with_transform(mut self, transform: Transform<K>) -> Self {
        self.transform = Some(transform);
        self
    }

    fn push(&mut self, kind: DeltaType, obj: K) {
        self.populated = true;
        let obj = match &self.transform {
            Some(t) => t(obj),
            None => obj,
        };
        let key = object_key(&obj);
        self.entries.push_back(Popped::Deltas {
            key,
            deltas: vec![Delta {
                kind,
                object: DeltaObject::Object(Rc::new(obj)),
            }],
        });
        self.wakeup.notify();
    }
}

impl<K: Resource> ReflectorStore<K> for RealFifo<K> {
    fn add(&mut self, obj: K) {
        self.push(DeltaType::Added, obj);
    }

    fn update(&mut self, obj: K) {
        self.push(DeltaType::Updated, obj);
    }

    fn delete(&mut self, obj: K) {
        self.push(DeltaType::Deleted, obj);
    }

    fn replace(&mut self, objs: Vec<K>, resource_version: &str) {
        let objects = objs
            .into_iter()
            .map(|o| match &self.transform {
                Some(t) => Rc::new(t(o)),
                None => Rc::new(o),
            })
            .collect();
        self.entries.push_back(Popped::Replace {
            objects,
            resource_version: resource_version.to_string(),
        });
        if !self.populated {
            self.populated = true;
            self.initial_population = self.entries.len();
        }
        self.wakeup.notify();
    }
}

impl<K: Resource> InformerQueue<K> for RealFifo<K> {
    fn pop_batch(&mut self, max: usize) -> Vec<Popped<K>> {
        let n = max.min(self.entries.len());
        self.initial_population = self.initial_population.saturating_sub(n);
        self.entries.drain(..n).collect()
    }

    /// Queues a Sync for every known object that has nothing queued
    /// (client-go's RealFIFO `Resync`): a queued event for a key means the
    /// known state is already stale, and a Sync of it must not follow the
    /// newer event. A queued relist covers every key (it lists or deletes
    /// each), so then nothing is queued.
    fn resync(&mut self) {
        let Some(known) = self.known.clone() else {
            return;
        };
        let mut queued = HashSet::new();
        for entry in &self.entries {
            match entry {
                Popped::Deltas { key, .. } => {
                    queued.insert(key.clone());
                }
                Popped::Replace { .. } => return,
            }
        }
        for key in known.known_keys() {
            if queued.contains(&key) {
                continue;
            }
            if let Some(obj) = known.known(&key) {
                self.entries.push_back(Popped::Deltas {
                    key,
                    deltas: vec![Delta {
                        kind: DeltaType::Sync,
                        object: DeltaObject::Object(obj),
                    }],
                });
            }
        }
        self.wakeup.notify();
    }

    fn has_synced(&self) -> bool {
        self.populated && self.initial_population == 0
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn wakeup(&self) -> Wakeup {
        self.wakeup.clone()
    }
}
