//! Deployments with scale actions, and the live event stream.
//!
//! Both come from reflectors through frame queues (at most one view update
//! per animation frame); scaling goes through the client's rate-limited
//! action queue and is recorded as a Kubernetes Event by kubeglass.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use k8s_openapi::api::core::v1::Event;
use kubeglass_client::actions::{Action, ActionKind, ActionQueue, ActionResult};
use kubeglass_client::cache::{Change, Reflector, ReflectorConfig, Store, object_key};
use kubeglass_client::clock::Clock;
use kubeglass_client::kube_core::{ApiResource, DynamicObject, GroupVersionKind};
use kubeglass_client::reconnect::Reconnect;
use kubeglass_client::record::{ApiSink, EventBroadcaster};
use kubeglass_client::rest::RestClient;
use kubeglass_client::typed::DynamicExt;
use kubeglass_web::{FrameQueue, spawn};
use leptos::prelude::*;

/// Events shown in the stream (newest first).
const EVENTS_SHOWN: usize = 200;

/// One Deployment as the overview shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeploymentRow {
    /// `namespace/name`.
    pub key: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `spec.replicas`.
    pub desired: i32,
    /// `status.readyReplicas`.
    pub ready: i32,
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

fn node_row(n: &DynamicObject) -> NodeRow {
    let ready = n
        .conditions()
        .into_iter()
        .find(|c| c.type_ == "Ready")
        .map(|c| c.status)
        .unwrap_or_else(|| "Unknown".into());
    NodeRow {
        name: n.metadata.name.clone().unwrap_or_default(),
        ready,
        cordoned: n
            .field("spec.unschedulable")
            .and_then(|v| v.as_bool())
            .unwrap_or(false),
    }
}

/// One Event in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    /// `namespace/name` of the Event object.
    pub key: String,
    /// `Normal` or `Warning`.
    pub type_: String,
    /// Reason.
    pub reason: String,
    /// `kind/name` of the involved object.
    pub object: String,
    /// Namespace.
    pub namespace: String,
    /// Message (text, never markup).
    pub message: String,
    /// How many times it happened.
    pub count: i32,
    /// Last seen, seconds since the epoch (for sorting and ages).
    pub last_seen: i64,
    /// Who reported it.
    pub source: String,
}

/// Deployments are read as untyped objects: the typed `Deployment` drags in
/// the whole `PodSpec` deserializer, which more than doubled the wasm.
fn deployment_row(d: &DynamicObject) -> DeploymentRow {
    let int = |path: &str, default: i64| d.field(path).and_then(|v| v.as_i64()).unwrap_or(default);
    DeploymentRow {
        key: object_key(d),
        namespace: d.metadata.namespace.clone().unwrap_or_default(),
        name: d.metadata.name.clone().unwrap_or_default(),
        desired: int("spec.replicas", 1) as i32,
        ready: int("status.readyReplicas", 0) as i32,
    }
}

fn event_row(e: &Event) -> EventRow {
    let o = &e.involved_object;
    let seconds = |t: &Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>| {
        t.as_ref().map(|t| t.0.as_second())
    };
    let last_seen = seconds(&e.last_timestamp)
        .or_else(|| e.event_time.as_ref().map(|t| t.0.as_second()))
        .or_else(|| seconds(&e.first_timestamp))
        .or_else(|| seconds(&e.metadata.creation_timestamp))
        .unwrap_or(0);
    EventRow {
        key: object_key(e),
        type_: e.type_.clone().unwrap_or_else(|| "Normal".into()),
        reason: e.reason.clone().unwrap_or_default(),
        object: format!(
            "{}/{}",
            o.kind.as_deref().unwrap_or("?").to_ascii_lowercase(),
            o.name.as_deref().unwrap_or("?")
        ),
        namespace: e.metadata.namespace.clone().unwrap_or_default(),
        message: e.message.clone().unwrap_or_default(),
        count: e
            .count
            .or(e.series.as_ref().and_then(|s| s.count))
            .unwrap_or(1),
        last_seen,
        source: e
            .reporting_component
            .clone()
            .filter(|s| !s.is_empty())
            .or_else(|| e.source.as_ref().and_then(|s| s.component.clone()))
            .unwrap_or_default(),
    }
}

/// Parses `key=value, other-` into label changes: `key=value` sets,
/// `key-` removes. Errors say what is wrong with which part.
pub fn parse_label_changes(text: &str) -> Result<Vec<(String, Option<String>)>, String> {
    let mut out = Vec::new();
    for part in text
        .split([',', ' '])
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let change = match part.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
            None => match part.strip_suffix('-') {
                Some(k) => (k.to_string(), None),
                None => {
                    return Err(format!(
                        "{part:?}: write key=value to set or key- to remove"
                    ));
                }
            },
        };
        let valid = |s: &str| {
            !s.is_empty()
                && s.len() <= 253
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        };
        if !valid(&change.0) {
            return Err(format!("{:?} is not a valid label key", change.0));
        }
        if let Some(v) = &change.1
            && !(v.is_empty() || valid(v) && !v.contains('/') && v.len() <= 63)
        {
            return Err(format!("{v:?} is not a valid label value"));
        }
        out.push(change);
    }
    if out.is_empty() {
        return Err("no label changes given".into());
    }
    Ok(out)
}

/// Signals for the deployments panel and the event stream.
#[derive(Clone, Copy)]
pub struct Workloads {
    /// Deployments by `namespace/name`.
    pub deployments: RwSignal<BTreeMap<String, DeploymentRow>>,
    /// Nodes by name.
    pub nodes: RwSignal<BTreeMap<String, NodeRow>>,
    /// Events, newest first (at most 200).
    pub events: RwSignal<Vec<EventRow>>,
    /// The last action's outcome, for a person to read.
    pub last_action: RwSignal<Option<Result<String, String>>>,
    actions: StoredValue<Option<ActionQueue>, LocalStorage>,
}

fn deployments_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apps", "v1", "Deployment"),
        "deployments",
    )
}

impl Workloads {
    /// Starts the deployment and event informers and the action queue.
    pub fn start(client: RestClient, clock: Rc<dyn Clock>, reconnect: Reconnect) -> Self {
        let w = Self {
            deployments: RwSignal::new(BTreeMap::new()),
            nodes: RwSignal::new(BTreeMap::new()),
            events: RwSignal::new(Vec::new()),
            last_action: RwSignal::new(None),
            actions: StoredValue::new_local(None),
        };

        // Deployments.
        let store = Rc::new(RefCell::new(Store::<DynamicObject>::new()));
        let reader = store.clone();
        let frames = FrameQueue::new("deployment-rows", move |keys: Vec<String>| {
            let store = reader.borrow();
            w.deployments.update(|rows| {
                for key in keys {
                    match store.get(&key) {
                        Some(d) => {
                            rows.insert(key, deployment_row(&d));
                        }
                        None => {
                            rows.remove(&key);
                        }
                    }
                }
            });
        });
        store.borrow_mut().subscribe(move |c| match c {
            Change::Added(d) | Change::Updated { new: d, .. } | Change::Deleted(d) => {
                frames.add(object_key(d.as_ref()))
            }
            Change::Replaced => {}
        });
        let r = Reflector::new(
            client.clone(),
            clock.clone(),
            ReflectorConfig::new("/apis/apps/v1/deployments"),
            store,
        )
        .with_reconnect(reconnect.clone());
        spawn(r.run());

        // Nodes.
        let store = Rc::new(RefCell::new(Store::<DynamicObject>::new()));
        let reader = store.clone();
        let frames = FrameQueue::new("node-rows", move |keys: Vec<String>| {
            let store = reader.borrow();
            w.nodes.update(|rows| {
                for key in keys {
                    match store.get(&key) {
                        Some(n) => {
                            rows.insert(key, node_row(&n));
                        }
                        None => {
                            rows.remove(&key);
                        }
                    }
                }
            });
        });
        store.borrow_mut().subscribe(move |c| match c {
            Change::Added(n) | Change::Updated { new: n, .. } | Change::Deleted(n) => {
                frames.add(object_key(n.as_ref()))
            }
            Change::Replaced => {}
        });
        let r = Reflector::new(
            client.clone(),
            clock.clone(),
            ReflectorConfig::new("/api/v1/nodes"),
            store,
        )
        .with_reconnect(reconnect.clone());
        spawn(r.run());

        // Events: rows rebuilt from the store once per frame, newest first.
        let store = Rc::new(RefCell::new(Store::<Event>::new()));
        let reader = store.clone();
        let frames = FrameQueue::new("event-rows", move |_: Vec<()>| {
            let mut rows: Vec<EventRow> = reader
                .borrow()
                .list()
                .iter()
                .map(|e| event_row(e))
                .collect();
            rows.sort_by(|a, b| {
                b.last_seen
                    .cmp(&a.last_seen)
                    .then_with(|| a.key.cmp(&b.key))
            });
            rows.truncate(EVENTS_SHOWN);
            w.events.set(rows);
        });
        store.borrow_mut().subscribe(move |_| frames.add(()));
        let r = Reflector::new(
            client.clone(),
            clock.clone(),
            ReflectorConfig::new("/api/v1/events"),
            store,
        )
        .with_reconnect(reconnect);
        spawn(r.run());

        // Actions, recorded as Events by "kubeglass".
        let broadcaster = EventBroadcaster::new();
        broadcaster.watch(|e| {
            leptos::logging::log!(
                "event {} {}: {}",
                e.type_.as_deref().unwrap_or(""),
                e.reason.as_deref().unwrap_or(""),
                e.message.as_deref().unwrap_or("")
            );
        });
        let actions = ActionQueue::new(
            client.clone(),
            broadcaster.recorder("kubeglass", clock.clone()),
            clock.clone(),
        );
        actions.on_result(move |a, r| {
            let target = format!("{}/{}", a.namespace.as_deref().unwrap_or(""), a.name);
            w.last_action.set(Some(match (r, &a.kind) {
                (ActionResult::Done { .. }, ActionKind::Scale(n)) => {
                    Ok(format!("Scaled {target} to {n}"))
                }
                (ActionResult::Done { .. }, ActionKind::Delete) => Ok(format!("Deleted {target}")),
                (ActionResult::Done { .. }, ActionKind::RestartRollout) => {
                    Ok(format!("Restarted the rollout of {target}"))
                }
                (ActionResult::Done { .. }, ActionKind::Cordon(true)) => {
                    Ok(format!("Cordoned {}", a.name))
                }
                (ActionResult::Done { .. }, ActionKind::Cordon(false)) => {
                    Ok(format!("Uncordoned {}", a.name))
                }
                (ActionResult::Done { .. }, ActionKind::Labels(_)) => {
                    Ok(format!("Labels of {target} set"))
                }
                (ActionResult::Failed { error }, _) => Err(format!("{target}: {error}")),
            }));
        });
        // events.k8s.io/v1 (with series) when the server serves it, core/v1
        // otherwise; events recorded meanwhile wait in the broadcaster's queue.
        let (sink_client, sink_clock) = (client.clone(), clock.clone());
        spawn(async move {
            let sink = ApiSink::probe(sink_client, sink_clock.clone()).await;
            leptos::logging::log!("recording events through {:?}", sink.api());
            broadcaster.run(Rc::new(sink), sink_clock).await;
        });
        spawn(actions.clone().run());
        w.actions.set_value(Some(actions));
        w
    }

    /// Queues `kind` on the Deployment `namespace/name`.
    pub fn act(&self, namespace: &str, name: &str, kind: ActionKind) {
        self.submit(deployments_resource(), Some(namespace), name, kind);
    }

    /// Queues `kind` on the node `name`.
    pub fn act_on_node(&self, name: &str, kind: ActionKind) {
        let nodes =
            ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("", "v1", "Node"), "nodes");
        self.submit(nodes, None, name, kind);
    }

    fn submit(&self, resource: ApiResource, namespace: Option<&str>, name: &str, kind: ActionKind) {
        self.actions.with_value(|a| {
            if let Some(a) = a {
                a.submit(Action {
                    resource,
                    namespace: namespace.map(String::from),
                    name: name.to_string(),
                    kind,
                });
            }
        });
    }
}
