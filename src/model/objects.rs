//! Objects and their relations, read from untyped JSON: the overview's rows, owners, what a kind owns, conditions, and which actions a kind has.
//!
//! Deployments, nodes and namespaces are read as untyped objects: whole
//! objects watch over WebSocket (holding none of the browser's six
//! connections), and the typed `Deployment` would drag the whole `PodSpec`
//! deserializer into the wasm.

use std::collections::BTreeMap;

use kubeglass_client::cache::object_key;
use kubeglass_client::discovery::{Discovery, ResourceInfo};
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::rest::table::{TableColumn, TableRowObject};
use serde_json::Value;

use crate::model::time::{Seconds, parse_time};

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

/// `value` escaped for a field selector, as apimachinery's
/// `fields.EscapeValue` does (`\` `,` `=`), so a name cannot add terms.
pub fn field_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// An `apiVersion` split into group and version (`apps/v1` → `apps`, `v1`;
/// `v1` → ``, `v1`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

/// The resource an `apiVersion` and `kind` name (an owner reference, an
/// Event's involved object) as discovery maps them; an `apiVersion` with no
/// version (an Event may carry only `kind`) matches any served version.
pub fn resource_of<'a>(
    discovery: &'a Discovery,
    api_version: &str,
    kind: &str,
) -> Option<&'a ResourceInfo> {
    let (group, version) = split_api_version(api_version);
    let version = (!version.is_empty()).then_some(version);
    discovery.mapper().resource_for_kind(group, version, kind)
}

/// A number of replicas as a person typed it (spaces around allowed): a
/// whole number from 0 to 2^31 - 1, as `spec.replicas` holds; else what is
/// wrong with it, naming `target`.
pub fn parse_replicas(target: &str, text: &str) -> Result<i32, String> {
    match text.trim().parse::<i32>() {
        Ok(n) if n >= 0 => Ok(n),
        _ => Err(format!("{target}: “{text}” is not a number of replicas")),
    }
}

/// An object as JSON with its `apiVersion` and `kind` put back (listed
/// items carry none; the page knows them from discovery).
pub fn with_type_meta(object: &DynamicObject, api_version: &str, kind: &str) -> Value {
    let mut v = serde_json::Map::new();
    v.insert("apiVersion".into(), api_version.into());
    v.insert("kind".into(), kind.into());
    if let Ok(Value::Object(m)) = serde_json::to_value(object) {
        for (k, val) in m {
            if k != "apiVersion" && k != "kind" {
                v.insert(k, val);
            }
        }
    }
    Value::Object(v)
}

/// One owner reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerRef {
    /// The owner's apiVersion.
    pub api_version: String,
    /// Its kind.
    pub kind: String,
    /// Its name (in the owned object's namespace).
    pub name: String,
}

/// The owner references of `object` (as JSON).
pub fn owners(object: &Value) -> Vec<OwnerRef> {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .map(|refs| {
            refs.iter()
                .map(|r| {
                    let s = |k: &str| {
                        r.get(k)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    };
                    OwnerRef {
                        api_version: s("apiVersion"),
                        kind: s("kind"),
                        name: s("name"),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The `metadata.labels` or `metadata.annotations` (`field`) of `object` as
/// `(key, value)` pairs, in key order; non-string values read as empty.
pub fn string_map(object: &Value, field: &str) -> Vec<(String, String)> {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// One status condition.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// `type`.
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    /// `reason`.
    pub reason: String,
    /// `message`.
    pub message: String,
    /// `lastTransitionTime`, when it can be read.
    pub since: Option<Seconds>,
}

/// The `status.conditions` of `object`.
pub fn conditions(object: &Value) -> Vec<Condition> {
    object
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    let s = |k: &str| {
                        c.get(k)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    };
                    Condition {
                        type_: s("type"),
                        status: s("status"),
                        reason: s("reason"),
                        message: s("message"),
                        since: parse_time(&s("lastTransitionTime")),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// When `object` was created.
pub fn created(object: &Value) -> Option<Seconds> {
    object
        .pointer("/metadata/creationTimestamp")
        .and_then(Value::as_str)
        .and_then(parse_time)
}

/// Where the objects a kind owns live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Children {
    /// The child resource, as discovery resolves it (`replicasets.apps`).
    pub resource: &'static str,
    /// True for the pods on a node (found by field selector on
    /// `spec.nodeName`), false for owned objects (by owner reference).
    pub on_node: bool,
}

/// What objects of `info`'s kind own, if the app knows.
pub fn children_of(info: &ResourceInfo) -> Option<Children> {
    let owned = |resource| {
        Some(Children {
            resource,
            on_node: false,
        })
    };
    match (info.group.as_str(), info.plural.as_str()) {
        ("apps", "deployments") => owned("replicasets.apps"),
        ("apps", "replicasets" | "statefulsets" | "daemonsets") | ("batch", "jobs") => {
            owned("pods")
        }
        ("batch", "cronjobs") => owned("jobs.batch"),
        ("", "services") => owned("endpointslices.discovery.k8s.io"),
        ("", "nodes") => Some(Children {
            resource: "pods",
            on_node: true,
        }),
        _ => None,
    }
}

/// One owned object as the object page lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedRow {
    /// Its name.
    pub name: String,
    /// Its namespace.
    pub namespace: Option<String>,
    /// kubectl's columns for it, but the name and age: `Ready 1/1 · Status Running`.
    pub summary: String,
    /// When it was created.
    pub created: Option<Seconds>,
    /// Being deleted.
    pub deleting: bool,
}

impl OwnedRow {
    /// Reads one Table row, given the table's columns; rows sort by name.
    pub fn from_row(r: &TableRowObject, columns: &[TableColumn]) -> Self {
        let summary = columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.priority == 0 && c.name != "Name" && c.name != "Age")
            .map(|(i, c)| format!("{} {}", c.name, r.row.cell_text(i)))
            .collect::<Vec<_>>()
            .join(" · ");
        Self {
            name: r.metadata.name.clone().unwrap_or_default(),
            namespace: r.metadata.namespace.clone(),
            summary,
            created: r
                .metadata
                .creation_timestamp
                .as_ref()
                .map(|t| t.0.as_second() as f64),
            deleting: r.metadata.deletion_timestamp.is_some(),
        }
    }
}

/// The actions an object page may offer for a kind, before RBAC is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KindActions {
    /// `delete` is served.
    pub delete: bool,
    /// `patch` is served (labels; restart and cordon where they apply).
    pub patch: bool,
    /// It has a `scale` subresource.
    pub scale: bool,
    /// A rollout restart applies (Deployments, StatefulSets, DaemonSets).
    pub restart: bool,
    /// Cordon and uncordon apply (nodes).
    pub cordon: bool,
}

impl KindActions {
    /// What discovery says `info` supports.
    pub fn of(info: &ResourceInfo) -> Self {
        Self {
            delete: info.supports("delete"),
            patch: info.supports("patch"),
            scale: info.has_subresource("scale"),
            restart: info.group == "apps"
                && matches!(
                    info.plural.as_str(),
                    "deployments" | "statefulsets" | "daemonsets"
                ),
            cordon: info.group.is_empty() && info.plural == "nodes",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> DynamicObject {
        serde_json::from_value(v).expect("an object")
    }

    #[test]
    fn overview_rows_read_their_fields_and_defaults() {
        let d = DeploymentRow::from_object(&object(json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {}, "status": {"readyReplicas": 1}})));
        assert_eq!((d.key.as_str(), d.desired, d.ready), ("shop/web", 1, 1));
        let n = NodeRow::from_object(&object(json!({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "True"}]}})));
        assert_eq!((n.ready.as_str(), n.cordoned), ("True", true));
        let n = NodeRow::from_object(&object(
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}}),
        ));
        assert_eq!((n.ready.as_str(), n.cordoned), ("Unknown", false));
    }

    fn pod(name: &str, ns: &str, deleting: bool) -> TableRowObject {
        let mut meta = json!({"name": name, "namespace": ns, "resourceVersion": "1"});
        if deleting {
            meta["deletionTimestamp"] = json!("2026-11-30T10:00:00Z");
        }
        serde_json::from_value(json!({"cells": [name], "object": {"metadata": meta}})).expect("row")
    }

    #[test]
    fn pod_counts_follow_changes_and_skip_pods_being_deleted() {
        let mut c = PodCounts::default();
        c.apply("a/p1".into(), Some(&pod("p1", "a", false)));
        c.apply("a/p2".into(), Some(&pod("p2", "a", false)));
        c.apply("b/p3".into(), Some(&pod("p3", "b", false)));
        assert_eq!(
            (c.total(), c.in_namespace("a"), c.in_namespace("b")),
            (3, 2, 1)
        );
        c.apply("a/p1".into(), Some(&pod("p1", "a", true)));
        assert_eq!((c.total(), c.in_namespace("a")), (2, 1), "being deleted");
        c.apply("b/p3".into(), None);
        c.apply("b/never".into(), None);
        assert_eq!((c.total(), c.in_namespace("b")), (1, 0));
    }

    fn info(group: &str, plural: &str) -> ResourceInfo {
        serde_json::from_value(json!({"group": group, "version": "v1", "plural": plural,
            "singular": "", "kind": "K", "namespaced": true, "verbs": ["delete", "patch"],
            "short_names": [], "categories": [], "subresources": [], "preferred": true}))
        .expect("resource info")
    }

    #[test]
    fn an_api_version_and_kind_map_to_their_resource_with_or_without_a_version() {
        let mut i = info("apps", "deployments");
        i.kind = "Deployment".into();
        let d: Discovery = serde_json::from_value(json!({
            "groups": [], "resources": [i], "aggregated": true
        }))
        .expect("discovery");
        let name = |v: &str, k: &str| resource_of(&d, v, k).map(|r| r.qualified_name());
        assert_eq!(
            name("apps/v1", "Deployment").as_deref(),
            Some("deployments.apps")
        );
        assert_eq!(
            name("apps/", "Deployment").as_deref(),
            Some("deployments.apps"),
            "no version: any"
        );
        assert_eq!(
            name("apps/v2", "Deployment"),
            None,
            "a version the server does not serve"
        );
        assert_eq!(name("v1", "Deployment"), None, "another group");
    }

    #[test]
    fn replicas_are_a_whole_number_from_zero() {
        assert_eq!(parse_replicas("shop/web", " 3 "), Ok(3));
        assert_eq!(parse_replicas("shop/web", "0"), Ok(0));
        for bad in ["-1", "2.5", "three", "", "2147483648"] {
            assert_eq!(
                parse_replicas("shop/web", bad),
                Err(format!("shop/web: “{bad}” is not a number of replicas"))
            );
        }
    }

    #[test]
    fn children_and_actions_depend_on_the_kind() {
        let c = |g, p| children_of(&info(g, p));
        assert_eq!(
            c("apps", "deployments").map(|c| c.resource),
            Some("replicasets.apps")
        );
        assert_eq!(c("batch", "jobs").map(|c| c.resource), Some("pods"));
        assert_eq!(c("", "nodes").map(|c| c.on_node), Some(true));
        assert_eq!(c("", "configmaps"), None);
        let a = KindActions::of(&info("apps", "deployments"));
        assert!(a.delete && a.patch && a.restart && !a.cordon && !a.scale);
        let a = KindActions::of(&info("", "nodes"));
        assert!(a.cordon && !a.restart);
    }

    #[test]
    fn field_selector_values_cannot_add_terms() {
        assert_eq!(field_value("web-1"), "web-1");
        assert_eq!(field_value("x,metadata.name!=x"), "x\\,metadata.name!\\=x");
        assert_eq!(field_value("a\\b"), "a\\\\b");
    }

    #[test]
    fn owners_conditions_and_type_meta_read_from_json() {
        let v = json!({"metadata": {"name": "rs-1", "creationTimestamp": "2026-11-30T10:00:00Z",
            "labels": {"app": "web", "n": 1},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u"}]},
            "status": {"conditions": [{"type": "Available", "status": "True", "lastTransitionTime": "bad"}]}});
        assert_eq!(
            owners(&v),
            [OwnerRef {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                name: "web".into()
            }]
        );
        assert_eq!(split_api_version("apps/v1"), ("apps", "v1"));
        assert_eq!(split_api_version("v1"), ("", "v1"));
        let c = conditions(&v);
        assert_eq!((c[0].type_.as_str(), c[0].since), ("Available", None));
        assert_eq!(created(&v), Some(1_796_032_800.0));
        assert_eq!(
            string_map(&v, "labels"),
            [("app".into(), "web".into()), ("n".into(), String::new())]
        );
        let o = object(json!({"metadata": {"name": "x"}, "data": {"a": "1"}}));
        let typed = with_type_meta(&o, "v1", "ConfigMap");
        assert_eq!(
            (typed["apiVersion"].as_str(), typed["kind"].as_str()),
            (Some("v1"), Some("ConfigMap"))
        );
        assert_eq!(typed["data"]["a"], "1");
    }
}
