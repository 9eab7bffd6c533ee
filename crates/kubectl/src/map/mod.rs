//! The relationship map's rules: what each object says about the others
//! (`Item`, read here from its JSON), the graph joined from them with what
//! repeats folded into one node (`graph`), an object's neighbourhood to a
//! depth (`graph::near`), and a layout that keeps every node that stays
//! where it was (`layout`). No I/O: the app's map page only draws.
//!
//! Every edge is one the cluster states: an owner reference; a Service's,
//! and a NetworkPolicy's, selector over pods' labels; an Ingress's backend
//! Services; a pod's node, ServiceAccount, and the ConfigMaps, Secrets
//! (by name: a Secret is never read for the map) and claims its spec
//! names; a claim's volume and class, a volume's class; an HPA's target.
//! Events attach to their object as a count of warnings. An EndpointSlice
//! is never a node: it joins its Service to the pods its endpoints name
//! (so a Service without a selector, whose endpoints someone else writes,
//! still reaches its pods).

use std::collections::BTreeMap;

use crate::rbac::Selector;
use kube_core::DynamicObject;
use serde_json::Value;

pub mod graph;
pub mod layout;
pub mod trim;

/// The kinds the map draws, in the order of its columns left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// networking.k8s.io Ingress.
    Ingress,
    /// autoscaling HorizontalPodAutoscaler.
    Hpa,
    /// batch CronJob.
    CronJob,
    /// core Service.
    Service,
    /// apps Deployment.
    Deployment,
    /// apps StatefulSet.
    StatefulSet,
    /// apps DaemonSet.
    DaemonSet,
    /// apps ReplicaSet.
    ReplicaSet,
    /// batch Job.
    Job,
    /// networking.k8s.io NetworkPolicy.
    NetworkPolicy,
    /// An owner of a kind the map does not watch (a CRD's controller).
    Other,
    /// core Pod.
    Pod,
    /// core ConfigMap.
    ConfigMap,
    /// core Secret (its name only).
    Secret,
    /// core PersistentVolumeClaim.
    Claim,
    /// discovery.k8s.io EndpointSlice: never drawn, it joins a Service to
    /// the pods it names.
    EndpointSlice,
    /// core ServiceAccount.
    ServiceAccount,
    /// core Node.
    Node,
    /// core PersistentVolume.
    Volume,
    /// storage.k8s.io StorageClass.
    StorageClass,
}

impl Kind {
    /// The kind as the API names it in `kind` and owner references.
    pub fn api_kind(self) -> &'static str {
        self.info().0
    }

    /// The resource a link to such an object names (`deployments.apps`),
    /// none for an owner of a kind the map does not know.
    pub fn resource(self) -> Option<&'static str> {
        let r = self.info().1;
        (!r.is_empty()).then_some(r)
    }

    /// The map's column for the kind.
    pub fn column(self) -> usize {
        self.info().2
    }

    /// Cluster-scoped (no namespace in its id or link).
    pub fn cluster_scoped(self) -> bool {
        matches!(self, Kind::Node | Kind::Volume | Kind::StorageClass)
    }

    /// A kind many objects point at (a node, a ServiceAccount, a
    /// ConfigMap…): a neighbourhood ends there instead of spreading to
    /// every pod that shares it, unless the map is of it.
    pub fn is_hub(self) -> bool {
        matches!(
            self,
            Kind::Node | Kind::ServiceAccount | Kind::ConfigMap | Kind::Secret | Kind::StorageClass
        )
    }

    /// Kind, resource and column.
    fn info(self) -> (&'static str, &'static str, usize) {
        match self {
            Kind::Ingress => ("Ingress", "ingresses.networking.k8s.io", 0),
            Kind::Hpa => (
                "HorizontalPodAutoscaler",
                "horizontalpodautoscalers.autoscaling",
                0,
            ),
            Kind::CronJob => ("CronJob", "cronjobs.batch", 0),
            Kind::Service => ("Service", "services", 1),
            Kind::Deployment => ("Deployment", "deployments.apps", 1),
            Kind::StatefulSet => ("StatefulSet", "statefulsets.apps", 2),
            Kind::DaemonSet => ("DaemonSet", "daemonsets.apps", 2),
            Kind::ReplicaSet => ("ReplicaSet", "replicasets.apps", 2),
            Kind::Job => ("Job", "jobs.batch", 2),
            Kind::NetworkPolicy => ("NetworkPolicy", "networkpolicies.networking.k8s.io", 2),
            Kind::Other => ("", "", 2),
            Kind::Pod => ("Pod", "pods", 3),
            Kind::ConfigMap => ("ConfigMap", "configmaps", 4),
            Kind::Secret => ("Secret", "secrets", 4),
            Kind::Claim => ("PersistentVolumeClaim", "persistentvolumeclaims", 4),
            Kind::EndpointSlice => ("EndpointSlice", "endpointslices.discovery.k8s.io", 1),
            Kind::ServiceAccount => ("ServiceAccount", "serviceaccounts", 4),
            Kind::Node => ("Node", "nodes", 4),
            Kind::Volume => ("PersistentVolume", "persistentvolumes", 5),
            Kind::StorageClass => ("StorageClass", "storageclasses.storage.k8s.io", 6),
        }
    }

    /// The kind an owner reference or a target names (`apps/v1` and
    /// `Deployment`); `Other` for one the map does not know.
    pub fn from_api(api_version: &str, kind: &str) -> Kind {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        ALL.iter()
            .copied()
            .find(|k| k.api_kind() == kind && k.resource().is_some_and(|r| group_of(r) == group))
            .unwrap_or(Kind::Other)
    }

    /// The kind a link's resource names (`deployments.apps`).
    pub fn from_resource(resource: &str) -> Option<Kind> {
        ALL.iter().copied().find(|k| k.resource() == Some(resource))
    }
}

/// The group of a `plural.group` resource.
fn group_of(resource: &str) -> &str {
    resource.split_once('.').map_or("", |(_, g)| g)
}

/// Every kind the map draws, in column order: those a link or an owner
/// reference can name. (`EndpointSlice` is not one: it is read for the
/// edges it adds, and no object page offers a map of it.)
pub const ALL: &[Kind] = &[
    Kind::Ingress,
    Kind::Hpa,
    Kind::CronJob,
    Kind::Service,
    Kind::Deployment,
    Kind::StatefulSet,
    Kind::DaemonSet,
    Kind::ReplicaSet,
    Kind::Job,
    Kind::NetworkPolicy,
    Kind::Other,
    Kind::Pod,
    Kind::ConfigMap,
    Kind::Secret,
    Kind::Claim,
    Kind::ServiceAccount,
    Kind::Node,
    Kind::Volume,
    Kind::StorageClass,
];

/// How an object is doing, as a colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Health {
    /// Nothing to say (most kinds).
    #[default]
    Plain,
    /// Running and ready; a bound claim.
    Good,
    /// Pending, or running but not ready.
    Waiting,
    /// Failed; a lost claim.
    Bad,
    /// Succeeded.
    Done,
}

/// An owner reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    /// Its kind.
    pub kind: Kind,
    /// The kind as the reference names it (for `Other`).
    pub kind_name: String,
    /// Its name (in the owned object's namespace).
    pub name: String,
    /// Its UID.
    pub uid: String,
    /// The managing controller.
    pub controller: bool,
}

/// What one object says about the others.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Item {
    /// Its kind.
    pub kind: Option<Kind>,
    /// Its namespace, none when cluster-scoped.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
    /// Its UID.
    pub uid: String,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
    /// Its owner references.
    pub owners: Vec<Owner>,
    /// Its colour.
    pub health: Health,
    /// The objects its spec names: (kind, name), in its namespace unless
    /// the kind is cluster-scoped.
    pub refs: Vec<(Kind, String)>,
    /// The pods it selects (a Service's, a NetworkPolicy's).
    pub selects: Option<Selector>,
    /// An EndpointSlice's Service (its `kubernetes.io/service-name` label)
    /// and the UIDs of the pods its endpoints name.
    pub endpoints: Option<(String, Vec<String>)>,
}

/// An Event's object and whether it warns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventMark {
    /// The involved object's UID.
    pub uid: String,
    /// A Warning (else Normal).
    pub warning: bool,
    /// How many times it happened.
    pub count: u32,
}

fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(v, |v, k| v.get(k))?
        .as_str()
        .filter(|s| !s.is_empty())
}

fn array<'a>(v: &'a Value, path: &[&str]) -> &'a [Value] {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

impl Item {
    /// Reads what `o`, an object of `kind`, says about the others.
    pub fn read(kind: Kind, o: &DynamicObject) -> Item {
        let m = &o.metadata;
        let owners = m
            .owner_references
            .iter()
            .flatten()
            .map(|r| Owner {
                kind: Kind::from_api(&r.api_version, &r.kind),
                kind_name: r.kind.clone(),
                name: r.name.clone(),
                uid: r.uid.clone(),
                controller: r.controller == Some(true),
            })
            .collect();
        let mut item = Item {
            kind: Some(kind),
            namespace: m.namespace.clone(),
            name: m.name.clone().unwrap_or_default(),
            uid: m.uid.clone().unwrap_or_default(),
            labels: m.labels.clone().unwrap_or_default(),
            owners,
            ..Item::default()
        };
        let d = &o.data;
        match kind {
            Kind::Pod => read_pod(&mut item, d),
            Kind::Service => {
                let labels: BTreeMap<String, String> = d
                    .pointer("/spec/selector")
                    .and_then(|s| serde_json::from_value(s.clone()).ok())
                    .unwrap_or_default();
                // A Service without a selector selects nothing (its
                // endpoints are someone else's to write).
                item.selects = (!labels.is_empty()).then(|| Selector {
                    match_labels: labels,
                    match_expressions: Vec::new(),
                });
            }
            Kind::NetworkPolicy => {
                // An empty podSelector selects every pod of its namespace.
                item.selects = Some(
                    d.pointer("/spec/podSelector")
                        .and_then(|s| serde_json::from_value(s.clone()).ok())
                        .unwrap_or_default(),
                );
            }
            Kind::Ingress => read_ingress(&mut item, d),
            Kind::Hpa => {
                if let (Some(k), Some(n)) = (
                    text(d, &["spec", "scaleTargetRef", "kind"]),
                    text(d, &["spec", "scaleTargetRef", "name"]),
                ) {
                    let api = text(d, &["spec", "scaleTargetRef", "apiVersion"]).unwrap_or("");
                    item.refs.push((Kind::from_api(api, k), n.to_string()));
                }
            }
            Kind::Claim => read_claim(&mut item, d),
            Kind::Volume => {
                if let Some(c) = text(d, &["spec", "storageClassName"]) {
                    item.refs.push((Kind::StorageClass, c.to_string()));
                }
            }
            Kind::EndpointSlice => {
                let service = item
                    .labels
                    .get(SERVICE_NAME)
                    .cloned()
                    .filter(|s| !s.is_empty());
                item.endpoints = service.map(|s| (s, endpoint_pods(d)));
            }
            _ => {}
        }
        item
    }
}

/// A pod's node, ServiceAccount, volumes' and containers' ConfigMaps,
/// Secrets and claims, and its colour.
fn read_pod(item: &mut Item, d: &Value) {
    let mut refs = Vec::new();
    if let Some(n) = text(d, &["spec", "nodeName"]) {
        refs.push((Kind::Node, n.to_string()));
    }
    refs.push((
        Kind::ServiceAccount,
        text(d, &["spec", "serviceAccountName"])
            .unwrap_or("default")
            .to_string(),
    ));
    for v in array(d, &["spec", "volumes"]) {
        if let Some(n) = text(v, &["configMap", "name"]) {
            refs.push((Kind::ConfigMap, n.to_string()));
        }
        if let Some(n) = text(v, &["secret", "secretName"]) {
            refs.push((Kind::Secret, n.to_string()));
        }
        if let Some(n) = text(v, &["persistentVolumeClaim", "claimName"]) {
            refs.push((Kind::Claim, n.to_string()));
        }
        for s in array(v, &["projected", "sources"]) {
            if let Some(n) = text(s, &["configMap", "name"]) {
                refs.push((Kind::ConfigMap, n.to_string()));
            }
            if let Some(n) = text(s, &["secret", "name"]) {
                refs.push((Kind::Secret, n.to_string()));
            }
        }
    }
    for c in array(d, &["spec", "containers"])
        .iter()
        .chain(array(d, &["spec", "initContainers"]))
    {
        for f in array(c, &["envFrom"]) {
            if let Some(n) = text(f, &["configMapRef", "name"]) {
                refs.push((Kind::ConfigMap, n.to_string()));
            }
            if let Some(n) = text(f, &["secretRef", "name"]) {
                refs.push((Kind::Secret, n.to_string()));
            }
        }
        for e in array(c, &["env"]) {
            if let Some(n) = text(e, &["valueFrom", "configMapKeyRef", "name"]) {
                refs.push((Kind::ConfigMap, n.to_string()));
            }
            if let Some(n) = text(e, &["valueFrom", "secretKeyRef", "name"]) {
                refs.push((Kind::Secret, n.to_string()));
            }
        }
    }
    for s in array(d, &["spec", "imagePullSecrets"]) {
        if let Some(n) = text(s, &["name"]) {
            refs.push((Kind::Secret, n.to_string()));
        }
    }
    refs.sort();
    refs.dedup();
    item.refs = refs;
    let ready = array(d, &["status", "conditions"])
        .iter()
        .any(|c| text(c, &["type"]) == Some("Ready") && text(c, &["status"]) == Some("True"));
    item.health = match text(d, &["status", "phase"]) {
        Some("Running") if ready => Health::Good,
        Some("Running") | Some("Pending") | None => Health::Waiting,
        Some("Succeeded") => Health::Done,
        Some(_) => Health::Bad,
    };
}

/// A claim's volume (or, unbound, its class) and its colour.
fn read_claim(item: &mut Item, d: &Value) {
    if let Some(v) = text(d, &["spec", "volumeName"]) {
        item.refs.push((Kind::Volume, v.to_string()));
    } else if let Some(c) = text(d, &["spec", "storageClassName"]) {
        item.refs.push((Kind::StorageClass, c.to_string()));
    }
    item.health = match text(d, &["status", "phase"]) {
        Some("Bound") => Health::Good,
        Some("Pending") => Health::Waiting,
        Some("Lost") => Health::Bad,
        _ => Health::Plain,
    };
}

/// The label an EndpointSlice names its Service by.
pub const SERVICE_NAME: &str = "kubernetes.io/service-name";

/// The UIDs of the pods an EndpointSlice's endpoints name.
fn endpoint_pods(d: &Value) -> Vec<String> {
    let mut uids: Vec<String> = array(d, &["endpoints"])
        .iter()
        .filter(|e| text(e, &["targetRef", "kind"]) == Some("Pod"))
        .filter_map(|e| text(e, &["targetRef", "uid"]).map(str::to_string))
        .collect();
    uids.sort();
    uids.dedup();
    uids
}

/// An Ingress's backend Services (the default backend and every rule's path).
fn read_ingress(item: &mut Item, d: &Value) {
    let mut refs = Vec::new();
    if let Some(n) = text(d, &["spec", "defaultBackend", "service", "name"]) {
        refs.push((Kind::Service, n.to_string()));
    }
    for r in array(d, &["spec", "rules"]) {
        for p in array(r, &["http", "paths"]) {
            if let Some(n) = text(p, &["backend", "service", "name"]) {
                refs.push((Kind::Service, n.to_string()));
            }
        }
    }
    refs.sort();
    refs.dedup();
    item.refs = refs;
}

/// An Event's involved object and whether it warns.
pub fn event_mark(o: &DynamicObject) -> Option<EventMark> {
    let d = &o.data;
    let uid = text(d, &["involvedObject", "uid"]).or_else(|| text(d, &["regarding", "uid"]))?;
    let count = d
        .get("count")
        .and_then(Value::as_u64)
        .filter(|c| *c > 0)
        .unwrap_or(1);
    Some(EventMark {
        uid: uid.to_string(),
        warning: text(d, &["type"]) == Some("Warning"),
        count: u32::try_from(count).unwrap_or(u32::MAX),
    })
}
