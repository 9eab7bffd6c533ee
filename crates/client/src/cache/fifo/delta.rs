//! client-go's `DeltaFIFO`: one entry per key, holding every change since it was last popped.

use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

use kube_core::Resource;

use super::{
    Delta, DeltaObject, DeltaType, InformerQueue, KnownObjects, Popped, Tombstone, Transform,
    Wakeup,
};
use crate::cache::store::{ReflectorStore, object_key};
use crate::rest::list::Undecodable;

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

    /// The newest state queued for `key`, if any (a stale mark is none).
    fn newest_queued(&self, key: &str) -> Option<Rc<K>> {
        self.items
            .get(key)
            .and_then(|d| d.iter().rev().find_map(|d| d.object.object().cloned()))
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

    fn transform(&self) -> Option<Transform<K>> {
        self.transform.clone()
    }

    fn replace_transformed(
        &mut self,
        objs: Vec<K>,
        _resource_version: &str,
        unreadable: &[Undecodable],
    ) {
        let kind = if self.emit_replaced {
            DeltaType::Replaced
        } else {
            DeltaType::Sync
        };
        let mut keys = HashSet::with_capacity(objs.len());
        let listed = objs.len();
        for obj in objs {
            let key = object_key(&obj);
            keys.insert(key.clone());
            self.queue_action(kind, DeltaObject::Object(Rc::new(obj)), key);
        }
        // Everything held or queued that the list no longer has was deleted
        // while nobody watched: queue a tombstone with the last state known.
        // A key the list named but could not decode is still there: keep
        // what is held for it, marked stale.
        let unreadable: HashMap<&str, &Undecodable> =
            unreadable.iter().map(|u| (u.key.as_str(), u)).collect();
        let mut candidates: Vec<String> = self.queue.iter().cloned().collect();
        if let Some(known) = &self.known {
            candidates.extend(known.known_keys());
        }
        let mut seen = HashSet::new();
        // Keys queued for something the list does not have (a tombstone
        // or a stale mark), for the initial population.
        let mut unlisted = 0;
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
            if let Some(u) = unreadable.get(key.as_str()) {
                let object = DeltaObject::Undecodable((*u).clone());
                self.queue_action(DeltaType::Stale, object, key);
                unlisted += 1;
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
            unlisted += 1;
        }
        if !self.populated {
            self.populated = true;
            self.initial_population = listed + unlisted;
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
