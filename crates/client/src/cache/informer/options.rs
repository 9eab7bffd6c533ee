//! How an informer is built: the queue between reflector and processor, and the transforms.

use std::cell::RefCell;
use std::rc::Rc;

use kube_core::Resource;

use super::super::fifo::{DeltaFifo, KnownObjects, RealFifo, Transform};
use super::super::indexer::IndexFunc;
use super::super::reflector::ReflectorConfig;
use super::seed::SeedLoader;
use super::{SharedQueue, SharedStore};

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
    /// Where a saved state to start from is found ([`super::seed`]);
    /// None starts with a list.
    pub seed: Option<SeedLoader<K>>,
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
            seed: None,
        }
    }

    /// Starts from the saved state `load` finds, if any, with a watch from
    /// its version instead of a list ([`super::seed`]).
    pub fn seeded_from(mut self, load: SeedLoader<K>) -> Self {
        self.seed = Some(load);
        self
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
pub(super) fn secrets_redacted<K: Resource + 'static>(
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
