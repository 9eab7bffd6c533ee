//! Rollout history as `kubectl rollout history` reads it: a Deployment's one revision per ReplicaSet it owns (the `deployment.kubernetes.io/revision` annotation), a StatefulSet's or DaemonSet's one per ControllerRevision it owns (its `revision`), each with its images, change-cause and pod template, and the template a rollback to it writes back.

use serde_json::Value;

use crate::rules::time::{Seconds, parse_time};

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
    /// The ReplicaSet or ControllerRevision that holds it.
    pub holder: String,
    /// When that ReplicaSet was made.
    pub created: Option<Seconds>,
    /// Its containers' images, in order.
    pub images: Vec<String>,
    /// Why, when someone said.
    pub change_cause: Option<String>,
    /// The pod template, without the controller's hash label: what a
    /// rollback writes into the Deployment.
    pub template: Value,
    /// A Deployment's revision: its ReplicaSet's annotations, which a
    /// rollback copies onto the Deployment as kubectl does. None for a
    /// ControllerRevision.
    pub annotations: Option<serde_json::Map<String, Value>>,
}

impl Revision {
    /// What a roll back to this revision writes.
    pub fn roll_back(&self) -> kubeglass_kubectl::actions::RollBackTo {
        kubeglass_kubectl::actions::RollBackTo {
            revision: self.number,
            template: self.template.clone(),
            annotations: self.annotations.clone(),
        }
    }
}

/// The revisions of the Deployment `deployment` among `replica_sets`
/// (those it owns, by UID), newest first. A ReplicaSet without a readable
/// revision is left out, as kubectl leaves it.
pub fn revisions(deployment: &Value, replica_sets: &[Value]) -> Vec<Revision> {
    let Some(uid) = deployment.pointer("/metadata/uid").and_then(Value::as_str) else {
        return Vec::new();
    };
    let mut out: Vec<Revision> = replica_sets
        .iter()
        .filter(|rs| owned_by(rs, uid))
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
            Some(Revision {
                images: images_of(&template),
                number,
                holder: rs
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                created: rs
                    .pointer("/metadata/creationTimestamp")
                    .and_then(Value::as_str)
                    .and_then(parse_time),
                change_cause: annotation(CHANGE_CAUSE).map(String::from),
                template,
                annotations: Some(
                    rs.pointer("/metadata/annotations")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default(),
                ),
            })
        })
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.number));
    out
}

/// The containers' images of a pod template, in order.
fn images_of(template: &Value) -> Vec<String> {
    template
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .filter_map(|c| c.get("image").and_then(Value::as_str).map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// True when `child` names `owner`'s UID among its owners.
fn owned_by(child: &Value, owner: &str) -> bool {
    child
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|o| {
            o.iter()
                .any(|r| r.get("uid").and_then(Value::as_str) == Some(owner))
        })
}

/// The revisions of a StatefulSet or DaemonSet `owner` among
/// `controller_revisions` (those it owns, by UID), newest first: each one's
/// `revision`, and the pod template its `data` holds (`spec.template`,
/// written as a strategic-merge patch marked `$patch: replace`; the mark is
/// left out, so a rollback writes the template as it was).
pub fn controller_revisions(owner: &Value, controller_revisions: &[Value]) -> Vec<Revision> {
    let Some(uid) = owner.pointer("/metadata/uid").and_then(Value::as_str) else {
        return Vec::new();
    };
    let mut out: Vec<Revision> = controller_revisions
        .iter()
        .filter(|cr| owned_by(cr, uid))
        .filter_map(|cr| {
            let number = cr.get("revision").and_then(Value::as_u64)?;
            let mut template = cr.pointer("/data/spec/template").cloned()?;
            if let Some(t) = template.as_object_mut() {
                t.remove("$patch");
            }
            let text = |p: &str| cr.pointer(p).and_then(Value::as_str);
            Some(Revision {
                number,
                holder: text("/metadata/name").unwrap_or("").to_string(),
                created: text("/metadata/creationTimestamp").and_then(parse_time),
                images: images_of(&template),
                change_cause: cr
                    .pointer("/metadata/annotations")
                    .and_then(|a| a.get(CHANGE_CAUSE))
                    .and_then(Value::as_str)
                    .map(String::from),
                template,
                annotations: None,
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
            .map(|r| (r.number, r.holder.as_str(), r.images.clone()))
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

    #[test]
    fn a_stateful_sets_revisions_come_from_its_controller_revisions() {
        let sts = json!({"metadata": {"uid": "s1"},
            "spec": {"template": {"metadata": {"labels": {"app": "db"}},
                                  "spec": {"containers": [{"name": "pg", "image": "pg:17"}]}}}});
        let cr = |name: &str, owner: &str, revision: u64, image: &str| {
            json!({"metadata": {"name": name, "creationTimestamp": "2026-12-05T10:00:00Z",
                                "ownerReferences": [{"uid": owner, "kind": "StatefulSet"}]},
                   "revision": revision,
                   "data": {"spec": {"template": {"$patch": "replace",
                       "metadata": {"labels": {"app": "db"}},
                       "spec": {"containers": [{"name": "pg", "image": image}]}}}}})
        };
        let crs = [
            cr("db-1", "s1", 1, "pg:16"),
            cr("db-2", "s1", 2, "pg:17"),
            cr("other-1", "s2", 3, "x:1"),
            json!({"metadata": {"name": "db-bad", "ownerReferences": [{"uid": "s1"}]}, "revision": 4}),
        ];
        let r = controller_revisions(&sts, &crs);
        let seen: Vec<(u64, &str, Vec<String>)> = r
            .iter()
            .map(|r| (r.number, r.holder.as_str(), r.images.clone()))
            .collect();
        assert_eq!(
            seen,
            [
                (2, "db-2", vec!["pg:17".to_string()]),
                (1, "db-1", vec!["pg:16".to_string()])
            ]
        );
        assert!(
            r[0].template.get("$patch").is_none(),
            "the patch mark is not written back"
        );
        assert_eq!(current(&sts, &r), Some(2));
    }
}
