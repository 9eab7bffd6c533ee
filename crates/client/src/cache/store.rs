//! A keyed store of shared, immutable objects that reports every change to its listeners.
//!
//! One writer (the reflector) and many cheap readers: readers get `Rc<K>`
//! handles to objects that are never mutated in place. A relist swaps the
//! whole content in one call, reporting the difference (adds, updates and the
//! deletes the watch missed), so a listener never loses a delete and never
//! sees a half-synced store. An object the list named but could not decode
//! is not deleted: its last good copy stays, marked stale ([`super::stale`]).
//!
//! # The store
//!
//! `Store<K>` (`cache/store.rs`) is the single-consumer shortcut (the app
//! uses shared informers only): it keeps `Rc<K>` by `namespace/name`. Objects are never changed in
//! place, so a reader holding an `Rc` keeps a consistent snapshot. A relist swaps
//! in the new content first and then reports the difference (adds, updates and
//! the deletes the watch missed) to listeners, so a listener never loses a delete
//! and never sees a half-synced store. Reads are as fresh as the last event the
//! watch delivered.

use std::collections::HashMap;
use std::rc::Rc;

use kube_core::Resource;

use super::stale::Stale;
use crate::rest::list::Undecodable;

/// Applied to every object before it is kept: e.g. drop `managedFields`.
pub type Transform<K> = Rc<dyn Fn(K) -> K>;

/// What the reflector needs from a store: add, update, delete and replace.
pub trait ReflectorStore<K> {
    /// An object was created (or seen for the first time).
    fn add(&mut self, obj: K);
    /// An object changed.
    fn update(&mut self, obj: K);
    /// An object was deleted; `obj` is its last known state.
    fn delete(&mut self, obj: K);
    /// A list replaced everything: `objs` is the complete new content,
    /// each object put through [`ReflectorStore::transform`] here.
    fn replace(&mut self, objs: Vec<K>, resource_version: &str) {
        let objs = match self.transform() {
            Some(t) => objs.into_iter().map(|o| t(o)).collect(),
            None => objs,
        };
        self.replace_transformed(objs, resource_version, &[]);
    }

    /// The transform this store puts each object through before keeping
    /// it, if any (client-go's `TransformFunc`). A reflector assembling a
    /// paged or streamed list applies it to each item as it is decoded and
    /// hands the whole to [`ReflectorStore::replace_transformed`], so a
    /// long list never holds every untrimmed object at once.
    fn transform(&self) -> Option<Transform<K>> {
        None
    }

    /// [`ReflectorStore::replace`] with objects already through
    /// [`ReflectorStore::transform`], from a list that also held the
    /// `unreadable` items, which did not decode. Those the list does not
    /// say are gone: what the store holds for their keys is kept, as the
    /// last good copy, and marked stale ([`super::stale`]), not deleted.
    fn replace_transformed(
        &mut self,
        objs: Vec<K>,
        resource_version: &str,
        unreadable: &[Undecodable],
    );
}

/// A change reported to store listeners.
#[derive(Debug)]
pub enum Change<K> {
    /// A new object.
    Added(Rc<K>),
    /// An object changed from `old` to `new`.
    Updated {
        /// The state before the change.
        old: Rc<K>,
        /// The state after the change.
        new: Rc<K>,
    },
    /// An object went away; this is its last known state.
    Deleted(Rc<K>),
    /// A relist finished; the changes it implied were reported just before.
    Replaced,
}

/// The store key of an object: `namespace/name`, or `name` when cluster-scoped.
pub fn object_key<K: Resource>(obj: &K) -> String {
    let meta = obj.meta();
    let name = meta.name.as_deref().unwrap_or_default();
    match meta.namespace.as_deref() {
        // Built by hand, not `format!`: every object of every list and
        // event comes through here, several times (150,000 pods spent
        // ~0.1 s in the formatter's padding).
        Some(ns) if !ns.is_empty() => {
            let mut key = String::with_capacity(ns.len() + 1 + name.len());
            key.push_str(ns);
            key.push('/');
            key.push_str(name);
            key
        }
        _ => name.to_string(),
    }
}

type Listener<K> = Box<dyn FnMut(&Change<K>)>;

/// Objects by key, with change listeners.
pub struct Store<K> {
    /// Current objects by [`object_key`]; values are never mutated in place.
    items: HashMap<String, Rc<K>>,
    /// The resourceVersion of the last replace, if any.
    list_resource_version: Option<String>,
    /// The keys of `items` held as their last good copy: the last list
    /// could not decode the server's copy. Every key here is in `items`.
    stale: Stale,
    listeners: Vec<Listener<K>>,
}

impl<K> Default for Store<K> {
    fn default() -> Self {
        Self {
            items: HashMap::new(),
            list_resource_version: None,
            stale: Stale::default(),
            listeners: Vec::new(),
        }
    }
}

impl<K> std::fmt::Debug for Store<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("len", &self.items.len())
            .field("list_resource_version", &self.list_resource_version)
            .finish_non_exhaustive()
    }
}

impl<K: Resource> Store<K> {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls `listener` on every change from now on.
    pub fn subscribe(&mut self, listener: impl FnMut(&Change<K>) + 'static) {
        self.listeners.push(Box::new(listener));
    }

    /// The object stored under `key`.
    pub fn get(&self, key: &str) -> Option<Rc<K>> {
        self.items.get(key).cloned()
    }

    /// All objects, in no particular order.
    pub fn list(&self) -> Vec<Rc<K>> {
        self.items.values().cloned().collect()
    }

    /// All keys, in no particular order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.items.keys().map(String::as_str)
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the store holds nothing.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The resourceVersion of the last complete list.
    pub fn list_resource_version(&self) -> Option<&str> {
        self.list_resource_version.as_deref()
    }

    /// The objects held as their last good copy, because the server's copy
    /// no longer decodes.
    pub fn stale(&self) -> Stale {
        self.stale.clone()
    }

    fn notify(&mut self, change: Change<K>) {
        for l in &mut self.listeners {
            l(&change);
        }
    }

    fn put(&mut self, obj: K) {
        let key = object_key(&obj);
        self.stale.clear(&key);
        let new = Rc::new(obj);
        match self.items.insert(key, new.clone()) {
            Some(old) => self.notify(Change::Updated { old, new }),
            None => self.notify(Change::Added(new)),
        }
    }
}

impl<K: Resource> ReflectorStore<K> for Store<K> {
    fn add(&mut self, obj: K) {
        self.put(obj);
    }

    fn update(&mut self, obj: K) {
        self.put(obj);
    }

    fn delete(&mut self, obj: K) {
        let key = object_key(&obj);
        self.stale.clear(&key);
        let last = self.items.remove(&key).unwrap_or_else(|| Rc::new(obj));
        self.notify(Change::Deleted(last));
    }

    fn replace_transformed(
        &mut self,
        objs: Vec<K>,
        resource_version: &str,
        unreadable: &[Undecodable],
    ) {
        let mut next: HashMap<String, Rc<K>> = objs
            .into_iter()
            .map(|o| (object_key(&o), Rc::new(o)))
            .collect();
        // What the list could not read is not gone: the copy held stays
        // (the same `Rc`, so no change is reported for it), marked stale.
        let mut stale = Stale::default();
        for u in unreadable {
            if next.contains_key(&u.key) {
                continue;
            }
            if let Some(held) = self.items.get(&u.key) {
                next.insert(u.key.clone(), held.clone());
                stale.mark(&u.key, &u.error);
            }
        }
        if stale != self.stale {
            self.stale = stale;
        }
        // Swap first, so listeners only ever see the complete new content.
        let old = std::mem::replace(&mut self.items, next);
        let mut changes = Vec::new();
        for (key, old_obj) in &old {
            match self.items.get(key) {
                Some(new_obj)
                    if old_obj.meta().resource_version != new_obj.meta().resource_version =>
                {
                    changes.push(Change::Updated {
                        old: old_obj.clone(),
                        new: new_obj.clone(),
                    });
                }
                Some(_) => {}
                None => changes.push(Change::Deleted(old_obj.clone())),
            }
        }
        for (key, new_obj) in &self.items {
            if !old.contains_key(key) {
                changes.push(Change::Added(new_obj.clone()));
            }
        }
        self.list_resource_version = Some(resource_version.to_string());
        for c in changes {
            self.notify(c);
        }
        self.notify(Change::Replaced);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use std::cell::RefCell;

    fn cm(ns: &str, name: &str, rv: &str) -> ConfigMap {
        let mut c = ConfigMap::default();
        c.metadata.namespace = Some(ns.into());
        c.metadata.name = Some(name.into());
        c.metadata.resource_version = Some(rv.into());
        c
    }

    fn recording(store: &mut Store<ConfigMap>) -> Rc<RefCell<Vec<String>>> {
        let log = Rc::new(RefCell::new(Vec::new()));
        let l = log.clone();
        store.subscribe(move |c| {
            let line = match c {
                Change::Added(o) => format!("add {}", object_key(o.as_ref())),
                Change::Updated { old, new } => format!(
                    "update {} {}->{}",
                    object_key(new.as_ref()),
                    old.metadata.resource_version.as_deref().unwrap_or(""),
                    new.metadata.resource_version.as_deref().unwrap_or("")
                ),
                Change::Deleted(o) => format!("delete {}", object_key(o.as_ref())),
                Change::Replaced => "replaced".into(),
            };
            l.borrow_mut().push(line);
        });
        log
    }

    #[test]
    fn keys_are_namespace_slash_name() {
        assert_eq!(object_key(&cm("ns", "a", "1")), "ns/a");
        let mut n = k8s_openapi::api::core::v1::Namespace::default();
        n.metadata.name = Some("kube-system".into());
        assert_eq!(object_key(&n), "kube-system");
    }

    #[test]
    fn add_update_delete_are_reported_with_old_and_new() {
        let mut s = Store::new();
        let log = recording(&mut s);
        s.add(cm("ns", "a", "1"));
        s.update(cm("ns", "a", "2"));
        s.delete(cm("ns", "a", "2"));
        assert!(s.is_empty());
        assert_eq!(
            *log.borrow(),
            ["add ns/a", "update ns/a 1->2", "delete ns/a"]
        );
    }

    #[test]
    fn replace_reports_the_difference_including_missed_deletes() {
        let mut s = Store::new();
        s.add(cm("ns", "keep", "1"));
        s.add(cm("ns", "change", "1"));
        s.add(cm("ns", "gone", "1"));
        let log = recording(&mut s);
        s.replace(
            vec![
                cm("ns", "keep", "1"),
                cm("ns", "change", "5"),
                cm("ns", "new", "6"),
            ],
            "7",
        );
        let mut got = log.borrow().clone();
        assert_eq!(got.pop().as_deref(), Some("replaced"));
        got.sort();
        assert_eq!(
            got,
            ["add ns/new", "delete ns/gone", "update ns/change 1->5"]
        );
        assert_eq!(s.len(), 3);
        assert_eq!(s.list_resource_version(), Some("7"));
        assert!(s.get("ns/gone").is_none());
    }

    #[test]
    fn replace_keeps_what_the_list_could_not_read_and_marks_it_stale() {
        let mut s = Store::new();
        s.add(cm("ns", "kept", "1"));
        s.add(cm("ns", "gone", "2"));
        let log = recording(&mut s);
        let why = |name: &str| Undecodable {
            key: format!("ns/{name}"),
            error: "invalid type".into(),
        };
        s.replace_transformed(vec![], "7", &[why("kept"), why("never")]);
        assert_eq!(*log.borrow(), ["delete ns/gone", "replaced"]);
        assert_eq!(
            s.get("ns/kept")
                .and_then(|o| o.metadata.resource_version.clone()),
            Some("1".into())
        );
        assert_eq!(s.stale().get("ns/kept"), Some("invalid type"));
        assert!(!s.stale().contains("ns/never") && s.get("ns/never").is_none());
        // A copy that reads clears the mark.
        s.update(cm("ns", "kept", "8"));
        assert!(s.stale().is_empty());
    }

    #[test]
    fn readers_keep_their_snapshot_after_an_update() {
        let mut s = Store::new();
        s.add(cm("ns", "a", "1"));
        let held = s.get("ns/a").expect("present");
        s.update(cm("ns", "a", "2"));
        assert_eq!(held.metadata.resource_version.as_deref(), Some("1"));
        assert_eq!(
            s.get("ns/a")
                .and_then(|o| o.metadata.resource_version.clone())
                .as_deref(),
            Some("2")
        );
    }
}
