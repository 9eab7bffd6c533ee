//! What the map watches: one informer per kind it joins, each object cut
//! as it is decoded to the few fields the map reads (`trimmed`, with
//! `kubeglass_kubectl::map::trim`), each
//! row the `Item` the rules read from it. Secrets are never watched: a
//! Secret is on the map by the name a pod gives it. Nodes, ConfigMaps,
//! ServiceAccounts and StorageClasses are too (names the others give).
//! EndpointSlices are read for their Service and their pods' UIDs only.

use std::collections::BTreeMap;
use std::sync::Arc;

use kubeglass_client::k8s_openapi::api::{apps::v1 as apps, autoscaling::v2 as autoscaling, batch::v1 as batch, core::v1 as core, discovery::v1 as discovery, networking::v1 as networking};
use kubeglass_client::kube_core::{DynamicObject, Resource};
use kubeglass_kubectl::map::trim::{trim_event, trim_lean, trim_pod, trim_slice, trim_to_metadata};
use kubeglass_kubectl::map::{EventMark, Item, Kind, event_mark};
use leptos::prelude::*;

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
        add("map-endpointslices", path::<discovery::EndpointSlice>(kube, ns), Kind::EndpointSlice, ("map-slice", trim_slice));
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
