//! client-go's in-order FIFO (`RealFIFO`): one entry per event in arrival order, a relist as one atomic entry, batch pops.

use std::collections::{HashSet, VecDeque};
use std::rc::Rc;

use kube_core::Resource;

use super::{
    Delta, DeltaObject, DeltaType, InformerQueue, KnownObjects, Popped, Transform, Wakeup,
};
use crate::cache::store::{ReflectorStore, object_key};
use crate::rest::list::Undecodable;

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

    fn transform(&self) -> Option<Transform<K>> {
        self.transform.clone()
    }

    fn replace_transformed(
        &mut self,
        objs: Vec<K>,
        resource_version: &str,
        unreadable: &[Undecodable],
    ) {
        let objects = objs.into_iter().map(Rc::new).collect();
        self.entries.push_back(Popped::Replace {
            objects,
            resource_version: resource_version.to_string(),
            unreadable: unreadable.to_vec(),
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
