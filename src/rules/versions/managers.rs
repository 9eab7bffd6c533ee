//! Who wrote a change: the managedFields entries of an object, and the owners
//! of the fields that changed between two versions.

use serde_json::Value;

use super::{FieldChange, Seg};

/// One manager's entry in `metadata.managedFields`, as far as the versions need it.
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

#[cfg(test)]
mod tests {
    use super::owns;
    use crate::rules::versions::testing::*;
    use crate::rules::versions::*;
    use serde_json::json;

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
}
