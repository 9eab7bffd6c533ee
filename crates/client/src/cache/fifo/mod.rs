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
//!   final state was never seen; a key the list named but could not decode
//!   gets a [`DeltaType::Stale`] instead (the object is still there).
//! - [`RealFifo`], client-go's newer in-order queue: one entry per *event* in
//!   arrival order, a relist kept whole as one atomic entry (with the keys
//!   it could not decode), and batch pops.
//!
//! Each has its file, as in client-go: [`delta`] and [`real`]; the types
//! they share (deltas, pops, the consumer's trait, the wakeup) are here.
//!
//! Both keep "has synced" the client-go way: the items queued by the first
//! relist must all have been popped. Both notify a [`Wakeup`] whenever
//! something is queued, so an async consumer can sleep until there is work.
//!
//! # The two queues
//!
//! The queue between reflector and processor, one design a file as in client-go (`fifo/delta.rs`, `fifo/real.rs`; the shared deltas, pops and wakeup in `fifo/mod.rs`). `DeltaFifo` is
//! client-go's DeltaFIFO: per key every delta since the last pop (Added,
//! Updated, Deleted, Replaced, Sync), consecutive deletes collapsed (the
//! older kept unless it is a tombstone, `isDeletionDup`), a relist
//! queueing `Tombstone`s (client-go's `DeletedFinalStateUnknown`) for keys it
//! no longer lists (a key it named but could not decode gets a `Stale` delta
//! instead: kept and marked, not deleted; not client-go's), resync
//! re-queueing known objects unless something is
//! queued for them. `RealFifo` is client-go's newer in-order queue: one entry
//! per event in arrival order, a relist kept whole as one entry (with the
//! keys it could not decode), batch pops;
//! its resync skips keys that have an event queued (and everything while a
//! relist is queued). Handlers hear a relist as `processReplacedAllInfo`
//! tells it: deletes first, then adds and updates in the list's order.
//! Both report has-synced the client-go way (everything the first relist queued
//! has been popped). The in-order queue is the default: ingest speed was a wash
//! in `make bench` (docs/benchmarks.md), it holds a little less per object,
//! and it applies a relist as one atomic swap.

use std::cell::RefCell;
use std::rc::Rc;
use std::task::{Poll, Waker};

use super::store::ReflectorStore;
use crate::rest::list::Undecodable;

pub mod delta;
pub mod real;

pub use delta::DeltaFifo;
pub use real::RealFifo;

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
    /// Named by a relist that could not decode it: the object is still
    /// there, so the copy held is kept and marked stale, not deleted (its
    /// object is [`DeltaObject::Undecodable`]). Not client-go's: see
    /// [`crate::cache::stale`].
    Stale,
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
    /// The server's copy, which a relist could not decode: its key and why
    /// (a [`DeltaType::Stale`] delta's).
    Undecodable(Undecodable),
}

impl<K> Clone for DeltaObject<K> {
    fn clone(&self) -> Self {
        match self {
            DeltaObject::Object(o) => DeltaObject::Object(o.clone()),
            DeltaObject::Tombstone(t) => DeltaObject::Tombstone(t.clone()),
            DeltaObject::Undecodable(u) => DeltaObject::Undecodable(u.clone()),
        }
    }
}

impl<K> DeltaObject<K> {
    /// The object, or the tombstone's last known state; none for an
    /// undecodable copy.
    pub fn object(&self) -> Option<&Rc<K>> {
        match self {
            DeltaObject::Object(o) => Some(o),
            DeltaObject::Tombstone(t) => t.last_known.as_ref(),
            DeltaObject::Undecodable(_) => None,
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
        /// The items the list held that did not decode: the consumer keeps
        /// what it holds for their keys, marked stale, instead of deleting it.
        unreadable: Vec<Undecodable>,
    },
}

pub use super::store::Transform;

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
