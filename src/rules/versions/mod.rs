//! Object versions: each object's versions this tab has seen, what changed between two of them field by field, who changed it (from managedFields), and a one-line summary, all under a byte cap.
//!
//! No backend: an informer hands over every version it sees, and
//! `metadata.managedFields` says which manager last wrote which fields and
//! when, so the difference between two versions and the managers whose
//! entries moved between them are the change and its author.

mod diff;
mod managers;
mod summary;

pub use diff::{FieldChange, Seg, diff, get_at, set_at};
pub use managers::{Manager, manager_words, managers, writers};
pub use summary::{sections, short, summary};

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::rules::time::Seconds;

/// Versions kept per object; older ones are dropped (and counted).
pub const PER_OBJECT: usize = 50;
/// Bytes (of the objects' JSON) kept across every object's versions in the tab;
/// past it, the oldest versions of the objects not shown now are dropped.
pub const TOTAL_BYTES: usize = 16 << 20;

/// What a version was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The first version this tab saw (not necessarily the object's first).
    First,
    /// A change.
    Updated,
    /// The object was deleted; `object` is its last state.
    Deleted,
}

/// One version of an object, as the tab saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    /// When the tab saw it.
    pub seen: Seconds,
    /// Its resourceVersion.
    pub resource_version: String,
    /// First, a change, or the deletion.
    pub kind: Kind,
    /// The whole object (managedFields included).
    pub object: Value,
    /// Its size as JSON, for the cap.
    pub bytes: usize,
    /// The managers that wrote since the version before.
    pub by: Vec<Manager>,
    /// [`summary`] of the change from the version before.
    pub summary: String,
    /// Only `status` changed (a controller reporting, not anyone changing
    /// what the object asks for): views may fold these away.
    pub status_only: bool,
}

/// The versions of one object, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectVersions {
    /// Kept versions.
    pub versions: VecDeque<Version>,
    /// Versions dropped under the caps.
    pub dropped: u64,
}

impl ObjectVersions {
    /// The object is gone.
    pub fn deleted(&self) -> bool {
        self.versions
            .back()
            .is_some_and(|v| v.kind == Kind::Deleted)
    }
}

/// Every object's versions in the tab, keyed by `resource namespace/name`,
/// under [`PER_OBJECT`] versions each and [`TOTAL_BYTES`] in all.
#[derive(Debug, Clone, Default)]
pub struct Versions {
    objects: HashMap<String, ObjectVersions>,
    bytes: usize,
    /// Versions dropped for the total cap, across objects.
    pub dropped: u64,
    per_object: usize,
    total_bytes: usize,
}

impl Versions {
    /// Empty, with the default caps.
    pub fn new() -> Self {
        Self::with_caps(PER_OBJECT, TOTAL_BYTES)
    }

    /// Empty, with these caps.
    pub fn with_caps(per_object: usize, total_bytes: usize) -> Self {
        Self {
            per_object: per_object.max(2),
            total_bytes,
            ..Self::default()
        }
    }

    /// The versions under `key`.
    pub fn get(&self, key: &str) -> Option<&ObjectVersions> {
        self.objects.get(key)
    }

    /// Bytes held, and objects with versions.
    pub fn held(&self) -> (usize, usize) {
        (self.bytes, self.objects.len())
    }

    /// Records `object` as seen at `now` under `key`; a version with the
    /// resourceVersion already held adds nothing. True when it was new.
    pub fn record(&mut self, key: &str, object: &Value, now: Seconds) -> bool {
        let rv = object
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let h = self.objects.entry(key.to_string()).or_default();
        let (kind, by, summary, status_only) = match h.versions.back() {
            Some(last) if last.resource_version == rv && last.kind != Kind::Deleted => {
                return false;
            }
            Some(last) => {
                let changes = diff(&last.object, object);
                let by = writers(&last.object, object, &changes);
                let summary = summary(&changes, &by);
                let parts = sections(&changes);
                let status_only = !parts.is_empty() && parts.keys().all(|k| k == "status");
                (Kind::Updated, by, summary, status_only)
            }
            None => (Kind::First, Vec::new(), "first seen".to_string(), false),
        };
        let bytes = object.to_string().len();
        h.versions.push_back(Version {
            seen: now,
            resource_version: rv,
            kind,
            object: object.clone(),
            bytes,
            by,
            summary,
            status_only,
        });
        self.bytes += bytes;
        while h.versions.len() > self.per_object {
            if let Some(v) = h.versions.pop_front() {
                self.bytes -= v.bytes;
                h.dropped += 1;
            }
        }
        self.trim(key);
        true
    }

    /// Records that the object under `key` was deleted at `now`; false
    /// when there was nothing to record (no versions, or gone already).
    pub fn deleted(&mut self, key: &str, now: Seconds) -> bool {
        let Some(h) = self.objects.get_mut(key) else {
            return false;
        };
        let Some(last) = h
            .versions
            .back()
            .filter(|v| v.kind != Kind::Deleted)
            .cloned()
        else {
            return false;
        };
        self.bytes += last.bytes;
        h.versions.push_back(Version {
            seen: now,
            kind: Kind::Deleted,
            by: Vec::new(),
            summary: "deleted".to_string(),
            status_only: false,
            ..last
        });
        self.trim(key);
        true
    }

    /// Drops the oldest versions of other objects (then of `keep`'s own,
    /// keeping its newest) until the total is under the cap.
    fn trim(&mut self, keep: &str) {
        while self.bytes > self.total_bytes {
            let victim = self
                .objects
                .iter()
                .filter(|(k, h)| k.as_str() != keep && !h.versions.is_empty())
                .min_by(|a, b| {
                    let t = |h: &ObjectVersions| h.versions.front().map_or(f64::MAX, |v| v.seen);
                    t(a.1).total_cmp(&t(b.1))
                })
                .map(|(k, _)| k.clone())
                .or_else(|| {
                    self.objects
                        .get(keep)
                        .filter(|h| h.versions.len() > 1)
                        .map(|_| keep.to_string())
                });
            let Some(k) = victim else { break };
            let Some(h) = self.objects.get_mut(&k) else {
                break;
            };
            if let Some(v) = h.versions.pop_front() {
                self.bytes -= v.bytes;
                h.dropped += 1;
                self.dropped += 1;
            }
            if h.versions.is_empty() {
                self.objects.remove(&k);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Objects the versions tests share.
    use serde_json::{Value, json};

    pub fn deployment(rv: &str, replicas: u64, labels: Value, fields: Value) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": rv,
                         "labels": labels, "managedFields": fields},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "c", "image": "web:1"}]}}},
        })
    }

    pub fn entry(manager: &str, time: &str, subresource: Option<&str>) -> Value {
        let mut e = json!({"manager": manager, "operation": "Update", "time": time,
                           "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}});
        if let Some(s) = subresource {
            e["subresource"] = json!(s);
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{deployment, entry};
    use super::*;
    use serde_json::json;

    #[test]
    fn an_objects_versions_keep_each_version_once_and_says_when_it_is_gone() {
        let mut h = Versions::new();
        let v1 = deployment(
            "1",
            3,
            json!({}),
            json!([entry("kubectl-create", "t1", None)]),
        );
        let v2 = deployment(
            "2",
            5,
            json!({}),
            json!([
                entry("kubectl-create", "t1", None),
                entry("kubectl", "t2", Some("scale"))
            ]),
        );
        let v3 = deployment(
            "3",
            5,
            json!({"team": "shop"}),
            json!([
                entry("kubectl-create", "t1", None),
                entry("kubectl", "t2", Some("scale")),
                entry("kubectl-label", "t3", None)
            ]),
        );
        assert!(h.record("deployments shop/web", &v1, 1.0));
        assert!(
            !h.record("deployments shop/web", &v1, 2.0),
            "the same version again"
        );
        assert!(h.record("deployments shop/web", &v2, 3.0));
        assert!(h.record("deployments shop/web", &v3, 4.0));
        assert!(h.deleted("deployments shop/web", 5.0));
        assert!(!h.deleted("deployments shop/web", 6.0), "gone already");
        let o = h.get("deployments shop/web").expect("its versions");
        let summaries: Vec<&str> = o.versions.iter().map(|v| v.summary.as_str()).collect();
        assert_eq!(
            summaries,
            [
                "first seen",
                "spec.replicas 3 → 5, by kubectl (scale)",
                "metadata.labels.team = shop, by kubectl-label",
                "deleted"
            ]
        );
        assert!(o.deleted());
        assert_eq!(o.versions[3].object, v3, "the last state is kept");
        assert!(o.versions.iter().all(|v| !v.status_only));
        // A controller's report is a status-only change.
        let mut reported = v3.clone();
        reported["metadata"]["resourceVersion"] = json!("9");
        reported["status"] = json!({"readyReplicas": 5});
        let mut h = Versions::new();
        h.record("k", &v3, 1.0);
        h.record("k", &reported, 2.0);
        let v = &h.get("k").expect("k").versions[1];
        assert!(v.status_only, "{}", v.summary);
        assert_eq!(v.summary, "status = {\"readyReplicas\":5}");
    }

    #[test]
    fn the_caps_drop_the_oldest_and_count_them() {
        let mut h = Versions::with_caps(3, usize::MAX);
        for rv in 1..=5u64 {
            h.record(
                "a",
                &deployment(&rv.to_string(), rv, json!({}), json!([])),
                rv as f64,
            );
        }
        let a = h.get("a").expect("a");
        assert_eq!(a.versions.len(), 3);
        assert_eq!(a.dropped, 2);
        assert_eq!(a.versions[0].resource_version, "3");
        // The byte cap takes from other objects first, oldest first, and
        // never the newest version of the one being recorded.
        let one = deployment("1", 1, json!({}), json!([])).to_string().len();
        let mut h = Versions::with_caps(50, one * 3);
        h.record("old", &deployment("1", 1, json!({}), json!([])), 1.0);
        h.record("new", &deployment("1", 1, json!({}), json!([])), 2.0);
        h.record("new", &deployment("2", 2, json!({}), json!([])), 3.0);
        h.record("new", &deployment("3", 3, json!({}), json!([])), 4.0);
        assert!(h.get("old").is_none(), "the other object went first");
        assert_eq!(h.get("new").map(|n| n.versions.len()), Some(3));
        assert!(h.held().0 <= one * 3);
        h.record("new", &deployment("4", 4, json!({}), json!([])), 5.0);
        assert_eq!(h.get("new").map(|n| n.versions.len()), Some(3));
        assert_eq!(h.dropped, 2);
    }
}
