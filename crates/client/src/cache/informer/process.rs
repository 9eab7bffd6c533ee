//! The processor: pops the queue, applies each change to the indexer, tells every handler.

use std::collections::HashSet;
use std::rc::Rc;
use std::time::Duration;

use kube_core::Resource;
use serde::de::DeserializeOwned;

use super::super::fifo::{DeltaObject, DeltaType, Popped};
use super::super::stale::Stale;
use super::super::store::object_key;
use super::{HandlerFn, Inner, Notification, SharedInformer};
use crate::rest::list::Undecodable;

impl<K> SharedInformer<K>
where
    K: Resource + DeserializeOwned + Clone + 'static,
{
    pub(super) async fn process_loop(inner: Rc<Inner<K>>) {
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
}
