//! A workload's merged logs as plain rules: which of its pods to follow, the ones that joined or left, the short name and source number of each, and the pods a cap on streams leaves out.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::rules::logs::short_pod_name;
use crate::rules::pods::{PodView, State};

/// A pod of the workload, as the merge needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    pub hash: Option<String>,
    pub uid: String,
    /// The container followed: the one asked for when the pod has it, else
    /// the pod's default.
    pub container: Option<String>,
    /// Every container of the pod and its kind's word, for the picker.
    pub containers: Vec<(String, &'static str)>,
    /// Whether the followed container has started (or has been), so there
    /// is a log to read.
    pub has_run: bool,
}

impl Member {
    /// `pod` (untyped JSON) with `container` asked for.
    pub fn from_pod(pod: &Value, container: Option<&str>) -> Self {
        let view = PodView::from_value(pod);
        let chosen = container
            .filter(|c| view.containers.iter().any(|x| x.name == *c))
            .map(str::to_string)
            .or_else(|| PodView::default_container(pod, &view));
        let has_run = view
            .containers
            .iter()
            .find(|c| Some(&c.name) == chosen.as_ref())
            .is_some_and(|c| {
                c.state.has_run() || !matches!(c.state, State::Waiting(_) | State::Unknown)
            });
        let text = |p: &str| {
            pod.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        Self {
            name: text("/metadata/name"),
            hash: pod
                .pointer("/metadata/labels/pod-template-hash")
                .and_then(Value::as_str)
                .map(str::to_string),
            uid: text("/metadata/uid"),
            containers: view
                .containers
                .iter()
                .map(|c| (c.name.clone(), c.kind.word()))
                .collect(),
            container: chosen,
            has_run,
        }
    }
}

/// A stream the merge asks the view to open.
#[derive(Debug, Clone, PartialEq)]
pub struct Open {
    pub uid: String,
    pub pod: String,
    pub container: String,
    pub source: u16,
    /// The pod joined after the query started: read all of its log, not
    /// the query's tail or since, and mark where it joined.
    pub joined: bool,
}

/// What changed since the last plan.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Pods that went away: their UID and source, to close and mark.
    pub left: Vec<(String, u16)>,
    pub open: Vec<Open>,
    /// Pods not followed because of the cap, by name.
    pub over: Vec<String>,
}

/// The streams of one query (container, previous, since, tail, follow):
/// a source number per pod, kept while the pod stays, and the short names
/// lines are tagged with, by source.
#[derive(Debug, Clone, Default)]
pub struct Merge {
    owner: String,
    /// Pods followed now, by UID, with their source.
    open: BTreeMap<String, u16>,
    /// Every pod seen in this query, by name, with its source.
    sources: BTreeMap<String, u16>,
    names: Vec<String>,
    started: bool,
}

impl Merge {
    /// The merge of workload `owner`'s pods (its name shortens theirs).
    pub fn new(owner: impl Into<String>) -> Self {
        Self {
            owner: owner.into(),
            ..Self::default()
        }
    }

    /// The short names by source number.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// What to open and close for `members`, the workload's pods now, with
    /// at most `cap` streams; `previous` reads terminated containers, so a
    /// pod need not be running.
    pub fn plan(&mut self, members: &[Member], cap: usize, previous: bool) -> Plan {
        let mut plan = Plan::default();
        self.open.retain(|uid, src| {
            let here = members.iter().any(|m| m.uid == *uid);
            if !here {
                plan.left.push((uid.clone(), *src));
            }
            here
        });
        // The pods there when the query started get its tail; later ones all.
        let joined = self.started;
        for m in members {
            if self.open.contains_key(&m.uid) || !(m.has_run || previous) {
                continue;
            }
            let Some(container) = m.container.clone() else {
                continue;
            };
            if self.open.len() >= cap {
                plan.over.push(m.name.clone());
                continue;
            }
            // A pod made again under the same name (a StatefulSet's) keeps
            // its source; pods whose short names happen to match do not
            // share one.
            let source = match self.sources.get(&m.name) {
                Some(s) => *s,
                None => {
                    let s = self.names.len() as u16;
                    self.names
                        .push(short_pod_name(&m.name, &self.owner, m.hash.as_deref()));
                    self.sources.insert(m.name.clone(), s);
                    s
                }
            };
            self.open.insert(m.uid.clone(), source);
            plan.open.push(Open {
                uid: m.uid.clone(),
                pod: m.name.clone(),
                container,
                source,
                joined,
            });
        }
        if !plan.open.is_empty() {
            self.started = true;
        }
        plan
    }

    /// The line that says what is followed: "2 of 3 pods: a, b", and the
    /// pods the cap leaves out.
    pub fn summary(&self, members: usize, cap: usize, over: &[String]) -> String {
        let mut text = format!(
            "{} of {members} pods: {}",
            self.open.len(),
            self.names.join(", ")
        );
        if !over.is_empty() {
            text.push_str(&format!(
                " · not followed (at most {cap} streams at once): {}",
                over.join(", ")
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, uid: &str, state: Value) -> Value {
        json!({
            "metadata": {"name": name, "uid": uid, "labels": {"pod-template-hash": "7d9f"}},
            "spec": {"containers": [{"name": "app", "image": "a"}, {"name": "side", "image": "s"}]},
            "status": {"containerStatuses": [
                {"name": "app", "ready": true, "restartCount": 0, "state": state},
                {"name": "side", "ready": true, "restartCount": 0, "state": {"running": {}}}
            ]}
        })
    }

    fn running(name: &str, uid: &str) -> Member {
        Member::from_pod(&pod(name, uid, json!({"running": {}})), None)
    }

    #[test]
    fn a_member_follows_the_asked_container_else_the_default() {
        let p = pod("web-7d9f-a", "u1", json!({"running": {}}));
        assert_eq!(Member::from_pod(&p, None).container.as_deref(), Some("app"));
        assert_eq!(
            Member::from_pod(&p, Some("side")).container.as_deref(),
            Some("side")
        );
        assert_eq!(
            Member::from_pod(&p, Some("nope")).container.as_deref(),
            Some("app")
        );
        let m = Member::from_pod(&p, None);
        assert_eq!(m.hash.as_deref(), Some("7d9f"));
        assert_eq!(
            m.containers,
            vec![("app".into(), "app"), ("side".into(), "app")]
        );
    }

    #[test]
    fn a_waiting_container_has_no_log_yet() {
        let p = pod(
            "web-7d9f-a",
            "u1",
            json!({"waiting": {"reason": "ContainerCreating"}}),
        );
        assert!(!Member::from_pod(&p, None).has_run);
        assert!(Member::from_pod(&p, Some("side")).has_run);
        let mut merge = Merge::new("web");
        let m = [Member::from_pod(&p, None)];
        assert!(merge.plan(&m, 8, false).open.is_empty());
        // Previous logs are read from a terminated container, asked anyway.
        assert_eq!(merge.plan(&m, 8, true).open.len(), 1);
    }

    #[test]
    fn the_first_pods_get_the_tail_and_later_ones_join() {
        let mut merge = Merge::new("web");
        let a = running("web-7d9f-aaaaa", "u1");
        let b = running("web-7d9f-bbbbb", "u2");
        let plan = merge.plan(&[a.clone(), b.clone()], 8, false);
        assert_eq!(plan.open.len(), 2);
        assert!(plan.open.iter().all(|o| !o.joined));
        assert_eq!(merge.names(), ["aaaaa", "bbbbb"]);
        // Nothing changed: nothing to do.
        assert_eq!(
            merge.plan(&[a.clone(), b.clone()], 8, false),
            Plan::default()
        );
        let c = running("web-7d9f-ccccc", "u3");
        let plan = merge.plan(&[a.clone(), b.clone(), c], 8, false);
        assert_eq!(
            plan.open,
            vec![Open {
                uid: "u3".into(),
                pod: "web-7d9f-ccccc".into(),
                container: "app".into(),
                source: 2,
                joined: true
            }]
        );
        assert!(merge.summary(3, 8, &[]).starts_with("3 of 3 pods"));
    }

    #[test]
    fn a_pod_that_goes_away_leaves_with_its_source() {
        let mut merge = Merge::new("web");
        let a = running("web-7d9f-aaaaa", "u1");
        let b = running("web-7d9f-bbbbb", "u2");
        merge.plan(&[a.clone(), b], 8, false);
        let plan = merge.plan(&[a], 8, false);
        assert_eq!(plan.left, vec![("u2".to_string(), 1)]);
        assert!(plan.open.is_empty());
        assert!(merge.summary(1, 8, &[]).starts_with("1 of 1 pods"));
        // Its name stays, so its lines already shown keep their tag.
        assert_eq!(merge.names(), ["aaaaa", "bbbbb"]);
    }

    #[test]
    fn the_cap_leaves_pods_out_and_says_which() {
        let mut merge = Merge::new("web");
        let pods: Vec<Member> = (0..4)
            .map(|i| running(&format!("web-7d9f-p{i}"), &format!("u{i}")))
            .collect();
        let plan = merge.plan(&pods, 2, false);
        assert_eq!(plan.open.len(), 2);
        assert_eq!(plan.over, ["web-7d9f-p2", "web-7d9f-p3"]);
        assert_eq!(
            merge.summary(4, 2, &plan.over),
            "2 of 4 pods: p0, p1 · not followed (at most 2 streams at once): web-7d9f-p2, web-7d9f-p3"
        );
        // One leaves: the next one in takes its place, as a pod that joined.
        let plan = merge.plan(&pods[1..], 2, false);
        assert_eq!(plan.left, vec![("u0".to_string(), 0)]);
        assert_eq!(plan.open.len(), 1);
        assert_eq!(plan.open[0].pod, "web-7d9f-p2");
        assert!(plan.open[0].joined);
        assert_eq!(plan.over, ["web-7d9f-p3"]);
    }

    #[test]
    fn a_pod_made_again_keeps_its_source_and_lookalikes_get_their_own() {
        let mut merge = Merge::new("db");
        merge.plan(&[running("db-0", "u1")], 8, false);
        // db-0 is deleted and made again with a new UID.
        let plan = merge.plan(&[running("db-0", "u2")], 8, false);
        assert_eq!(plan.left, vec![("u1".to_string(), 0)]);
        assert_eq!(plan.open[0].source, 0);
        // Two ReplicaSets' pods with the same random suffix: same short
        // name, two sources.
        let mut merge = Merge::new("web");
        let a = Member::from_pod(&pod("web-7d9f-x1", "u1", json!({"running": {}})), None);
        let mut b = a.clone();
        b.name = "web-8e0a-x1".into();
        b.hash = Some("8e0a".into());
        b.uid = "u2".into();
        let plan = merge.plan(&[a, b], 8, false);
        assert_eq!(
            plan.open.iter().map(|o| o.source).collect::<Vec<_>>(),
            [0, 1]
        );
    }

    #[test]
    fn names_are_short_without_the_owner_and_hash() {
        let mut merge = Merge::new("web");
        let odd = Member::from_pod(&pod("other-pod", "u9", json!({"running": {}})), None);
        merge.plan(&[running("web-7d9f-x1", "u1"), odd], 8, false);
        assert_eq!(merge.names(), ["x1", "other-pod"]);
        assert_eq!(merge.summary(2, 8, &[]), "2 of 2 pods: x1, other-pod");
    }
}
