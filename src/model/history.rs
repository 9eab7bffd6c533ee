//! Object history: the versions of each object this tab has seen, what changed between two of them field by field, who changed it (from managedFields), and a one-line summary, all under a byte cap.
//!
//! No backend: an informer hands over every version it sees, and
//! `metadata.managedFields` says which manager last wrote which fields and
//! when, so the difference between two versions and the managers whose
//! entries moved between them are the change and its author.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;

use serde_json::Value;

use crate::model::time::Seconds;

/// Versions kept per object; older ones are dropped (and counted).
pub const PER_OBJECT: usize = 50;
/// Bytes (of the objects' JSON) kept across every history in the tab;
/// past it, the oldest versions of the objects not shown now are dropped.
pub const TOTAL_BYTES: usize = 16 << 20;

/// Fields that change on every write and say nothing of their own.
const NOISE: &[&str] = &["metadata.resourceVersion", "metadata.managedFields"];

/// Fields a summary leaves out: they follow another change (a spec change
/// moves the generation), so naming them says nothing new.
const FOLLOWERS: &[&str] = &["metadata.generation"];

/// One field that differs between two versions: `old` None when it was
/// added, `new` None when it was removed.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldChange {
    /// The field's path, dotted (`spec.replicas`, `metadata.labels.app`);
    /// list items by index (`spec.containers[0].image`).
    pub path: String,
    /// The same path as keys and indexes (a key may hold dots:
    /// `app.kubernetes.io/name`).
    pub at: Vec<Seg>,
    /// The value before.
    pub old: Option<Value>,
    /// The value after.
    pub new: Option<Value>,
}

/// One step of a field's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// A map key.
    Key(String),
    /// A list index.
    Index(usize),
}

/// The value at `at` in `v`.
pub fn get_at<'a>(v: &'a Value, at: &[Seg]) -> Option<&'a Value> {
    at.iter().try_fold(v, |v, s| match s {
        Seg::Key(k) => v.get(k),
        Seg::Index(i) => v.get(i),
    })
}

/// Sets the value at `at` in `v` (None removes it), making maps on the
/// way; false when the way is a list too short or not a container.
pub fn set_at(v: &mut Value, at: &[Seg], new: Option<Value>) -> bool {
    let Some((last, way)) = at.split_last() else {
        if let Some(n) = new {
            *v = n;
        }
        return true;
    };
    let mut here = v;
    for s in way {
        here = match s {
            Seg::Key(k) => {
                let Some(m) = here.as_object_mut() else {
                    return false;
                };
                m.entry(k.clone())
                    .or_insert_with(|| Value::Object(Default::default()))
            }
            Seg::Index(i) => match here.get_mut(*i) {
                Some(x) => x,
                None => return false,
            },
        };
    }
    match (last, new) {
        (Seg::Key(k), Some(n)) => here
            .as_object_mut()
            .map(|m| m.insert(k.clone(), n))
            .is_some(),
        (Seg::Key(k), None) => {
            if let Some(m) = here.as_object_mut() {
                m.remove(k);
            }
            true
        }
        (Seg::Index(i), Some(n)) => match here.get_mut(*i) {
            Some(x) => {
                *x = n;
                true
            }
            None => false,
        },
        (Seg::Index(i), None) => match here.as_array_mut() {
            Some(a) if *i < a.len() => {
                a.remove(*i);
                true
            }
            _ => false,
        },
    }
}

/// The fields that differ between `old` and `new`, in path order, leaves
/// only (a map or list that came or went whole is one change), without
/// [`NOISE`].
pub fn diff(old: &Value, new: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    walk("", &mut Vec::new(), Some(old), Some(new), &mut out);
    out
}

fn walk(
    path: &str,
    at: &mut Vec<Seg>,
    old: Option<&Value>,
    new: Option<&Value>,
    out: &mut Vec<FieldChange>,
) {
    if NOISE.contains(&path) {
        return;
    }
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match (old, new) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                at.push(Seg::Key(k.clone()));
                walk(&join(k), at, a.get(k), b.get(k), out);
                at.pop();
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                at.push(Seg::Index(i));
                walk(&format!("{path}[{i}]"), at, Some(x), Some(y), out);
                at.pop();
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(FieldChange {
            path: path.to_string(),
            at: at.clone(),
            old: a.cloned(),
            new: b.cloned(),
        }),
    }
}

/// A value in a line of text: strings bare, the rest as JSON, cut at 40
/// characters.
pub fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    if s.chars().count() > 40 {
        let head: String = s.chars().take(39).collect();
        format!("{head}…")
    } else {
        s
    }
}

/// One manager's entry in `metadata.managedFields`, as far as history needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manager {
    /// `manager` (`kubectl-scale`, `kube-controller-manager`…).
    pub name: String,
    /// `Apply` or `Update`.
    pub operation: String,
    /// `status`, `scale`… or empty for the object itself.
    pub subresource: String,
    /// When it last wrote, as sent.
    pub time: String,
}

/// The managedFields entries of `object`.
pub fn managers(object: &Value) -> Vec<Manager> {
    let text = |e: &Value, k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .map(|e| Manager {
                    name: text(e, "manager"),
                    operation: text(e, "operation"),
                    subresource: text(e, "subresource"),
                    time: text(e, "time"),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The managers that wrote between `old` and `new`: the owners, in
/// `new`'s managedFields, of the fields that changed (a field set or
/// changed is owned by whoever wrote it last); for a change no entry owns
/// (a removal), the entries that are new or whose time moved. In the order
/// of `changes` (the diff of `old` and `new`, computed once by the caller).
pub fn writers(old: &Value, new: &Value, changes: &[FieldChange]) -> Vec<Manager> {
    let entries = |o: &Value| -> Vec<(Manager, Value)> {
        let fields: Vec<Value> = o
            .pointer("/metadata/managedFields")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|e| e.get("fieldsV1").cloned().unwrap_or(Value::Null))
                    .collect()
            })
            .unwrap_or_default();
        managers(o).into_iter().zip(fields).collect()
    };
    let (before, after) = (entries(old), entries(new));
    let moved: Vec<Manager> = after
        .iter()
        .filter(|(m, _)| {
            !before.iter().any(|(b, _)| {
                b.name == m.name
                    && b.operation == m.operation
                    && b.subresource == m.subresource
                    && b.time == m.time
            })
        })
        .map(|(m, _)| m.clone())
        .collect();
    let mut out: Vec<Manager> = Vec::new();
    let mut add = |m: &Manager| {
        if !out.contains(m) {
            out.push(m.clone());
        }
    };
    for c in changes {
        let owners: Vec<&Manager> = after
            .iter()
            .filter(|(_, f)| owns(f, &c.at))
            .map(|(m, _)| m)
            .collect();
        if owners.is_empty() {
            moved.iter().for_each(&mut add);
        } else {
            owners.into_iter().for_each(&mut add);
        }
    }
    out
}

/// True when `fields` (one managedFields entry's `fieldsV1`) owns the field
/// at `at` or something under it: `f:<key>` for a map key, any `k:`, `i:` or
/// `v:` item for a list index.
fn owns(fields: &Value, at: &[Seg]) -> bool {
    match at.split_first() {
        None => true,
        Some((Seg::Key(k), rest)) => fields
            .get(format!("f:{k}"))
            .is_some_and(|sub| owns(sub, rest)),
        Some((Seg::Index(_), rest)) => fields.as_object().is_some_and(|m| {
            m.iter().any(|(key, sub)| {
                (key.starts_with("k:") || key.starts_with("i:") || key.starts_with("v:"))
                    && owns(sub, rest)
            })
        }),
    }
}

/// A manager as a summary names it: `kubectl`, or `kubectl (scale)` when it
/// wrote through a subresource.
pub fn manager_words(m: &Manager) -> String {
    if m.subresource.is_empty() {
        m.name.clone()
    } else {
        format!("{} ({})", m.name, m.subresource)
    }
}

/// A change in one line: the first fields that differ (`spec.replicas 3 →
/// 5`, `metadata.labels.tier = web`, `spec.paused removed`), how many more,
/// and who wrote it (`by kubectl-scale`).
pub fn summary(changes: &[FieldChange], by: &[Manager]) -> String {
    const SHOWN: usize = 3;
    let said: Vec<&FieldChange> = changes
        .iter()
        .filter(|c| !FOLLOWERS.contains(&c.path.as_str()))
        .collect();
    let changes = if said.is_empty() {
        changes.iter().collect()
    } else {
        said
    };
    let mut s = String::new();
    for (i, c) in changes.iter().take(SHOWN).enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = match (&c.old, &c.new) {
            (Some(a), Some(b)) => write!(s, "{} {} → {}", c.path, short(a), short(b)),
            (None, Some(b)) => write!(s, "{} = {}", c.path, short(b)),
            (Some(_), None) => write!(s, "{} removed", c.path),
            (None, None) => Ok(()),
        };
    }
    if changes.len() > SHOWN {
        let _ = write!(s, " and {} more", changes.len() - SHOWN);
    }
    if changes.is_empty() {
        s.push_str("no field changed");
    }
    let mut names: Vec<String> = Vec::new();
    for m in by {
        let w = manager_words(m);
        if !names.contains(&w) {
            names.push(w);
        }
    }
    if !names.is_empty() {
        let _ = write!(s, ", by {}", names.join(", "));
    }
    s
}

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
pub struct ObjectHistory {
    /// Kept versions.
    pub versions: VecDeque<Version>,
    /// Versions dropped under the caps.
    pub dropped: u64,
}

impl ObjectHistory {
    /// The object is gone.
    pub fn deleted(&self) -> bool {
        self.versions
            .back()
            .is_some_and(|v| v.kind == Kind::Deleted)
    }
}

/// Every object's history in the tab, keyed by `resource namespace/name`,
/// under [`PER_OBJECT`] versions each and [`TOTAL_BYTES`] in all.
#[derive(Debug, Clone, Default)]
pub struct Histories {
    objects: HashMap<String, ObjectHistory>,
    bytes: usize,
    /// Versions dropped for the total cap, across objects.
    pub dropped: u64,
    per_object: usize,
    total_bytes: usize,
}

impl Histories {
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

    /// The history under `key`.
    pub fn get(&self, key: &str) -> Option<&ObjectHistory> {
        self.objects.get(key)
    }

    /// Bytes held, and objects with a history.
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
    /// when there was nothing to record (no history, or gone already).
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
                    let t = |h: &ObjectHistory| h.versions.front().map_or(f64::MAX, |v| v.seen);
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

/// A version's changes by top-level section (`metadata`, `spec`,
/// `status`…), for folding status-only updates.
pub fn sections(changes: &[FieldChange]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for c in changes {
        let top = c.path.split(['.', '[']).next().unwrap_or("").to_string();
        *out.entry(top).or_default() += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(rv: &str, replicas: u64, labels: Value, fields: Value) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": rv,
                         "labels": labels, "managedFields": fields},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "c", "image": "web:1"}]}}},
        })
    }

    fn entry(manager: &str, time: &str, subresource: Option<&str>) -> Value {
        let mut e = json!({"manager": manager, "operation": "Update", "time": time,
                           "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}});
        if let Some(s) = subresource {
            e["subresource"] = json!(s);
        }
        e
    }

    #[test]
    fn the_diff_names_each_leaf_that_changed_and_skips_the_noise() {
        let a = deployment(
            "1",
            3,
            json!({"app": "web"}),
            json!([entry("kubectl", "t1", None)]),
        );
        let mut b = deployment("2", 5, json!({"app": "web", "tier": "front"}), json!([]));
        b["spec"]["template"]["spec"]["containers"][0]["image"] = json!("web:2");
        b["spec"]["paused"] = json!(true);
        let changes = diff(&a, &b);
        let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "metadata.labels.tier",
                "spec.paused",
                "spec.replicas",
                "spec.template.spec.containers[0].image"
            ]
        );
        assert_eq!(changes[2].old, Some(json!(3)));
        assert_eq!(changes[2].new, Some(json!(5)));
        assert_eq!(changes[0].old, None);
        // A list that changed length is one change, whole.
        let mut c = b.clone();
        c["spec"]["template"]["spec"]["containers"] = json!([]);
        let d = diff(&b, &c);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].path, "spec.template.spec.containers");
        assert!(diff(&a, &a).is_empty());
        // Nothing inside managedFields or the resourceVersion is a change.
        let mut touched = a.clone();
        touched["metadata"]["managedFields"][0]["time"] = json!("t9");
        touched["metadata"]["resourceVersion"] = json!("99");
        assert!(diff(&a, &touched).is_empty(), "{:?}", diff(&a, &touched));
    }

    #[test]
    fn the_writers_are_the_managers_whose_entries_moved() {
        // kubectl-create owned spec.replicas; the scale takes it, so its
        // entry's fields shrink while its time stays: it did not write.
        let mut created = entry("kubectl-create", "t1", None);
        created["fieldsV1"] = json!({"f:spec": {"f:replicas": {}}});
        let a = deployment("1", 3, json!({}), json!([created]));
        let b = deployment(
            "2",
            5,
            json!({}),
            json!([
                entry("kubectl-create", "t1", None),
                entry("kubectl", "t2", Some("scale"))
            ]),
        );
        let by = writers(&a, &b, &diff(&a, &b));
        assert_eq!(by.len(), 1, "{by:?}");
        assert_eq!(
            (by[0].name.as_str(), by[0].subresource.as_str()),
            ("kubectl", "scale")
        );
        assert_eq!(
            summary(&diff(&a, &b), &by),
            "spec.replicas 3 → 5, by kubectl (scale)"
        );
        // The generation that follows a spec change is not named.
        let mut moved = b.clone();
        moved["metadata"]["generation"] = json!(2);
        assert_eq!(
            summary(&diff(&a, &moved), &by),
            "spec.replicas 3 → 5, by kubectl (scale)"
        );
    }

    // Two writes in one second (managedFields times have seconds only): the
    // controller's entry did not move, but it owns the status fields that
    // changed, so it is named too.
    #[test]
    fn the_owners_of_the_changed_fields_are_the_writers() {
        let kcm = |time: &str| {
            json!({"manager": "kube-controller-manager", "operation": "Update", "subresource": "status",
                   "time": time, "fieldsType": "FieldsV1",
                   "fieldsV1": {"f:status": {"f:replicas": {}}}})
        };
        let mut a = deployment("1", 3, json!({}), json!([kcm("t1")]));
        a["status"] = json!({"replicas": 1});
        let label = json!({"manager": "kubectl-label", "operation": "Update", "time": "t1",
                           "fieldsType": "FieldsV1",
                           "fieldsV1": {"f:metadata": {"f:labels": {"f:team": {}}}}});
        let mut b = deployment("2", 3, json!({"team": "shop"}), json!([kcm("t1"), label]));
        b["status"] = json!({"replicas": 3});
        let names: Vec<String> = writers(&a, &b, &diff(&a, &b))
            .iter()
            .map(manager_words)
            .collect();
        assert_eq!(names, ["kubectl-label", "kube-controller-manager (status)"]);
        // A list item is owned through its k:/i: entry.
        let f = json!({"f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {"f:image": {}}}}});
        let at = [
            Seg::Key("spec".into()),
            Seg::Key("containers".into()),
            Seg::Index(0),
            Seg::Key("image".into()),
        ];
        assert!(owns(&f, &at));
        assert!(!owns(
            &f,
            &at[..2]
                .iter()
                .cloned()
                .chain([Seg::Index(0), Seg::Key("name".into())])
                .collect::<Vec<_>>()
        ));
    }

    #[test]
    fn summaries_name_three_changes_and_count_the_rest() {
        let c = |p: &str, o: Option<Value>, n: Option<Value>| FieldChange {
            path: p.into(),
            at: Vec::new(),
            old: o,
            new: n,
        };
        let changes = [
            c("metadata.labels.tier", None, Some(json!("front"))),
            c("spec.paused", Some(json!(true)), None),
            c("spec.replicas", Some(json!(1)), Some(json!(2))),
            c("spec.x", Some(json!("a")), Some(json!("b"))),
        ];
        assert_eq!(
            summary(&changes, &[]),
            "metadata.labels.tier = front, spec.paused removed, spec.replicas 1 → 2 and 1 more"
        );
        assert_eq!(summary(&[], &[]), "no field changed");
        assert_eq!(short(&json!("x".repeat(50))).chars().count(), 40);
        assert_eq!(
            sections(&changes),
            BTreeMap::from([("metadata".into(), 1), ("spec".into(), 3)])
        );
    }

    #[test]
    fn a_history_keeps_each_version_once_and_says_when_it_is_gone() {
        let mut h = Histories::new();
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
        let o = h.get("deployments shop/web").expect("a history");
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
        let mut h = Histories::new();
        h.record("k", &v3, 1.0);
        h.record("k", &reported, 2.0);
        let v = &h.get("k").expect("k").versions[1];
        assert!(v.status_only, "{}", v.summary);
        assert_eq!(v.summary, "status = {\"readyReplicas\":5}");
    }

    #[test]
    fn the_caps_drop_the_oldest_and_count_them() {
        let mut h = Histories::with_caps(3, usize::MAX);
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
        let mut h = Histories::with_caps(50, one * 3);
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
