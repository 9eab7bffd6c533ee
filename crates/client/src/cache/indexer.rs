//! The informer's cache: objects by key plus secondary indexes.
//!
//! client-go's thread-safe store with `Indexers` (index name → function
//! returning the values an object is indexed under) and `Indices` (index name
//! → value → set of keys). Objects are shared `Rc<K>` handles that are never
//! mutated in place, so a reader keeps a consistent snapshot for as long as
//! it holds one. [`Indexer::replace`] swaps the whole content at once.
//!
//! # The indexes
//!
//! Objects by key with named indexes (namespace built in,
//! cluster-scoped objects under `""`; a second index of a used name is an
//! `IndexConflict` error;
//! label value, owner UID, pod node name, event involved object, any JSON
//! pointer for dynamic objects, custom functions); `by_index`, `index_keys`,
//! `index_values`; empty sets removed; `replace` swaps everything at once.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use kube_core::Resource;

use super::store::object_key;

/// Returns the values `obj` is indexed under (none, one or several).
pub type IndexFunc<K> = Rc<dyn Fn(&K) -> Vec<String>>;

/// The index every indexer has: objects by namespace.
pub const NAMESPACE_INDEX: &str = "namespace";
/// Index name for [`owner_uid_index`].
pub const OWNER_UID_INDEX: &str = "owner-uid";
/// Index name for pods by `spec.nodeName`.
pub const NODE_NAME_INDEX: &str = "spec.nodeName";
/// Index name for events by `involvedObject.uid` (core/v1) or `regarding.uid` (events.k8s.io).
pub const INVOLVED_UID_INDEX: &str = "involvedObject.uid";

/// Indexes by namespace; cluster-scoped objects are indexed under `""`
/// (client-go's `MetaNamespaceIndexFunc`).
pub fn namespace_index<K: Resource>() -> IndexFunc<K> {
    Rc::new(|o: &K| vec![o.meta().namespace.clone().unwrap_or_default()])
}

/// Indexes by the value of label `key` (objects without it are not indexed).
pub fn label_index<K: Resource>(key: &str) -> IndexFunc<K> {
    let key = key.to_string();
    Rc::new(move |o: &K| {
        o.meta()
            .labels
            .as_ref()
            .and_then(|l| l.get(&key))
            .cloned()
            .into_iter()
            .collect()
    })
}

/// Indexes by the UID of every owner reference.
pub fn owner_uid_index<K: Resource>() -> IndexFunc<K> {
    Rc::new(|o: &K| {
        o.meta()
            .owner_references
            .iter()
            .flatten()
            .map(|r| r.uid.clone())
            .collect()
    })
}

/// Indexes by a string field found by `extract` (e.g. a pod's node name, an
/// event's involved object UID); empty strings are not indexed.
pub fn field_index<K, F>(extract: F) -> IndexFunc<K>
where
    F: Fn(&K) -> Option<String> + 'static,
{
    Rc::new(move |o: &K| extract(o).filter(|v| !v.is_empty()).into_iter().collect())
}

/// Indexes pods by `spec.nodeName`.
pub fn pod_node_name_index() -> IndexFunc<k8s_openapi::api::core::v1::Pod> {
    field_index(|p: &k8s_openapi::api::core::v1::Pod| {
        p.spec.as_ref().and_then(|s| s.node_name.clone())
    })
}

/// Indexes core/v1 events by the UID of the object they are about.
pub fn event_involved_uid_index() -> IndexFunc<k8s_openapi::api::core::v1::Event> {
    field_index(|e: &k8s_openapi::api::core::v1::Event| e.involved_object.uid.clone())
}

/// Indexes dynamic objects by the string at a JSON pointer into their body
/// (e.g. `/spec/nodeName`, `/involvedObject/uid`).
pub fn dynamic_field_index(pointer: &str) -> IndexFunc<kube_core::DynamicObject> {
    let pointer = pointer.to_string();
    field_index(move |o: &kube_core::DynamicObject| {
        o.data
            .pointer(&pointer)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    })
}

/// Asking for an index that was never registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no index named {0:?}")]
pub struct NoSuchIndex(pub String);

/// Adding an index under a name already registered (client-go's "indexer conflict").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("indexer conflict: an index named {0:?} is already registered")]
pub struct IndexConflict(pub String);

/// Objects by key with named secondary indexes.
pub struct Indexer<K> {
    items: HashMap<String, Rc<K>>,
    indexers: HashMap<String, IndexFunc<K>>,
    /// index name → value → keys.
    indices: HashMap<String, HashMap<String, HashSet<String>>>,
}

impl<K> std::fmt::Debug for Indexer<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Indexer")
            .field("len", &self.items.len())
            .field("indexes", &self.indexers.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<K: Resource> Default for Indexer<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Resource> Indexer<K> {
    /// An empty indexer with the namespace index.
    pub fn new() -> Self {
        let mut indexers = HashMap::new();
        indexers.insert(NAMESPACE_INDEX.to_string(), namespace_index::<K>());
        let mut indices = HashMap::new();
        indices.insert(NAMESPACE_INDEX.to_string(), HashMap::new());
        Self {
            items: HashMap::new(),
            indexers,
            indices,
        }
    }

    /// Registers index `name`, indexing what is already held; a name that
    /// is already registered is an error, never a silent replacement.
    pub fn add_index(&mut self, name: &str, f: IndexFunc<K>) -> Result<(), IndexConflict> {
        if self.indexers.contains_key(name) {
            return Err(IndexConflict(name.to_string()));
        }
        self.put_index(name, f);
        Ok(())
    }

    /// Registers or replaces index `name` (an informer's own options, at
    /// construction, may name the default namespace index again).
    pub(crate) fn put_index(&mut self, name: &str, f: IndexFunc<K>) {
        let mut index: HashMap<String, HashSet<String>> = HashMap::new();
        for (key, obj) in &self.items {
            for v in f(obj) {
                index.entry(v).or_default().insert(key.clone());
            }
        }
        self.indexers.insert(name.to_string(), f);
        self.indices.insert(name.to_string(), index);
    }

    /// Names of the registered indexes.
    pub fn index_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.indexers.keys().cloned().collect();
        v.sort();
        v
    }

    fn unindex(&mut self, key: &str, obj: &K) {
        for (name, f) in &self.indexers {
            let Some(index) = self.indices.get_mut(name) else {
                continue;
            };
            for v in f(obj) {
                if let Some(set) = index.get_mut(&v) {
                    set.remove(key);
                    if set.is_empty() {
                        index.remove(&v);
                    }
                }
            }
        }
    }

    fn index(&mut self, key: &str, obj: &K) {
        for (name, f) in &self.indexers {
            let index = self.indices.entry(name.clone()).or_default();
            for v in f(obj) {
                index.entry(v).or_default().insert(key.to_string());
            }
        }
    }

    /// Stores `obj` under its key; returns what it replaced.
    pub fn put(&mut self, obj: Rc<K>) -> Option<Rc<K>> {
        let key = object_key(obj.as_ref());
        let old = self.items.insert(key.clone(), obj.clone());
        if let Some(old) = &old {
            self.unindex(&key, old);
        }
        self.index(&key, &obj);
        old
    }

    /// Removes the object under `key`; returns it.
    pub fn remove(&mut self, key: &str) -> Option<Rc<K>> {
        let old = self.items.remove(key)?;
        self.unindex(key, &old);
        Some(old)
    }

    /// Swaps in `objects` as the whole content and returns the old content.
    pub fn replace(&mut self, objects: Vec<Rc<K>>) -> HashMap<String, Rc<K>> {
        let items: HashMap<String, Rc<K>> = objects
            .into_iter()
            .map(|o| (object_key(o.as_ref()), o))
            .collect();
        let mut indices: HashMap<String, HashMap<String, HashSet<String>>> = HashMap::new();
        for (name, f) in &self.indexers {
            let index = indices.entry(name.clone()).or_default();
            for (key, obj) in &items {
                for v in f(obj) {
                    index.entry(v).or_default().insert(key.clone());
                }
            }
        }
        self.indices = indices;
        std::mem::replace(&mut self.items, items)
    }

    /// The object under `key`.
    pub fn get(&self, key: &str) -> Option<Rc<K>> {
        self.items.get(key).cloned()
    }

    /// Every object, in no particular order.
    pub fn list(&self) -> Vec<Rc<K>> {
        self.items.values().cloned().collect()
    }

    /// Every key, in no particular order.
    pub fn keys(&self) -> Vec<String> {
        self.items.keys().cloned().collect()
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Keys indexed under `value` in index `name`, sorted.
    pub fn index_keys(&self, name: &str, value: &str) -> Result<Vec<String>, NoSuchIndex> {
        let index = self
            .indices
            .get(name)
            .ok_or_else(|| NoSuchIndex(name.to_string()))?;
        let mut keys: Vec<String> = index
            .get(value)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        Ok(keys)
    }

    /// Objects indexed under `value` in index `name`, sorted by key.
    pub fn by_index(&self, name: &str, value: &str) -> Result<Vec<Rc<K>>, NoSuchIndex> {
        Ok(self
            .index_keys(name, value)?
            .iter()
            .filter_map(|k| self.items.get(k).cloned())
            .collect())
    }

    /// Objects sharing any index value with `obj` in index `name`.
    pub fn matching(&self, name: &str, obj: &K) -> Result<Vec<Rc<K>>, NoSuchIndex> {
        let f = self
            .indexers
            .get(name)
            .ok_or_else(|| NoSuchIndex(name.to_string()))?;
        let mut keys = BTreeSet::new();
        if let Some(index) = self.indices.get(name) {
            for v in f(obj) {
                keys.extend(index.get(&v).into_iter().flatten().cloned());
            }
        }
        Ok(keys
            .iter()
            .filter_map(|k| self.items.get(k).cloned())
            .collect())
    }

    /// Every value index `name` holds, sorted.
    pub fn index_values(&self, name: &str) -> Result<Vec<String>, NoSuchIndex> {
        let index = self
            .indices
            .get(name)
            .ok_or_else(|| NoSuchIndex(name.to_string()))?;
        let mut v: Vec<String> = index.keys().cloned().collect();
        v.sort();
        Ok(v)
    }

    /// Checks that every index agrees with the objects (used by tests).
    pub fn check_consistent(&self) -> Result<(), String> {
        for (name, f) in &self.indexers {
            let mut expect: HashMap<String, HashSet<String>> = HashMap::new();
            for (key, obj) in &self.items {
                for v in f(obj) {
                    expect.entry(v).or_default().insert(key.clone());
                }
            }
            let got = self.indices.get(name).cloned().unwrap_or_default();
            if got != expect {
                return Err(format!("index {name:?} disagrees with the objects"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::Pod;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

    fn pod(ns: &str, name: &str, node: &str, app: &str, owner: Option<&str>) -> Rc<Pod> {
        let mut p = Pod::default();
        p.metadata.namespace = Some(ns.into());
        p.metadata.name = Some(name.into());
        p.metadata.labels = Some([("app".to_string(), app.to_string())].into());
        if let Some(uid) = owner {
            p.metadata.owner_references = Some(vec![OwnerReference {
                uid: uid.into(),
                ..OwnerReference::default()
            }]);
        }
        p.spec = Some(k8s_openapi::api::core::v1::PodSpec {
            node_name: Some(node.into()),
            ..Default::default()
        });
        Rc::new(p)
    }

    fn indexer() -> Indexer<Pod> {
        let mut i = Indexer::new();
        i.add_index(NODE_NAME_INDEX, pod_node_name_index())
            .expect("new index");
        i.add_index("label:app", label_index("app"))
            .expect("new index");
        i.add_index(OWNER_UID_INDEX, owner_uid_index())
            .expect("new index");
        i
    }

    #[test]
    fn by_index_follows_updates_and_deletes() {
        let mut i = indexer();
        i.put(pod("a", "p1", "n1", "web", Some("rs1")));
        i.put(pod("a", "p2", "n1", "db", None));
        i.put(pod("b", "p3", "n2", "web", Some("rs1")));
        let names = |v: Vec<Rc<Pod>>| v.iter().map(|p| object_key(p.as_ref())).collect::<Vec<_>>();
        assert_eq!(
            names(i.by_index(NODE_NAME_INDEX, "n1").expect("present")),
            ["a/p1", "a/p2"]
        );
        assert_eq!(
            names(i.by_index(NAMESPACE_INDEX, "b").expect("present")),
            ["b/p3"]
        );
        assert_eq!(
            names(i.by_index(OWNER_UID_INDEX, "rs1").expect("present")),
            ["a/p1", "b/p3"]
        );
        // p1 moves node and changes app: both indexes follow.
        i.put(pod("a", "p1", "n2", "db", Some("rs1")));
        assert_eq!(
            names(i.by_index(NODE_NAME_INDEX, "n1").expect("present")),
            ["a/p2"]
        );
        assert_eq!(
            names(i.by_index("label:app", "db").expect("present")),
            ["a/p1", "a/p2"]
        );
        i.remove("a/p2");
        // Empty sets go away with their value.
        assert_eq!(i.index_values(NODE_NAME_INDEX).expect("present"), ["n2"]);
        assert!(
            i.by_index(NODE_NAME_INDEX, "n1")
                .expect("present")
                .is_empty()
        );
        assert_eq!(
            i.by_index("nope", "x").expect_err("an error"),
            NoSuchIndex("nope".into())
        );
        i.check_consistent().expect("present");
    }

    #[test]
    fn replace_rebuilds_indexes_and_returns_the_old_content() {
        let mut i = indexer();
        i.put(pod("a", "p1", "n1", "web", None));
        let old = i.replace(vec![pod("a", "p2", "n3", "web", None)]);
        assert!(old.contains_key("a/p1"));
        assert_eq!(i.index_values(NODE_NAME_INDEX).expect("present"), ["n3"]);
        assert_eq!(i.index_keys("label:app", "web").expect("present"), ["a/p2"]);
        i.check_consistent().expect("present");
    }

    #[test]
    fn an_index_added_later_indexes_what_is_held() {
        let mut i: Indexer<Pod> = Indexer::new();
        i.put(pod("a", "p1", "n1", "web", None));
        i.add_index(NODE_NAME_INDEX, pod_node_name_index())
            .expect("new index");
        assert_eq!(
            i.index_keys(NODE_NAME_INDEX, "n1").expect("present"),
            ["a/p1"]
        );
        let same = i
            .matching(NODE_NAME_INDEX, &pod("x", "y", "n1", "", None))
            .expect("present");
        assert_eq!(same.len(), 1);
    }

    #[test]
    fn dynamic_objects_index_by_json_pointer() {
        let mut i: Indexer<kube_core::DynamicObject> = Indexer::new();
        i.add_index(
            INVOLVED_UID_INDEX,
            dynamic_field_index("/involvedObject/uid"),
        )
        .expect("new index");
        let ev: kube_core::DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "e1", "namespace": "a"},
            "involvedObject": {"uid": "u-1"}
        }))
        .expect("present");
        i.put(Rc::new(ev));
        assert_eq!(
            i.index_keys(INVOLVED_UID_INDEX, "u-1").expect("present"),
            ["a/e1"]
        );
    }

    // client-go MetaNamespaceIndexFunc, ListAllByNamespace, AddIndexers.
    #[test]
    fn cluster_scoped_objects_index_under_the_empty_namespace_and_names_do_not_clash() {
        let mut i: Indexer<k8s_openapi::api::core::v1::Node> = Indexer::new();
        let node = k8s_openapi::api::core::v1::Node {
            metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                name: Some("n1".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        i.put(Rc::new(node));
        let found = i.by_index(NAMESPACE_INDEX, "").expect("namespace index");
        assert_eq!(found.len(), 1, "indexed under \"\"");
        let e = i
            .add_index(NAMESPACE_INDEX, namespace_index())
            .expect_err("a second index of the same name");
        assert!(e.to_string().contains("indexer conflict"), "{e}");
    }
}
