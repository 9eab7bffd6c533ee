//! What the map watches: one informer per kind it joins, each object cut
//! as it is decoded to the few fields the map reads (`trimmed`), each
//! row the `Item` the rules read from it. Secrets are never watched: a
//! Secret is on the map by the name a pod gives it. Nodes, ConfigMaps,
//! ServiceAccounts and StorageClasses are too (names the others give).

use std::collections::BTreeMap;
use std::sync::Arc;

use kubeglass_client::k8s_openapi::api::{apps::v1 as apps, autoscaling::v2 as autoscaling, batch::v1 as batch, core::v1 as core, networking::v1 as networking};
use kubeglass_client::kube_core::{DynamicObject, Resource};
use kubeglass_kubectl::map::{EventMark, Item, Kind, event_mark};
use leptos::prelude::*;
use serde_json::{Map, Value};

use crate::kube::Kube;
use crate::kube::subscribe::{InformerSnapshot, Watch, collection_path};
use crate::rules::problem::Problem;

/// One kind's rows, by key.
pub type Rows = RwSignal<BTreeMap<String, Arc<Item>>>;

/// The map's informers and what they hold.
pub struct Feed {
    /// Each kind's rows.
    pub rows: Vec<Rows>,
    /// The Events' marks.
    pub events: RwSignal<BTreeMap<String, Option<EventMark>>>,
    /// Each informer's name and status.
    pub statuses: Vec<(&'static str, RwSignal<InformerSnapshot>)>,
    /// Kinds that could not be watched, and why.
    pub refused: Vec<(&'static str, Problem)>,
    /// Held while the map is shown.
    _watches: StoredValue<Vec<Watch<DynamicObject>>, LocalStorage>,
}

/// Only the fields at `keep` (each a path of keys) of `v`.
fn keep_fields(v: &Value, keep: &[&[&str]]) -> Value {
    let mut out = Value::Object(Map::new());
    for path in keep {
        let Some(found) = path.iter().try_fold(v, |v, k| v.get(k)) else { continue };
        let mut at = &mut out;
        for (n, k) in path.iter().enumerate() {
            let Some(map) = at.as_object_mut() else { break };
            let next = if n + 1 == path.len() { found.clone() } else { Value::Object(Map::new()) };
            at = map.entry(k.to_string()).or_insert(next);
        }
    }
    out
}

/// Metadata without annotations or managedFields.
fn lean_metadata(o: &mut DynamicObject) {
    o.metadata.annotations = None;
    o.metadata.managed_fields = None;
}

/// A workload: its metadata is all the map reads (owners, labels).
fn trim_to_metadata(mut o: DynamicObject) -> DynamicObject {
    lean_metadata(&mut o);
    o.data = Value::Object(Map::new());
    o
}

/// A pod: its node, ServiceAccount, volumes, containers' references and state.
fn trim_pod(mut o: DynamicObject) -> DynamicObject {
    lean_metadata(&mut o);
    let mut kept = keep_fields(
        &o.data,
        &[&["spec", "nodeName"], &["spec", "serviceAccountName"], &["spec", "volumes"], &["spec", "imagePullSecrets"], &["status", "phase"], &["status", "conditions"]],
    );
    for list in ["containers", "initContainers"] {
        let containers: Vec<Value> = o
            .data
            .pointer(&format!("/spec/{list}"))
            .and_then(Value::as_array)
            .map(|cs| cs.iter().map(trim_container).collect())
            .unwrap_or_default();
        if let Some(spec) = kept.get_mut("spec").and_then(Value::as_object_mut) {
            spec.insert(list.into(), Value::Array(containers));
        }
    }
    o.data = kept;
    o
}

/// A container's name, `envFrom` and the references of its `env` (never a
/// variable's value: the cut object may be saved for the next visit).
fn trim_container(c: &Value) -> Value {
    let mut out = keep_fields(c, &[&["name"], &["envFrom"]]);
    let env: Vec<Value> = c
        .get("env")
        .and_then(Value::as_array)
        .map(|env| env.iter().filter(|e| e.get("valueFrom").is_some()).map(|e| keep_fields(e, &[&["name"], &["valueFrom"]])).collect())
        .unwrap_or_default();
    if let Some(o) = out.as_object_mut() {
        o.insert("env".into(), Value::Array(env));
    }
    out
}

/// An Event: its object's UID, type and count.
fn trim_event(mut o: DynamicObject) -> DynamicObject {
    lean_metadata(&mut o);
    o.metadata.labels = None;
    o.data = keep_fields(&o.data, &[&["involvedObject", "uid"], &["regarding", "uid"], &["type"], &["count"]]);
    o
}

/// Objects whose spec the map reads (a Service's selector…), kept whole
/// but for annotations and managedFields.
fn trim_lean(mut o: DynamicObject) -> DynamicObject {
    lean_metadata(&mut o);
    o
}

impl Feed {
    /// Watches every kind the map joins in `namespace` (None: all).
    pub fn start(kube: &Kube, namespace: Option<&str>) -> Feed {
        let mut feed = Feed {
            rows: Vec::new(),
            events: RwSignal::new(BTreeMap::new()),
            statuses: Vec::new(),
            refused: Vec::new(),
            _watches: StoredValue::new_local(Vec::new()),
        };
        let ns = namespace;
        let mut watches = Vec::new();
        let mut add = |name: &'static str, path: Result<String, Problem>, kind: Kind, trim: (&'static str, fn(DynamicObject) -> DynamicObject)| {
            let path = match path {
                Ok(p) => p,
                Err(p) => return feed.refused.push((name, p)),
            };
            let rows: Rows = RwSignal::new(BTreeMap::new());
            let watch = kube.subscribe(name, &path).trimmed(trim.0, trim.1).rows(rows, move |o| Arc::new(Item::read(kind, o)));
            feed.statuses.push((name, watch.status()));
            feed.rows.push(rows);
            watches.push(watch);
        };
        let meta = ("map-metadata", trim_to_metadata as fn(DynamicObject) -> DynamicObject);
        let lean = ("map-lean", trim_lean as fn(DynamicObject) -> DynamicObject);
        add("map-pods", path::<core::Pod>(kube, ns), Kind::Pod, ("map-pod", trim_pod));
        add("map-services", path::<core::Service>(kube, ns), Kind::Service, lean);
        add("map-ingresses", path::<networking::Ingress>(kube, ns), Kind::Ingress, lean);
        add("map-networkpolicies", path::<networking::NetworkPolicy>(kube, ns), Kind::NetworkPolicy, lean);
        add("map-hpas", path::<autoscaling::HorizontalPodAutoscaler>(kube, ns), Kind::Hpa, lean);
        add("map-claims", path::<core::PersistentVolumeClaim>(kube, ns), Kind::Claim, lean);
        add("map-volumes", path::<core::PersistentVolume>(kube, None), Kind::Volume, lean);
        add("map-deployments", path::<apps::Deployment>(kube, ns), Kind::Deployment, meta);
        add("map-replicasets", path::<apps::ReplicaSet>(kube, ns), Kind::ReplicaSet, meta);
        add("map-statefulsets", path::<apps::StatefulSet>(kube, ns), Kind::StatefulSet, meta);
        add("map-daemonsets", path::<apps::DaemonSet>(kube, ns), Kind::DaemonSet, meta);
        add("map-jobs", path::<batch::Job>(kube, ns), Kind::Job, meta);
        add("map-cronjobs", path::<batch::CronJob>(kube, ns), Kind::CronJob, meta);
        match path::<core::Event>(kube, ns) {
            Ok(p) => {
                let watch = kube.subscribe("map-events", &p).trimmed("map-event", trim_event).rows(feed.events, event_mark);
                feed.statuses.push(("map-events", watch.status()));
                watches.push(watch);
            }
            Err(p) => feed.refused.push(("map-events", p)),
        }
        feed._watches = StoredValue::new_local(watches);
        feed
    }
}

fn path<K: Resource<DynamicType = ()>>(kube: &Kube, namespace: Option<&str>) -> Result<String, Problem> {
    collection_path::<K>(kube, namespace)
}
