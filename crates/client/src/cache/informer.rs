//! Shared informers: one reflector and one cache, any number of event handlers.
//!
//! A [`SharedInformer`] runs three loops in one future: the reflector (list +
//! watch into a queue), the processor (pops the queue, applies each change to
//! the [`Indexer`], tells every handler) and the resync timer. Everything is
//! single-threaded: handlers are called synchronously, in order, after the
//! indexer already holds the change, so a handler reading the cache sees at
//! least what it is told about. Handlers must be quick (the app's push into
//! per-frame queues).
//!
//! The processor drains the whole queue in one go before it yields, so nobody
//! else runs while a relist is half applied: readers never see a half-synced
//! cache with either queue. With the in-order queue ([`RealFifo`], the
//! default) a relist is also one atomic swap of the indexer.
//!
//! A relist that names an object it could not decode does not delete it:
//! the cache keeps the last good copy and [`SharedInformer::stale`] names
//! it, with why, until a copy that decodes arrives or the server deletes
//! it (see [`super::stale`]). Handlers hear nothing of it meanwhile.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::{Rc, Weak};
use std::time::Duration;

use futures::FutureExt;
use futures::channel::oneshot;
use kube_core::Resource;
use serde::de::DeserializeOwned;

use super::fifo::{
    DeltaFifo, DeltaObject, DeltaType, InformerQueue, KnownObjects, Popped, RealFifo, Transform,
    Wakeup,
};
use super::indexer::{IndexFunc, Indexer};
use super::lister::Lister;
use super::reflector::{Reflector, ReflectorConfig, ReflectorState, ReflectorStatus};
use super::stale::Stale;
use super::store::{ReflectorStore, object_key};
use crate::clock::{Clock, Timestamp};
use crate::reconnect::Reconnect;
use crate::rest::RestClient;
use crate::rest::list::Undecodable;
use crate::rest::table::TableColumn;

/// What a handler is told.
#[derive(Debug)]
pub enum Notification<K> {
    /// An object appeared. `initial` is true for objects delivered as part of
    /// the state at sync (or the replay a late handler receives).
    Added {
        /// The object.
        object: Rc<K>,
        /// Part of the initial state rather than a change.
        initial: bool,
    },
    /// An object changed (or, with `resync`, was re-delivered unchanged).
    Updated {
        /// The state before.
        old: Rc<K>,
        /// The state now.
        new: Rc<K>,
        /// A periodic resync, not a change.
        resync: bool,
    },
    /// An object went away.
    Deleted {
        /// Its last state (the server's, or the last one held when the
        /// deletion was only inferred from a relist).
        object: Rc<K>,
        /// The deletion was inferred from a relist (client-go's
        /// `DeletedFinalStateUnknown`): the real final state was never seen.
        final_state_unknown: bool,
    },
}

/// Which queue sits between the reflector and the processor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueKind {
    /// client-go's in-order FIFO with atomic relists and batch pops (the
    /// default: docs/benchmarks.md has the measurement).
    #[default]
    InOrder,
    /// client-go's classic DeltaFIFO (per-key delta lists).
    Delta,
}

/// Builds the queue between reflector and processor. A function rather
/// than a [`QueueKind`] so that a program that only ever uses the in-order
/// queue does not carry the DeltaFIFO's code for every object type (the
/// browser build is size-sensitive).
pub type QueueBuilder<K> =
    fn(Rc<dyn KnownObjects<K>>, Option<Transform<K>>) -> (SharedQueue<K>, SharedStore<K>);

/// The in-order queue ([`QueueKind::InOrder`]).
pub fn in_order_queue<K: Resource + 'static>(
    known: Rc<dyn KnownObjects<K>>,
    transform: Option<Transform<K>>,
) -> (SharedQueue<K>, SharedStore<K>) {
    let mut q = RealFifo::new(Some(known));
    if let Some(t) = transform {
        q = q.with_transform(t);
    }
    let q = Rc::new(RefCell::new(q));
    (q.clone(), q)
}

/// The DeltaFIFO ([`QueueKind::Delta`]).
pub fn delta_fifo_queue<K: Resource + 'static>(
    known: Rc<dyn KnownObjects<K>>,
    transform: Option<Transform<K>>,
) -> (SharedQueue<K>, SharedStore<K>) {
    let mut q = DeltaFifo::new(Some(known));
    if let Some(t) = transform {
        q = q.with_transform(t);
    }
    let q = Rc::new(RefCell::new(q));
    (q.clone(), q)
}

/// How an informer is built.
pub struct InformerOptions<K> {
    /// What to list and watch.
    pub reflector: ReflectorConfig,
    /// Applied to each object before it is cached. Set another one with
    /// [`InformerOptions::with_transform`], which names it: informers are
    /// shared by the name, so a cache trimmed for one view is never handed
    /// to a view expecting whole objects.
    pub transform: Option<Transform<K>>,
    /// What `transform` is called in the informer's key (and on X-ray).
    pub transform_name: &'static str,
    /// Builds the queue ([`InformerOptions::with_queue`] picks by kind).
    pub queue: QueueBuilder<K>,
    /// Extra indexes (the namespace index is always there).
    pub indexers: Vec<(String, IndexFunc<K>)>,
}

impl<K: Resource + 'static> InformerOptions<K> {
    /// Defaults for the collection at `url_path`: in-order queue, managed
    /// fields dropped (display caches never need them).
    pub fn new(url_path: impl Into<String>) -> Self {
        Self {
            reflector: ReflectorConfig::new(url_path),
            transform: Some(drop_managed_fields::<K>()),
            transform_name: DROP_MANAGED_FIELDS,
            queue: in_order_queue::<K>,
            indexers: Vec::new(),
        }
    }

    /// Caches each object as `transform` makes it (client-go's
    /// `SetTransform`: trim what a view never reads before it takes memory),
    /// under `name`, which keeps it apart from informers of other transforms.
    pub fn with_transform(mut self, name: &'static str, transform: Transform<K>) -> Self {
        self.transform = Some(transform);
        self.transform_name = name;
        self
    }

    /// Uses the queue design `kind`.
    pub fn with_queue(mut self, kind: QueueKind) -> Self {
        self.queue = match kind {
            QueueKind::InOrder => in_order_queue::<K>,
            QueueKind::Delta => delta_fifo_queue::<K>,
        };
        self
    }
}

/// The default transform's name.
pub const DROP_MANAGED_FIELDS: &str = "managedFields dropped";

/// The default transform for display caches: `metadata.managedFields` removed.
pub fn drop_managed_fields<K: Resource>() -> Transform<K> {
    Rc::new(|mut o: K| {
        o.meta_mut().managed_fields = None;
        o
    })
}

/// The transform for caches of core Secrets' metadata: every annotation's
/// value hidden before the object is cached (any of them can hold the
/// Secret's data: [`crate::rest::secrets::redact_metadata`]), keys and
/// managed fields kept.
pub fn redact_secret_metadata<K: Resource>() -> Transform<K> {
    Rc::new(|mut o: K| {
        crate::rest::secrets::redact_metadata(o.meta_mut());
        o
    })
}

/// The transform an informer of `path` caches through: `transform` as the
/// view asked, and for core Secrets, whoever asks and whatever else the
/// transform does, [`redact_secret_metadata`] after it. Every informer is
/// made in [`SharedInformer::new`], which applies this, so no view has to
/// remember it. (Secret data itself never arrives: the Secret guard refuses
/// any request for it that is not a person's Reveal.)
fn secrets_redacted<K: Resource + 'static>(
    path: &str,
    transform: Option<Transform<K>>,
) -> Option<Transform<K>> {
    if !crate::rest::secrets::is_secrets_path(path) {
        return transform;
    }
    let redact = redact_secret_metadata::<K>();
    Some(match transform {
        None => redact,
        Some(t) => Rc::new(move |o: K| redact(t(o))),
    })
}

/// Counters of the processor side, for the X-ray page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcessorStats {
    /// Units of work popped.
    pub popped: u64,
    /// Notifications handed to handlers.
    pub notifications: u64,
    /// Relists applied.
    pub replaces: u64,
    /// Largest number of units popped in one turn.
    pub largest_batch: usize,
    /// Turns that took over 100 ms with more than 10 units waiting.
    pub slow_turns: u64,
    /// What the last slow turn looked like, for a log line.
    pub last_slow: Option<String>,
}

/// Everything the X-ray page shows about one informer.
#[derive(Debug, Clone, PartialEq)]
pub struct InformerSnapshot {
    /// The reflector's state and counters.
    pub reflector: ReflectorStatus,
    /// The processor's counters.
    pub processor: ProcessorStats,
    /// Objects in the cache.
    pub objects: usize,
    /// Units of work waiting in the queue.
    pub queued: usize,
    /// Registered handlers.
    pub handlers: usize,
    /// True once the first list has been applied and delivered.
    pub synced: bool,
    /// Watches re-opened after the first.
    pub watch_restarts: u64,
    /// Lists after the first.
    pub relists: u64,
    /// The objects held as their last good copy because the server's copy
    /// no longer decodes ([`SharedInformer::stale`]).
    pub stale: Stale,
}

impl InformerSnapshot {
    /// A short word for the state: "listing", "watching", "backing off", "stopped", "idle".
    pub fn state_label(&self) -> &'static str {
        self.reflector.state.label()
    }
}

type HandlerFn<K> = Rc<RefCell<dyn FnMut(&Notification<K>)>>;
type ErrorHook = RefCell<Option<Box<dyn Fn(&str)>>>;
/// A queue as the processor holds it.
pub type SharedQueue<K> = Rc<RefCell<dyn InformerQueue<K>>>;
/// The same queue as the reflector holds it.
pub type SharedStore<K> = Rc<RefCell<dyn ReflectorStore<K>>>;

struct HandlerEntry<K> {
    id: u64,
    f: HandlerFn<K>,
    resync: Option<Duration>,
    next_resync: Timestamp,
}

struct Inner<K> {
    indexer: Rc<RefCell<Indexer<K>>>,
    queue: SharedQueue<K>,
    store: SharedStore<K>,
    status: Rc<RefCell<ReflectorStatus>>,
    stats: RefCell<ProcessorStats>,
    handlers: RefCell<Vec<HandlerEntry<K>>>,
    next_id: Cell<u64>,
    synced: Cell<bool>,
    sync_waiters: RefCell<Vec<oneshot::Sender<()>>>,
    handlers_changed: Wakeup,
    /// Handlers due at the current resync; only they get `Sync` deltas.
    resyncing: RefCell<HashSet<u64>>,
    /// The keys the indexer holds as their last good copy: the last relist
    /// could not decode the server's copy. Written by the processor as it
    /// applies each change, so it agrees with the indexer; every key here
    /// is in the indexer.
    stale: RefCell<Stale>,
    watch_error: ErrorHook,
    clock: Rc<dyn Clock>,
    client: RestClient,
    config: ReflectorConfig,
    reconnect: RefCell<Option<Reconnect>>,
    running: Cell<bool>,
    columns: Rc<RefCell<Vec<TableColumn>>>,
}

/// One cache of one collection, shared by any number of handlers and listers.
pub struct SharedInformer<K> {
    inner: Rc<Inner<K>>,
}

impl<K> Clone for SharedInformer<K> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

struct IndexerKnown<K>(Rc<RefCell<Indexer<K>>>);

impl<K: Resource> KnownObjects<K> for IndexerKnown<K> {
    fn known_keys(&self) -> Vec<String> {
        self.0.borrow().keys()
    }
    fn known(&self, key: &str) -> Option<Rc<K>> {
        self.0.borrow().get(key)
    }
}

/// A handler's registration: remove it, or ask whether it has synced.
pub struct HandlerRegistration<K> {
    id: u64,
    informer: Weak<Inner<K>>,
}

impl<K> HandlerRegistration<K> {
    /// True once the handler has received the complete initial state.
    ///
    /// Handlers are called synchronously, so this is the informer's own
    /// has-synced: by the time the informer reports synced, every handler
    /// (and a late one, at registration) has been given every object.
    pub fn has_synced(&self) -> bool {
        self.informer.upgrade().is_some_and(|i| i.synced.get())
    }

    /// Stops calling the handler.
    pub fn remove(&self) {
        if let Some(i) = self.informer.upgrade() {
            i.handlers.borrow_mut().retain(|h| h.id != self.id);
            i.handlers_changed.notify();
        }
    }
}

impl<K> SharedInformer<K>
where
    K: Resource + DeserializeOwned + Clone + 'static,
{
    /// An informer that has not started.
    pub fn new(client: RestClient, clock: Rc<dyn Clock>, options: InformerOptions<K>) -> Self {
        let mut indexer = Indexer::new();
        for (name, f) in options.indexers {
            indexer.put_index(&name, f);
        }
        let indexer = Rc::new(RefCell::new(indexer));
        let known: Rc<dyn KnownObjects<K>> = Rc::new(IndexerKnown(indexer.clone()));
        let transform = secrets_redacted(&options.reflector.url_path, options.transform);
        let (queue, store) = (options.queue)(known, transform);
        Self {
            inner: Rc::new(Inner {
                indexer,
                queue,
                store,
                status: Rc::new(RefCell::new(ReflectorStatus::default())),
                stats: RefCell::new(ProcessorStats::default()),
                handlers: RefCell::new(Vec::new()),
                next_id: Cell::new(1),
                synced: Cell::new(false),
                sync_waiters: RefCell::new(Vec::new()),
                handlers_changed: Wakeup::default(),
                resyncing: RefCell::new(HashSet::new()),
                stale: RefCell::new(Stale::default()),
                watch_error: RefCell::new(None),
                clock,
                client,
                config: options.reflector,
                reconnect: RefCell::new(None),
                running: Cell::new(false),
                columns: Rc::default(),
            }),
        }
    }

    /// Cuts connection-failure backoffs short when `reconnect` fires.
    pub fn set_reconnect(&self, reconnect: Reconnect) {
        *self.inner.reconnect.borrow_mut() = Some(reconnect);
    }

    /// Called with a readable message whenever list or watch fails.
    pub fn set_watch_error_handler(&self, f: impl Fn(&str) + 'static) {
        *self.inner.watch_error.borrow_mut() = Some(Box::new(f));
    }

    /// Registers `handler`. If objects are already cached it first receives
    /// each of them as `Added { initial: true }`. With `resync`, it is also
    /// re-sent every object (`Updated { resync: true }`) that often: zero
    /// means never, and less than [`MINIMUM_RESYNC_PERIOD`] means that.
    pub fn add_handler(
        &self,
        handler: impl FnMut(&Notification<K>) + 'static,
        resync: Option<Duration>,
    ) -> HandlerRegistration<K> {
        let id = self.inner.next_id.get();
        self.inner.next_id.set(id + 1);
        let f: HandlerFn<K> = Rc::new(RefCell::new(handler));
        // Replay what is cached before the handler sees any change.
        let mut current = self.inner.indexer.borrow().list();
        current.sort_by_key(|o| object_key(o.as_ref()));
        for object in current {
            (f.borrow_mut())(&Notification::Added {
                object,
                initial: true,
            });
        }
        // client-go: zero means no resync; under its minimum is raised to it.
        let period = resync
            .filter(|p| !p.is_zero())
            .map(|p| p.max(MINIMUM_RESYNC_PERIOD));
        let next_resync = self.inner.clock.now() + period.unwrap_or_default();
        self.inner.handlers.borrow_mut().push(HandlerEntry {
            id,
            f,
            resync: period,
            next_resync,
        });
        self.inner.handlers_changed.notify();
        HandlerRegistration {
            id,
            informer: Rc::downgrade(&self.inner),
        }
    }

    /// A lister over the cache.
    pub fn lister(&self) -> Lister<K> {
        Lister::new(self.inner.indexer.clone())
    }

    /// The cache itself (read it; the informer writes it).
    pub fn indexer(&self) -> Rc<RefCell<Indexer<K>>> {
        self.inner.indexer.clone()
    }

    /// Adds an index (also after start: what is cached is indexed at once);
    /// a name already registered is an error.
    pub fn add_index(
        &self,
        name: &str,
        f: IndexFunc<K>,
    ) -> Result<(), super::indexer::IndexConflict> {
        self.inner.indexer.borrow_mut().add_index(name, f)
    }

    /// True once the first list has been cached and every handler told.
    pub fn has_synced(&self) -> bool {
        self.inner.synced.get()
    }

    /// The resourceVersion of the last list, event or bookmark.
    pub fn last_sync_resource_version(&self) -> Option<String> {
        self.inner.status.borrow().last_resource_version.clone()
    }

    /// Completes once [`SharedInformer::has_synced`].
    pub async fn wait_synced(&self) {
        if self.inner.synced.get() {
            return;
        }
        let (tx, rx) = oneshot::channel();
        self.inner.sync_waiters.borrow_mut().push(tx);
        let _ = rx.await;
    }

    /// The objects the cache holds as their last good copy, because the
    /// last list could not decode the server's copy (a CRD's schema
    /// changed, a conversion webhook answers badly): kept rather than
    /// deleted, since the server still has them, until a copy that decodes
    /// arrives or the server deletes them. As fresh as the cache; one
    /// reference count to read.
    pub fn stale(&self) -> Stale {
        self.inner.stale.borrow().clone()
    }

    /// Everything the X-ray page shows.
    pub fn snapshot(&self) -> InformerSnapshot {
        let reflector = self.inner.status.borrow().clone();
        InformerSnapshot {
            watch_restarts: reflector.watches.saturating_sub(1),
            relists: reflector.lists.saturating_sub(1),
            reflector,
            processor: self.inner.stats.borrow().clone(),
            objects: self.inner.indexer.borrow().len(),
            queued: self.inner.queue.borrow().len(),
            handlers: self.inner.handlers.borrow().len(),
            synced: self.inner.synced.get(),
            stale: self.inner.stale.borrow().clone(),
        }
    }

    /// The columns of a Table-format informer (empty until its first list).
    pub fn columns(&self) -> Vec<TableColumn> {
        self.inner.columns.borrow().clone()
    }

    /// The shared reflector status (updated as it runs).
    pub fn status(&self) -> Rc<RefCell<ReflectorStatus>> {
        self.inner.status.clone()
    }

    /// Runs until the future is dropped. Running one informer twice at once
    /// is a bug and panics.
    pub async fn run(&self) {
        assert!(
            !self.inner.running.replace(true),
            "an informer runs at most once at a time"
        );
        let guard = StopGuard(self.inner.clone());
        let inner = self.inner.clone();
        let errors_seen = Cell::new(0u64);
        let weak = Rc::downgrade(&self.inner);
        let mut reflector = Reflector::new(
            self.inner.client.clone(),
            self.inner.clock.clone(),
            self.inner.config.clone(),
            self.inner.store.clone(),
        )
        .sharing_status(self.inner.status.clone())
        .sharing_columns(self.inner.columns.clone())
        .on_status(move |s| {
            if s.errors != errors_seen.get() {
                errors_seen.set(s.errors);
                if let (Some(i), Some(msg)) = (weak.upgrade(), s.last_error.as_deref())
                    && let Some(f) = i.watch_error.borrow().as_ref()
                {
                    f(msg);
                }
            }
        });
        if let Some(r) = self.inner.reconnect.borrow().clone() {
            reflector = reflector.with_reconnect(r);
        }
        let processor = Self::process_loop(inner.clone());
        let resync = Self::resync_loop(inner);
        futures::future::join3(reflector.run(), processor, resync).await;
        drop(guard);
    }

    async fn process_loop(inner: Rc<Inner<K>>) {
        let wakeup = inner.queue.borrow().wakeup();
        loop {
            wakeup.wait().await;
            Self::drain(&inner);
        }
    }

    /// Pops and applies everything queued, then reports sync if reached.
    fn drain(inner: &Rc<Inner<K>>) {
        let started = inner.clock.now();
        let waiting = inner.queue.borrow().len();
        let mut popped = 0usize;
        loop {
            let batch = inner.queue.borrow_mut().pop_batch(256);
            if batch.is_empty() {
                break;
            }
            popped += batch.len();
            for unit in batch {
                Self::apply(inner, unit);
            }
        }
        {
            let mut stats = inner.stats.borrow_mut();
            stats.popped += popped as u64;
            stats.largest_batch = stats.largest_batch.max(popped);
            let took = inner.clock.now().saturating_sub(started);
            if waiting > 10 && took > Duration::from_millis(100) {
                stats.slow_turns += 1;
                stats.last_slow = Some(format!(
                    "applying {popped} queued changes took {} ms",
                    took.as_millis()
                ));
            }
        }
        if !inner.synced.get() && inner.queue.borrow().has_synced() {
            inner.synced.set(true);
            for tx in inner.sync_waiters.borrow_mut().drain(..) {
                let _ = tx.send(());
            }
        }
    }

    fn notify(inner: &Rc<Inner<K>>, n: &Notification<K>, only_resyncing: bool) {
        let targets: Vec<HandlerFn<K>> = {
            let handlers = inner.handlers.borrow();
            let resyncing = inner.resyncing.borrow();
            handlers
                .iter()
                .filter(|h| !only_resyncing || resyncing.contains(&h.id))
                .map(|h| h.f.clone())
                .collect()
        };
        inner.stats.borrow_mut().notifications += targets.len() as u64;
        for f in targets {
            (f.borrow_mut())(n);
        }
    }

    fn apply(inner: &Rc<Inner<K>>, unit: Popped<K>) {
        match unit {
            Popped::Deltas { key, deltas } => {
                for d in deltas {
                    Self::apply_delta(inner, &key, d.kind, d.object);
                }
            }
            Popped::Replace {
                mut objects,
                unreadable,
                ..
            } => {
                inner.stats.borrow_mut().replaces += 1;
                let initial = !inner.synced.get();
                // Handlers hear a relist as client-go's processReplacedAllInfo
                // tells it: the deletes first, then adds and updates in the
                // list's own order.
                let listed: Vec<Rc<K>> = objects.clone();
                let mut new_keys: HashSet<String> =
                    listed.iter().map(|o| object_key(o.as_ref())).collect();
                // What the list could not decode is still on the server: the
                // copy held stays, marked stale, and no handler hears of it.
                let (stale, kept) = Self::keep_unreadable(inner, &unreadable, &mut new_keys);
                objects.extend(kept);
                let old = inner.indexer.borrow_mut().replace(objects);
                if *inner.stale.borrow() != stale {
                    *inner.stale.borrow_mut() = stale;
                }
                let mut gone: Vec<(&String, &Rc<K>)> =
                    old.iter().filter(|(k, _)| !new_keys.contains(*k)).collect();
                gone.sort_by(|a, b| a.0.cmp(b.0));
                for (_, prev) in gone {
                    let n = Notification::Deleted {
                        object: prev.clone(),
                        final_state_unknown: true,
                    };
                    Self::notify(inner, &n, false);
                }
                let mut seen = HashSet::with_capacity(listed.len());
                for obj in listed {
                    let key = object_key(obj.as_ref());
                    if !seen.insert(key.clone()) {
                        continue;
                    }
                    // The object as the indexer now holds it (a duplicate
                    // key in the list keeps the last one).
                    let Some(obj) = inner.indexer.borrow().get(&key) else {
                        continue;
                    };
                    match old.get(&key) {
                        Some(prev) => {
                            let same = prev.meta().resource_version == obj.meta().resource_version;
                            let n = Notification::Updated {
                                old: prev.clone(),
                                new: obj,
                                resync: same,
                            };
                            Self::notify(inner, &n, same);
                        }
                        None => Self::notify(
                            inner,
                            &Notification::Added {
                                object: obj,
                                initial,
                            },
                            false,
                        ),
                    }
                }
            }
        }
    }

    /// The copies held for the keys a relist named but could not decode
    /// (and did not list otherwise), with the stale set they make; their
    /// keys join `listed`, so they are not taken for deletions.
    fn keep_unreadable(
        inner: &Rc<Inner<K>>,
        unreadable: &[Undecodable],
        listed: &mut HashSet<String>,
    ) -> (Stale, Vec<Rc<K>>) {
        let mut stale = Stale::default();
        let mut kept = Vec::new();
        let indexer = inner.indexer.borrow();
        for u in unreadable {
            if listed.contains(&u.key) {
                continue;
            }
            if let Some(held) = indexer.get(&u.key) {
                stale.mark(&u.key, &u.error);
                listed.insert(u.key.clone());
                kept.push(held);
            }
        }
        (stale, kept)
    }

    fn apply_delta(inner: &Rc<Inner<K>>, key: &str, kind: DeltaType, object: DeltaObject<K>) {
        match kind {
            DeltaType::Stale => {
                // Kept as it is; only marked, if there is a copy to keep.
                if let DeltaObject::Undecodable(u) = object
                    && inner.indexer.borrow().get(key).is_some()
                {
                    inner.stale.borrow_mut().mark(key, &u.error);
                }
            }
            DeltaType::Deleted => {
                inner.stale.borrow_mut().clear(key);
                let removed = inner.indexer.borrow_mut().remove(key);
                // Nothing held means no handler was ever told it existed.
                let Some(removed) = removed else { return };
                let (object, final_state_unknown) = match object {
                    DeltaObject::Object(o) => (o, false),
                    DeltaObject::Tombstone(t) => (t.last_known.unwrap_or(removed), true),
                    DeltaObject::Undecodable(_) => (removed, true),
                };
                Self::notify(
                    inner,
                    &Notification::Deleted {
                        object,
                        final_state_unknown,
                    },
                    false,
                );
            }
            _ => {
                let DeltaObject::Object(new) = object else {
                    return;
                };
                let old = inner.indexer.borrow_mut().put(new.clone());
                // A copy from the server clears a stale mark; a resync
                // re-delivers the very copy held, which does not.
                if !old.as_ref().is_some_and(|o| Rc::ptr_eq(o, &new)) {
                    inner.stale.borrow_mut().clear(key);
                }
                match old {
                    Some(old) => {
                        let resync = kind == DeltaType::Sync
                            || (kind == DeltaType::Replaced
                                && old.meta().resource_version == new.meta().resource_version);
                        let n = Notification::Updated { old, new, resync };
                        Self::notify(inner, &n, resync);
                    }
                    None => {
                        let initial = matches!(kind, DeltaType::Replaced | DeltaType::Sync)
                            && !inner.synced.get();
                        Self::notify(
                            inner,
                            &Notification::Added {
                                object: new,
                                initial,
                            },
                            false,
                        );
                    }
                }
            }
        }
    }

    /// Sleeps until the earliest handler's resync is due. Each handler's
    /// due time is fixed when it is added or resynced, so a handler coming
    /// or going only changes which deadline is next: it never restarts the
    /// wait of the others (client-go's resync check runs on its own timer).
    async fn resync_loop(inner: Rc<Inner<K>>) {
        loop {
            let next = inner
                .handlers
                .borrow()
                .iter()
                .filter(|h| h.resync.is_some())
                .map(|h| h.next_resync)
                .min();
            let changed = inner.handlers_changed.clone();
            match next {
                None => changed.wait().await,
                Some(at) if at <= inner.clock.now() => Self::resync_due(&inner),
                Some(at) => {
                    let sleep = inner.clock.sleep(at - inner.clock.now()).fuse();
                    let wait = changed.wait().fuse();
                    futures::pin_mut!(sleep, wait);
                    futures::select! {
                        () = sleep => Self::resync_due(&inner),
                        () = wait => {}
                    }
                }
            }
        }
    }

    fn resync_due(inner: &Rc<Inner<K>>) {
        let now = inner.clock.now();
        let mut due = HashSet::new();
        for h in inner.handlers.borrow_mut().iter_mut() {
            if let Some(p) = h.resync
                && h.next_resync <= now
            {
                due.insert(h.id);
                h.next_resync = now + p;
            }
        }
        if due.is_empty() {
            return;
        }
        *inner.resyncing.borrow_mut() = due;
        inner.queue.borrow_mut().resync();
    }
}

/// The shortest resync period a handler may ask for (client-go's
/// `minimumResyncPeriod`); shorter ones are raised to it.
pub const MINIMUM_RESYNC_PERIOD: Duration = Duration::from_secs(1);

/// Marks the informer stopped when its run future is dropped.
struct StopGuard<K>(Rc<Inner<K>>);

impl<K> Drop for StopGuard<K> {
    fn drop(&mut self) {
        self.0.running.set(false);
        self.0.status.borrow_mut().state = ReflectorState::Stopped;
    }
}
