//! The field-by-field difference of two versions of an object, and reading or
//! writing the value at one field's path.

use serde_json::Value;

/// Fields that change on every write and say nothing of their own; and the
/// type, which a listed object lacks and a watched one carries (the same
/// object read two ways is no change).
const NOISE: &[&str] = &[
    "metadata.resourceVersion",
    "metadata.managedFields",
    "apiVersion",
    "kind",
];

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

#[cfg(test)]
mod tests {
    use crate::rules::versions::testing::*;
    use crate::rules::versions::*;
    use serde_json::json;

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
}
