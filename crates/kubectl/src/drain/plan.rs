//! Which pods a drain evicts, as `kubectl drain`'s filters decide: a
//! DaemonSet's pods and mirror (static) pods are left alone, and a pod with
//! no controller or with `emptyDir` data stops the drain unless the person
//! ticked the box kubectl has a flag for (`--force`,
//! `--delete-emptydir-data`). A pod that has finished (Succeeded or Failed)
//! is evicted whatever it is, as kubectl evicts it: nothing is lost.

use serde_json::Value;

/// What the person allowed, as kubectl's flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Allow {
    /// `--force`: evict pods no controller will replace.
    pub unmanaged: bool,
    /// `--delete-emptydir-data`: evict pods whose `emptyDir` data is lost.
    pub emptydir_data: bool,
}

/// Why a pod is left where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// A DaemonSet's pod (its controller would put it back at once).
    DaemonSet,
    /// A static pod the kubelet runs (`kubernetes.io/config.mirror`).
    Mirror,
}

impl Left {
    /// Words for the person.
    pub fn words(self) -> &'static str {
        match self {
            Left::DaemonSet => "left alone: a DaemonSet's pod",
            Left::Mirror => "left alone: a static (mirror) pod",
        }
    }
}

/// Why a pod stops the drain, until its box is ticked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocker {
    /// No controller: nothing would replace it (`--force`).
    Unmanaged,
    /// It has `emptyDir` volumes, whose data would be lost (`--delete-emptydir-data`).
    EmptyDir,
}

impl Blocker {
    /// kubectl's words.
    pub fn words(self) -> &'static str {
        match self {
            Blocker::Unmanaged => {
                "declares no controller (tick “pods with no controller” to evict it)"
            }
            Blocker::EmptyDir => {
                "has local storage, emptyDir (tick “delete emptyDir data” to evict it)"
            }
        }
    }
}

/// What the drain does with one pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Evict it.
    Evict,
    /// Leave it.
    Leave(Left),
    /// It stops the drain.
    Blocked(Vec<Blocker>),
}

/// The plan for `pod` (a Pod as JSON) under `allow`.
pub fn plan(pod: &Value, allow: Allow) -> Plan {
    let meta = &pod["metadata"];
    if meta["annotations"]["kubernetes.io/config.mirror"].is_string() {
        return Plan::Leave(Left::Mirror);
    }
    let controller = meta["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|o| o["controller"].as_bool() == Some(true));
    if controller.is_some_and(|c| c["kind"] == "DaemonSet") {
        return Plan::Leave(Left::DaemonSet);
    }
    if matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    ) {
        return Plan::Evict;
    }
    let mut blockers = Vec::new();
    if controller.is_none() && !allow.unmanaged {
        blockers.push(Blocker::Unmanaged);
    }
    let empty_dir = pod["spec"]["volumes"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|v| v["emptyDir"].is_object());
    if empty_dir && !allow.emptydir_data {
        blockers.push(Blocker::EmptyDir);
    }
    if blockers.is_empty() {
        Plan::Evict
    } else {
        Plan::Blocked(blockers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(owner: Option<&str>, extra: Value) -> Value {
        let mut p = json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": {}, "status": {"phase": "Running"}});
        if let Some(kind) = owner {
            p["metadata"]["ownerReferences"] =
                json!([{"kind": kind, "name": "x", "controller": true}]);
        }
        if let Some(v) = extra.get("volumes") {
            p["spec"]["volumes"] = v.clone();
        }
        if let Some(a) = extra.get("annotations") {
            p["metadata"]["annotations"] = a.clone();
        }
        if let Some(ph) = extra.get("phase") {
            p["status"]["phase"] = ph.clone();
        }
        p
    }

    #[test]
    fn kubectls_filters() {
        let none = Allow::default();
        assert_eq!(plan(&pod(Some("ReplicaSet"), json!({})), none), Plan::Evict);
        assert_eq!(
            plan(&pod(Some("DaemonSet"), json!({})), none),
            Plan::Leave(Left::DaemonSet)
        );
        let mirror = json!({"annotations": {"kubernetes.io/config.mirror": "abc"}});
        assert_eq!(plan(&pod(None, mirror), none), Plan::Leave(Left::Mirror));
        // Finished: evicted without --force or --delete-emptydir-data, as kubectl does.
        let done = json!({"phase": "Succeeded", "volumes": [{"name": "tmp", "emptyDir": {}}]});
        assert_eq!(plan(&pod(None, done), none), Plan::Evict);
        let scratch = json!({"volumes": [{"name": "tmp", "emptyDir": {}}]});
        assert_eq!(
            plan(&pod(None, scratch.clone()), none),
            Plan::Blocked(vec![Blocker::Unmanaged, Blocker::EmptyDir])
        );
        let both = Allow {
            unmanaged: true,
            emptydir_data: true,
        };
        assert_eq!(plan(&pod(None, scratch.clone()), both), Plan::Evict);
        assert_eq!(
            plan(
                &pod(Some("ReplicaSet"), scratch),
                Allow {
                    unmanaged: true,
                    emptydir_data: false
                }
            ),
            Plan::Blocked(vec![Blocker::EmptyDir])
        );
        // An owner that is not the controller does not count.
        let mut p = pod(None, json!({}));
        p["metadata"]["ownerReferences"] = json!([{"kind": "ReplicaSet", "name": "x"}]);
        assert_eq!(plan(&p, none), Plan::Blocked(vec![Blocker::Unmanaged]));
    }
}
