//! An edit as the JSON merge patch (RFC 7386) of what the person changed,
//! and whether an object already holds what a patch sets.
//!
//! `kubectl edit` sends only the difference between the object it opened
//! and the one saved: a JSON merge patch for custom resources, a strategic
//! merge patch for built-in kinds. Kubeglass sends a JSON merge patch for
//! every kind and puts the resourceVersion the edit began from in it, so
//! the server applies it only to the very object the person edited (409
//! Conflict otherwise). On that object a merge patch and a strategic one
//! store the same result: the two differ only in how a list is said (whole,
//! or element by merge key), and the precondition rules out a list that
//! changed meanwhile. What a merge patch never does is touch a field the
//! person did not change, `status` included, which a whole-object PUT of
//! the edited text (without `status`) would wipe where `status` is not a
//! subresource.

use serde_json::{Map, Value};

/// The merge patch that turns `base` into `edited`: changed and added
/// fields with their new values, removed ones as `null`, objects compared
/// key by key, anything else (lists included) sent whole when it differs.
/// Equal inputs give an empty object.
pub fn merge_patch(base: &Value, edited: &Value) -> Value {
    match (base, edited) {
        (Value::Object(b), Value::Object(e)) => {
            let mut out = Map::new();
            for (k, v) in e {
                match b.get(k) {
                    Some(old) if old == v => {}
                    Some(old @ Value::Object(_)) if v.is_object() => {
                        out.insert(k.clone(), merge_patch(old, v));
                    }
                    _ => {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
            for k in b.keys() {
                if !e.contains_key(k) {
                    out.insert(k.clone(), Value::Null);
                }
            }
            Value::Object(out)
        }
        _ => edited.clone(),
    }
}

/// True when `patch` is an object with nothing in it: no change.
pub fn is_empty(patch: &Value) -> bool {
    patch.as_object().is_some_and(Map::is_empty)
}

/// True when `object` already holds everything `patch` sets: each `null`
/// absent, each object key by key, every other value equal. After a write
/// whose answer was lost, this tells whether the write was applied (the
/// server may have defaulted fields inside a list the patch set whole; then
/// this says no, and the person is told it could not be confirmed).
pub fn holds(object: Option<&Value>, patch: &Value) -> bool {
    match patch {
        Value::Null => object.is_none_or(Value::is_null),
        Value::Object(p) => p
            .iter()
            .all(|(k, v)| holds(object.and_then(|o| o.get(k)), v)),
        v => object == Some(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_patch_holds_only_what_changed() {
        let base = json!({"metadata": {"name": "a", "resourceVersion": "5", "labels": {"x": "1", "y": "2"}},
            "spec": {"replicas": 1, "list": [1, 2], "same": {"k": "v"}}});
        let edited = json!({"metadata": {"name": "a", "resourceVersion": "5", "labels": {"x": "1", "z": "3"}},
            "spec": {"replicas": 2, "list": [1, 2, 3], "same": {"k": "v"}}});
        assert_eq!(
            merge_patch(&base, &edited),
            json!({"metadata": {"labels": {"y": null, "z": "3"}},
                "spec": {"replicas": 2, "list": [1, 2, 3]}})
        );
        assert!(is_empty(&merge_patch(&base, &base)));
    }

    #[test]
    fn a_field_that_stops_being_an_object_is_sent_whole() {
        let patch = merge_patch(&json!({"a": {"b": 1}}), &json!({"a": [1]}));
        assert_eq!(patch, json!({"a": [1]}));
        let patch = merge_patch(&json!({"a": 1}), &json!({"a": {"b": 1}}));
        assert_eq!(patch, json!({"a": {"b": 1}}));
    }

    #[test]
    fn an_object_holds_a_patch_when_every_field_it_sets_is_there() {
        let object = json!({"spec": {"replicas": 2, "list": [1, 2, 3]}, "status": {"ready": 1}});
        assert!(holds(Some(&object), &json!({"spec": {"replicas": 2}})));
        assert!(holds(Some(&object), &json!({"spec": {"gone": null}})));
        assert!(!holds(Some(&object), &json!({"spec": {"replicas": 3}})));
        assert!(!holds(Some(&object), &json!({"status": null})));
        assert!(!holds(Some(&object), &json!({"spec": {"list": [1, 2]}})));
        assert!(holds(Some(&object), &json!({})));
    }
}
