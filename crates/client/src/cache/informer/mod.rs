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
//! cache with either queue. With the in-order queue ([`RealFifo`](super::RealFifo), the
//! default) a relist is also one atomic swap of the indexer.
//!
//! A relist that names an object it could not decode does not delete it:
//! the cache keeps the last good copy and [`SharedInformer::stale`] names
//! it, with why, until a copy that decodes arrives or the server deletes
//! it (see [`super::stale`]). Handlers hear nothing of it meanwhile.
//!
//! # The shared informer
//!
//! `SharedInformer`: reflector, processor and resync timer in
//! one future. Handlers get `Added {initial}`, `Updated {old, new, resync}` and
//! `Deleted {final_state_unknown}`, synchronously and after the indexer holds
//! the change; one added later first receives what is cached; per-handler
//! resync goes only to the handlers that are due (a period of zero is none,
//! one under a second is raised to client-go's `minimumResyncPeriod`; each
//! handler's due time is fixed when it is added, so adding another never
//! restarts the wait); handlers can be removed; a
//! watch-error hook; transforms (managedFields dropped by default; another
//! one is named, `InformerOptions::with_transform`, and the name is part of
//! the factory's key, so a trimmed cache is never shared with a view that
//! wants whole objects); the
//! processor drains the queue in one turn, so no reader ever sees a half-applied
//! relist. `stale()` names the objects held as their last good copy (the
//! processor writes it as it applies each change, so it agrees with the
//! indexer; an `Arc` copied on write, so reading it is one reference
//! count). `snapshot()` is what the X-ray page shows: state, resourceVersion,
//! objects, queue depth, events by type, lists and relists, watch restarts,
//! streaming lists and fallbacks, last error, last event time, slow turns,
//! the stale objects.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::{Rc, Weak};
use std::time::Duration;

use futures::channel::oneshot;
use kube_core::Resource;
use serde::de::DeserializeOwned;

use super::fifo::{InformerQueue, KnownObjects, Wakeup};
use super::indexer::{IndexFunc, Indexer};
use super::lister::Lister;
use super::reflector::{Reflector, ReflectorConfig, ReflectorState, ReflectorStatus};
use super::stale::Stale;
use super::store::{ReflectorStore, object_key};
use crate::clock::{Clock, Timestamp};
use crate::reconnect::Reconnect;
use crate::rest::RestClient;
use crate::rest::table::TableColumn;

mod options;
mod process;
mod resync;
mod seed;
mod snapshot;

pub use options::{
    DROP_MANAGED_FIELDS, InformerOptions, QueueBuilder, QueueKind, delta_fifo_queue,
    drop_managed_fields, in_order_queue, redact_secret_metadata,
};
pub use seed::{Checkpoint, Seed, SeedLoader};
pub use snapshot::{InformerSnapshot, ProcessorStats};

use options::secrets_redacted;

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
    /// Taken by the first run: where a saved state is found.
    seed: RefCell<Option<SeedLoader<K>>>,
    /// Whether a seed was planted, once the loader has answered (at once
    /// for an informer without one).
    seeded: Cell<Option<bool>>,
    seed_waiters: RefCell<Vec<oneshot::Sender<bool>>>,
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
                seeded: Cell::new(options.seed.is_none().then_some(false)),
                seed: RefCell::new(options.seed),
                seed_waiters: RefCell::new(Vec::new()),
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

    /// The cache and the version it is complete up to, when they agree and
    /// the server has confirmed them: synced, nothing queued, nothing held
    /// as a stale copy or left out as unreadable, not still resuming. What
    /// may be saved as a seed.
    pub fn checkpoint(&self) -> Option<Checkpoint<K>> {
        let status = self.inner.status.borrow();
        let rv = status.last_resource_version.clone()?;
        // Not with objects the last list could not read: the cache lacks
        // them, and a watch resumed from this version would never bring
        // them (nor name them) again.
        let consistent = self.inner.synced.get()
            && !status.resuming
            && status.undecodable.is_empty()
            && self.inner.queue.borrow().is_empty()
            && self.inner.stale.borrow().is_empty();
        consistent.then(|| Checkpoint {
            items: self.inner.indexer.borrow().list(),
            resource_version: rv,
            columns: self.inner.columns.borrow().clone(),
        })
    }

    /// Completes once the informer knows whether it starts from a saved
    /// state: true when it does (its cache is that state, and no list is
    /// coming while the state's version is valid), false when it lists.
    /// At once for an informer made without a seed loader.
    pub async fn wait_seeded(&self) -> bool {
        if let Some(planted) = self.inner.seeded.get() {
            return planted;
        }
        let (tx, rx) = oneshot::channel();
        self.inner.seed_waiters.borrow_mut().push(tx);
        rx.await.unwrap_or(false)
    }

    fn seed_answered(&self, planted: bool) {
        self.inner.seeded.set(Some(planted));
        for tx in self.inner.seed_waiters.borrow_mut().drain(..) {
            let _ = tx.send(planted);
        }
    }

    /// Puts a saved state in the cache as if listed at its version, so the
    /// reflector starts with a watch from it. Only before the first list.
    fn plant(&self, seed: Seed<K>) -> bool {
        if self.inner.synced.get() || self.inner.status.borrow().last_resource_version.is_some() {
            return false;
        }
        *self.inner.columns.borrow_mut() = seed.columns;
        self.inner
            .store
            .borrow_mut()
            .replace(seed.items, &seed.resource_version);
        let mut s = self.inner.status.borrow_mut();
        s.last_resource_version = Some(seed.resource_version);
        s.resuming = true;
        true
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
        let load = self.inner.seed.borrow_mut().take();
        if let Some(load) = load {
            let planted = match load().await {
                Some(seed) => self.plant(seed),
                None => false,
            };
            self.seed_answered(planted);
        }
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
