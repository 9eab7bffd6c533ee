//! The informer factory: one informer — one watch — per (resource, namespace,
//! selectors, format), however many views ask for it.
//!
//! Views hold an [`InformerRef`]; clones share the informer. When the last
//! reference goes, the informer stops and its watch closes, so a browser's
//! six connections per origin are spent only on what is on screen.
//!
//! Unlike client-go, where informers requested after `Start` wait for the
//! next `Start`, informers requested after [`InformerFactory::start`] start at
//! once: a dashboard opens new views all the time.
//!
//! # The factory
//!
//! `InformerFactory`: one informer per (path, label selector,
//! field selector, format, Rust type, transform); views hold `InformerRef`s and the
//! informer stops (its watch closes) when the last one drops; `start`,
//! `wait_for_cache_sync`, `shutdown`, `snapshots`. Informers asked for after
//! `start` start at once.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

use futures::future::{AbortHandle, LocalBoxFuture, abortable};
use kube_core::Resource;
use serde::de::DeserializeOwned;

use super::informer::{DROP_MANAGED_FIELDS, InformerOptions, InformerSnapshot, SharedInformer};
use crate::clock::Clock;
use crate::reconnect::Reconnect;
use crate::rest::RestClient;

/// Runs a future to completion in the background (the browser's
/// `spawn_local`, a test's local executor).
pub type Spawner = Rc<dyn Fn(LocalBoxFuture<'static, ()>)>;

/// How objects are fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// Whole objects.
    Full,
    /// `PartialObjectMetadata` only.
    Metadata,
    /// Server-side Table rows (kubectl's columns).
    Table,
}

/// What makes two informers the same informer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InformerKey {
    /// Collection path (its namespace, if any, is part of it).
    pub path: String,
    /// Label selector.
    pub label_selector: Option<String>,
    /// Field selector.
    pub field_selector: Option<String>,
    /// Whole objects or metadata.
    pub format: Format,
    /// The Rust type objects decode into (typed and dynamic caches differ).
    pub type_name: &'static str,
    /// The transform objects pass before the cache, by name (the default
    /// one drops managedFields): a cache that keeps them whole, or trims
    /// them another way, is another cache, or a view asking for
    /// managedFields (or a whole pod) could get a cache without them.
    pub transform: Option<&'static str>,
}

impl std::fmt::Display for InformerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.path)?;
        if let Some(l) = &self.label_selector {
            write!(f, " l={l}")?;
        }
        if let Some(s) = &self.field_selector {
            write!(f, " f={s}")?;
        }
        match self.format {
            Format::Metadata => f.write_str(" (metadata)")?,
            Format::Table => f.write_str(" (table)")?,
            Format::Full => {}
        }
        match self.transform {
            None => f.write_str(" (as sent)")?,
            Some(DROP_MANAGED_FIELDS) => {}
            Some(name) => write!(f, " ({name})")?,
        }
        Ok(())
    }
}

struct Entry {
    informer: Rc<dyn Any>,
    refs: usize,
    /// Times its last holder has gone: a linger stops it only if no view
    /// came and went since that linger began.
    left: u64,
    abort: Option<AbortHandle>,
    start: Box<dyn Fn() -> LocalBoxFuture<'static, ()>>,
    snapshot: Box<dyn Fn() -> InformerSnapshot>,
    wait: Box<dyn Fn() -> LocalBoxFuture<'static, ()>>,
}

struct FactoryInner {
    client: RestClient,
    clock: Rc<dyn Clock>,
    spawner: Spawner,
    reconnect: Option<Reconnect>,
    entries: RefCell<BTreeMap<InformerKey, Entry>>,
    started: Cell<bool>,
    stopped: Cell<u64>,
    linger: RefCell<Linger>,
}

/// How long an informer nobody holds stays up, by key.
type Linger = Box<dyn Fn(&InformerKey) -> std::time::Duration>;

impl FactoryInner {
    /// Stops and forgets the informer under `key` if nobody holds it (and,
    /// with `left`, if its last holder went that many departures ago: a
    /// linger that began before a view came back and went again is stale).
    fn stop_if_unused(&self, key: &InformerKey, left: Option<u64>) {
        let removed = {
            let mut entries = self.entries.borrow_mut();
            match entries.get(key) {
                Some(e) if e.refs == 0 && left.is_none_or(|l| l == e.left) => entries.remove(key),
                _ => None,
            }
        };
        if let Some(e) = removed {
            if let Some(h) = e.abort {
                h.abort();
            }
            self.stopped.set(self.stopped.get() + 1);
        }
    }

    fn launch(&self, entry: &mut Entry) {
        if entry.abort.is_some() {
            return;
        }
        let (fut, handle) = abortable((entry.start)());
        entry.abort = Some(handle);
        (self.spawner)(Box::pin(async move {
            let _ = fut.await;
        }));
    }
}

/// Shares informers between views.
#[derive(Clone)]
pub struct InformerFactory {
    inner: Rc<FactoryInner>,
}

/// A view's hold on a shared informer; the informer stops when the last one drops.
pub struct InformerRef<K> {
    informer: SharedInformer<K>,
    key: InformerKey,
    factory: Weak<FactoryInner>,
}

impl<K> std::ops::Deref for InformerRef<K> {
    type Target = SharedInformer<K>;
    fn deref(&self) -> &SharedInformer<K> {
        &self.informer
    }
}

impl<K> InformerRef<K> {
    /// The key this informer is shared under.
    pub fn key(&self) -> &InformerKey {
        &self.key
    }
}

impl<K> Clone for InformerRef<K> {
    fn clone(&self) -> Self {
        if let Some(f) = self.factory.upgrade()
            && let Some(e) = f.entries.borrow_mut().get_mut(&self.key)
        {
            e.refs += 1;
        }
        Self {
            informer: self.informer.clone(),
            key: self.key.clone(),
            factory: self.factory.clone(),
        }
    }
}

impl<K> Drop for InformerRef<K> {
    fn drop(&mut self) {
        let Some(f) = self.factory.upgrade() else {
            return;
        };
        let left = match f.entries.borrow_mut().get_mut(&self.key) {
            Some(e) => {
                e.refs = e.refs.saturating_sub(1);
                if e.refs == 0 {
                    e.left += 1;
                }
                (e.refs == 0).then_some(e.left)
            }
            None => None,
        };
        let Some(left) = left else {
            return;
        };
        let linger = (f.linger.borrow())(&self.key);
        if linger.is_zero() {
            f.stop_if_unused(&self.key, None);
            return;
        }
        // Kept warm for a while: a view opened again soon finds its cache.
        let sleep = f.clock.sleep(linger);
        let (weak, key) = (self.factory.clone(), self.key.clone());
        (f.spawner)(Box::pin(async move {
            sleep.await;
            if let Some(f) = weak.upgrade() {
                f.stop_if_unused(&key, Some(left));
            }
        }));
    }
}

/// One row of [`InformerFactory::snapshots`].
#[derive(Debug, Clone, PartialEq)]
pub struct FactoryEntry {
    /// What the informer watches.
    pub key: InformerKey,
    /// Views holding it.
    pub refs: usize,
    /// True while its task runs.
    pub running: bool,
    /// Its state and counters.
    pub snapshot: InformerSnapshot,
}

impl InformerFactory {
    /// A factory whose informers use `client` and `clock` and run on `spawner`.
    pub fn new(client: RestClient, clock: Rc<dyn Clock>, spawner: Spawner) -> Self {
        Self::build(client, clock, spawner, None)
    }

    /// Like [`InformerFactory::new`], with reflectors retrying at once on `reconnect`.
    pub fn with_reconnect(
        client: RestClient,
        clock: Rc<dyn Clock>,
        spawner: Spawner,
        reconnect: Reconnect,
    ) -> Self {
        Self::build(client, clock, spawner, Some(reconnect))
    }

    fn build(
        client: RestClient,
        clock: Rc<dyn Clock>,
        spawner: Spawner,
        reconnect: Option<Reconnect>,
    ) -> Self {
        Self {
            inner: Rc::new(FactoryInner {
                client,
                clock,
                spawner,
                reconnect,
                entries: RefCell::new(BTreeMap::new()),
                started: Cell::new(false),
                stopped: Cell::new(0),
                linger: RefCell::new(Box::new(|_| std::time::Duration::ZERO)),
            }),
        }
    }

    /// Keeps an informer nobody holds running for `linger(key)` before
    /// stopping it (zero, the default, stops it at once as client-go would).
    /// A dashboard uses this so that going back to a view is instant — for
    /// the informers whose watch is cheap to keep.
    pub fn set_linger(&self, linger: impl Fn(&InformerKey) -> std::time::Duration + 'static) {
        *self.inner.linger.borrow_mut() = Box::new(linger);
    }

    /// The key `options` would be shared under.
    pub fn key_of<K>(options: &InformerOptions<K>) -> InformerKey {
        let r = &options.reflector;
        InformerKey {
            path: r.url_path.clone(),
            label_selector: r.label_selector.clone().filter(|s| !s.is_empty()),
            field_selector: r.field_selector.clone().filter(|s| !s.is_empty()),
            format: if r.table {
                Format::Table
            } else if r.metadata_only {
                Format::Metadata
            } else {
                Format::Full
            },
            type_name: std::any::type_name::<K>(),
            transform: options.transform.as_ref().map(|_| options.transform_name),
        }
    }

    /// The informer for `options`, created on first request. Options other
    /// than the key (the transform itself, indexes, queue) come from the
    /// first request; whether there is a transform is part of the key.
    pub fn informer<K>(&self, options: InformerOptions<K>) -> InformerRef<K>
    where
        K: Resource + DeserializeOwned + Clone + 'static,
    {
        let key = Self::key_of(&options);
        let mut entries = self.inner.entries.borrow_mut();
        if let Some(e) = entries.get_mut(&key) {
            e.refs += 1;
            let informer = e
                .informer
                .clone()
                .downcast::<SharedInformer<K>>()
                .map(|rc| (*rc).clone())
                .unwrap_or_else(|_| unreachable!("the key includes the type"));
            return InformerRef {
                informer,
                key,
                factory: Rc::downgrade(&self.inner),
            };
        }
        let informer =
            SharedInformer::new(self.inner.client.clone(), self.inner.clock.clone(), options);
        if let Some(r) = &self.inner.reconnect {
            informer.set_reconnect(r.clone());
        }
        let (a, b, c) = (informer.clone(), informer.clone(), informer.clone());
        let mut entry = Entry {
            informer: Rc::new(informer.clone()),
            refs: 1,
            left: 0,
            abort: None,
            start: Box::new(move || {
                let a = a.clone();
                Box::pin(async move { a.run().await })
            }),
            snapshot: Box::new(move || b.snapshot()),
            wait: Box::new(move || {
                let c = c.clone();
                Box::pin(async move { c.wait_synced().await })
            }),
        };
        if self.inner.started.get() {
            self.inner.launch(&mut entry);
        }
        entries.insert(key.clone(), entry);
        InformerRef {
            informer,
            key,
            factory: Rc::downgrade(&self.inner),
        }
    }

    /// Starts every informer requested so far, and every later one as it is requested.
    pub fn start(&self) {
        self.inner.started.set(true);
        for e in self.inner.entries.borrow_mut().values_mut() {
            self.inner.launch(e);
        }
    }

    /// Completes when every started informer has synced.
    pub async fn wait_for_cache_sync(&self) {
        let waits: Vec<LocalBoxFuture<'static, ()>> = self
            .inner
            .entries
            .borrow()
            .values()
            .filter(|e| e.abort.is_some())
            .map(|e| (e.wait)())
            .collect();
        futures::future::join_all(waits).await;
    }

    /// Stops every informer; later requests start nothing until [`InformerFactory::start`].
    pub fn shutdown(&self) {
        self.inner.started.set(false);
        for e in self.inner.entries.borrow_mut().values_mut() {
            if let Some(h) = e.abort.take() {
                h.abort();
            }
        }
    }

    /// Informers held by at least one view.
    pub fn len(&self) -> usize {
        self.inner.entries.borrow().len()
    }

    /// True when no informer is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Informers stopped because no view needed them any more.
    pub fn stopped_count(&self) -> u64 {
        self.inner.stopped.get()
    }

    /// Every informer with its key, references and counters (the X-ray page).
    pub fn snapshots(&self) -> Vec<FactoryEntry> {
        self.inner
            .entries
            .borrow()
            .iter()
            .map(|(k, e)| FactoryEntry {
                key: k.clone(),
                refs: e.refs,
                running: e.abort.is_some(),
                snapshot: (e.snapshot)(),
            })
            .collect()
    }
}
