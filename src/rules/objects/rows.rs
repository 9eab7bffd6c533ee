//! The overview's rows: deployments, nodes, namespaces and pod counts, each read once from its object.

use kubeglass_client::cache::object_key;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::rest::table::TableRowObject;
use serde_json::Value;
use std::collections::BTreeMap;

use super::conditions;

/// One Deployment as the overview shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeploymentRow {
    /// `namespace/name`.
    pub key: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `spec.replicas` (1 when unset, as the API defaults it).
    pub desired: i32,
    /// `status.readyReplicas`.
    pub ready: i32,
}

impl DeploymentRow {
    /// Reads a Deployment.
    pub fn from_object(d: &DynamicObject) -> Self {
        let int = |p: &str, default: i64| {
            d.data
                .pointer(p)
                .and_then(Value::as_i64)
                .unwrap_or(default)
                .clamp(0, i64::from(i32::MAX)) as i32
        };
        Self {
            key: object_key(d),
            namespace: d.metadata.namespace.clone().unwrap_or_default(),
            name: d.metadata.name.clone().unwrap_or_default(),
            desired: int("/spec/replicas", 1),
            ready: int("/status/readyReplicas", 0),
        }
    }
}

/// One node as the overview shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRow {
    /// Name.
    pub name: String,
    /// The Ready condition's status (`True`, `False`, `Unknown`).
    pub ready: String,
    /// `spec.unschedulable` (cordoned).
    pub cordoned: bool,
}

impl NodeRow {
    /// Reads a Node.
    pub fn from_object(n: &DynamicObject) -> Self {
        let ready = conditions(&n.data)
            .into_iter()
            .find(|c| c.type_ == "Ready")
            .map_or_else(|| "Unknown".to_string(), |c| c.status);
        Self {
            name: n.metadata.name.clone().unwrap_or_default(),
            ready,
            cordoned: n
                .data
                .pointer("/spec/unschedulable")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }
    }
}

/// One namespace as the overview and the namespace menu show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceRow {
    /// Its name.
    pub name: String,
    /// Its phase (`Active`, `Terminating`).
    pub phase: String,
}

impl NamespaceRow {
    /// Reads a Namespace.
    pub fn from_object(n: &DynamicObject) -> Self {
        Self {
            name: n.metadata.name.clone().unwrap_or_default(),
            phase: n
                .data
                .pointer("/status/phase")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        }
    }
}

/// Pods per namespace, kept change by change; pods being deleted
/// (deletionTimestamp set) are not counted, so a scale-down shows at once,
/// not after the grace period.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PodCounts {
    /// Key → namespace of every counted pod.
    counted: BTreeMap<String, String>,
    /// Namespace → pods.
    by_namespace: BTreeMap<String, usize>,
}

impl PodCounts {
    /// The pod `key` is now `pod` (None: gone).
    pub fn apply(&mut self, key: String, pod: Option<&TableRowObject>) {
        if let Some(ns) = self.counted.remove(&key)
            && let Some(n) = self.by_namespace.get_mut(&ns)
        {
            *n -= 1;
            if *n == 0 {
                self.by_namespace.remove(&ns);
            }
        }
        if let Some(p) = pod.filter(|p| p.metadata.deletion_timestamp.is_none()) {
            let ns = p.metadata.namespace.clone().unwrap_or_default();
            *self.by_namespace.entry(ns.clone()).or_default() += 1;
            self.counted.insert(key, ns);
        }
    }

    /// Pods counted.
    pub fn total(&self) -> usize {
        self.counted.len()
    }

    /// Pods counted in `namespace`.
    pub fn in_namespace(&self, namespace: &str) -> usize {
        self.by_namespace.get(namespace).copied().unwrap_or(0)
    }
}
