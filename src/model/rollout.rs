//! A Deployment's rollout history as `kubectl rollout history` reads it: one revision per ReplicaSet it owns (the `deployment.kubernetes.io/revision` annotation), each with its images, change-cause and pod template, and the template a rollback to it writes back.

use serde_json::Value;

use crate::model::time::{Seconds, parse_time};

/// The annotation a Deployment's ReplicaSets carry their revision in.
pub const REVISION: &str = "deployment.kubernetes.io/revision";
/// The annotation `kubectl --record` and people set to say why.
pub const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";
/// The label the Deployment controller adds to each ReplicaSet's template.
const HASH_LABEL: &str = "pod-template-hash";

/// One revision.
#[derive(Debug, Clone, PartialEq)]
pub struct Revision {
    /// Its number.
    pub number: u64,
    /// The ReplicaSet that holds it.
    pub replica_set: String,
    /// When that ReplicaSet was made.
    pub created: Option<Seconds>,
    /// Its containers' images, in order.
    pub images: Vec<String>,
    /// Why, when someone said.
    pub change_cause: Option<String>,
    /// The pod template, without the controller's hash label: what a
    /// rollback writes into the Deployment.
    pub template: Value,
}

/// The revisions of the Deployment `deployment` among `replica_sets`
/// (those it owns, by UID), newest first. A ReplicaSet without a readable
/// revision is left out, as kubectl leaves it.
pub fn revisions(deployment: &Value, replica_sets: &[Value]) -> Vec<Revision> {
    let Some(uid) = deployment.pointer("/metadata/uid").and_then(Value::as_str) else {
        return Vec::new();
    };
    let owned = |rs: &&Value| {
        rs.pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .is_some_and(|o| {
                o.iter()
                    .any(|r| r.get("uid").and_then(Value::as_str) == Some(uid))
            })
    };
    let mut out: Vec<Revision> = replica_sets
        .iter()
        .filter(owned)
        .filter_map(|rs| {
            let annotation = |k: &str| {
                rs.pointer("/metadata/annotations")
                    .and_then(|a| a.get(k))
                    .and_then(Value::as_str)
            };
            let number = annotation(REVISION)?.parse().ok()?;
            let mut template = rs.pointer("/spec/template").cloned().unwrap_or(Value::Null);
            if let Some(labels) = template
                .pointer_mut("/metadata/labels")
                .and_then(Value::as_object_mut)
            {
                labels.remove(HASH_LABEL);
            }
            let images = template
                .pointer("/spec/containers")
                .and_then(Value::as_array)
                .map(|cs| {
                    cs.iter()
                        .filter_map(|c| c.get("image").and_then(Value::as_str).map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            Some(Revision {
                number,
                replica_set: rs
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                created: rs
                    .pointer("/metadata/creationTimestamp")
                    .and_then(Value::as_str)
                    .and_then(parse_time),
                images,
                change_cause: annotation(CHANGE_CAUSE).map(String::from),
                template,
            })
        })
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.number));
    out
}

/// The revision the Deployment runs now: the one whose template is its own.
pub fn current(deployment: &Value, revisions: &[Revision]) -> Option<u64> {
    let mine = deployment.pointer("/spec/template")?;
    revisions
        .iter()
        .find(|r| &r.template == mine)
        .map(|r| r.number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rs(name: &str, owner: &str, revision: Option<&str>, image: &str) -> Value {
        let mut annotations = json!({});
        if let Some(r) = revision {
            annotations[REVISION] = json!(r);
        }
        json!({"metadata": {"name": name, "annotations": annotations,
                            "creationTimestamp": "2026-12-05T10:00:00Z",
                            "ownerReferences": [{"uid": owner, "kind": "Deployment"}]},
               "spec": {"template": {"metadata": {"labels": {"app": "web", "pod-template-hash": name}},
                                     "spec": {"containers": [{"name": "c", "image": image}]}}}})
    }

    #[test]
    fn revisions_come_from_owned_replica_sets_newest_first() {
        let deployment = json!({"metadata": {"uid": "d1"},
            "spec": {"template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "web:2"}]}}}});
        let mut second = rs("web-b", "d1", Some("2"), "web:2");
        second["metadata"]["annotations"][CHANGE_CAUSE] = json!("kubectl set image");
        let sets = [
            rs("web-a", "d1", Some("1"), "web:1"),
            second,
            rs("other", "d2", Some("3"), "other:1"),
            rs("web-odd", "d1", None, "web:0"),
            rs("web-bad", "d1", Some("x"), "web:0"),
        ];
        let r = revisions(&deployment, &sets);
        let seen: Vec<(u64, &str, Vec<String>)> = r
            .iter()
            .map(|r| (r.number, r.replica_set.as_str(), r.images.clone()))
            .collect();
        assert_eq!(
            seen,
            [
                (2, "web-b", vec!["web:2".to_string()]),
                (1, "web-a", vec!["web:1".to_string()])
            ]
        );
        assert_eq!(r[0].change_cause.as_deref(), Some("kubectl set image"));
        assert!(r[0].created.is_some());
        assert_eq!(
            r[1].template["metadata"]["labels"],
            json!({"app": "web"}),
            "the controller's hash label is not written back"
        );
        assert_eq!(current(&deployment, &r), Some(2));
        assert!(revisions(&json!({}), &sets).is_empty());
    }
}
