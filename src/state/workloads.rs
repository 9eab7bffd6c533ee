//! Deployments with scale actions, and the live event stream.
//!
//! Both come from reflectors through frame queues (at most one view update
//! per animation frame); scaling goes through the client's rate-limited
//! action queue and is recorded as a Kubernetes Event by kubeglass.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

use kubeglass_client::actions::{Action, ActionKind, ActionQueue, ActionResult};
use kubeglass_client::cache::{InformerOptions, object_key};
use kubeglass_client::kube_core::{ApiResource, DynamicObject, GroupVersionKind};
use kubeglass_client::record::{ApiSink, EventBroadcaster};
use kubeglass_web::spawn;

use crate::state::{Kube, Watch};
use leptos::prelude::*;

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
    /// The involved object's kind, apiVersion, namespace and name.
    pub involved: Involved,
    /// Namespace.
    pub namespace: String,
    /// Message (text, never markup).
    pub message: String,
    /// How many times it happened.
    pub count: i32,
    /// Last seen, seconds since the epoch (for sorting and ages).
    pub last_seen: i64,
    /// First seen, seconds since the epoch.
    pub first_seen: i64,
    /// Who reported it.
    pub source: String,
}

/// The object an Event is about.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Involved {
    /// Its kind (`Pod`, `Deployment`, …).
    pub kind: String,
    /// Its apiVersion (`v1`, `apps/v1`).
    pub api_version: String,
    /// Its namespace (empty for cluster-scoped objects).
    pub namespace: String,
    /// Its name.
    pub name: String,
}

/// Deployments are read as untyped objects (whole objects watch over
/// WebSocket, holding none of the browser's six connections; the typed
/// `Deployment` would drag the whole `PodSpec` deserializer into the wasm).
fn deployment_row(d: &DynamicObject) -> DeploymentRow {
    let int = |p: &str, default: i64| {
        d.data
            .pointer(p)
            .and_then(|v| v.as_i64())
            .unwrap_or(default)
    };
    DeploymentRow {
        key: object_key(d),
        namespace: d.metadata.namespace.clone().unwrap_or_default(),
        name: d.metadata.name.clone().unwrap_or_default(),
        desired: int("/spec/replicas", 1) as i32,
        ready: int("/status/readyReplicas", 0) as i32,
    }
}

fn node_row(n: &DynamicObject) -> NodeRow {
    let ready = n
        .data
        .pointer("/status/conditions")
        .and_then(|c| c.as_array())
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.get("type").and_then(|t| t.as_str()) == Some("Ready"))
        })
        .and_then(|c| c.get("status").and_then(|s| s.as_str()))
        .unwrap_or("Unknown")
        .to_string();
    NodeRow {
        name: n.metadata.name.clone().unwrap_or_default(),
        ready,
        cordoned: n
            .data
            .pointer("/spec/unschedulable")
            .and_then(|v| v.as_bool())
            .unwrap_or(false),
    }
}

/// Events are read as untyped objects (one object type fewer in the wasm).
/// What the event stream is filtered by; an empty field matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventFilter {
    /// `Normal` or `Warning`.
    pub type_: String,
    /// Exact reason.
    pub reason: String,
    /// Exact namespace of the Event.
    pub namespace: String,
    /// Exact kind of the involved object.
    pub kind: String,
    /// Part of the involved object's name (case-insensitive).
    pub object: String,
    /// Part of the reason, namespace, object, message or source (case-insensitive).
    pub text: String,
}

impl EventFilter {
    /// A test of whether a row passes every field that is set, for many
    /// rows: the search terms are lowercased once, and ASCII terms are
    /// compared without allocating.
    pub fn matcher(&self) -> impl Fn(&EventRow) -> bool + '_ {
        let (object, text) = (self.object.to_lowercase(), self.text.to_lowercase());
        move |e: &EventRow| {
            let exact = |want: &str, have: &str| want.is_empty() || want == have;
            exact(&self.type_, &e.type_)
                && exact(&self.reason, &e.reason)
                && exact(&self.namespace, &e.namespace)
                && exact(&self.kind, &e.involved.kind)
                && contains_lowercase(&e.involved.name, &object)
                && (text.is_empty()
                    || [&e.reason, &e.namespace, &e.object, &e.message, &e.source]
                        .iter()
                        .any(|f| contains_lowercase(f, &text)))
        }
    }
}

/// True when `hay` contains `needle` (already lowercase) in any case.
fn contains_lowercase(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if needle.is_ascii() {
        // ASCII bytes never occur inside a multi-byte UTF-8 sequence, so a
        // byte-wise match is a match of whole characters (ASCII letters in
        // any case).
        let n = needle.as_bytes();
        return hay
            .as_bytes()
            .windows(n.len())
            .any(|w| w.eq_ignore_ascii_case(n));
    }
    hay.to_lowercase().contains(needle)
}

/// How many events hold each value of one field (the choices of a filter
/// menu, in order).
pub type ValueCounts = BTreeMap<String, usize>;

/// The events, newest first, kept up to date change by change: a frame
/// with a few changed events touches only those, however many the cluster
/// holds. Rows are shared (`Arc`): a paused copy copies the index's keys
/// and counts, not the rows; a filtered list is a list of pointers.
#[derive(Debug, Clone, Default)]
pub struct EventIndex {
    /// Key → last seen (where the row sits in `order`).
    at: HashMap<String, i64>,
    /// (newest first, then key) → row.
    order: BTreeMap<(Reverse<i64>, String), Arc<EventRow>>,
    reasons: ValueCounts,
    namespaces: ValueCounts,
    kinds: ValueCounts,
}

impl EventIndex {
    /// Adds `row`, or replaces the row with its key.
    pub fn upsert(&mut self, row: EventRow) {
        self.remove(&row.key);
        count(&mut self.reasons, &row.reason, true);
        count(&mut self.namespaces, &row.namespace, true);
        count(&mut self.kinds, &row.involved.kind, true);
        self.at.insert(row.key.clone(), row.last_seen);
        self.order
            .insert((Reverse(row.last_seen), row.key.clone()), Arc::new(row));
    }

    /// Removes the row with `key`, if there is one.
    pub fn remove(&mut self, key: &str) {
        let Some(last_seen) = self.at.remove(key) else {
            return;
        };
        if let Some(old) = self.order.remove(&(Reverse(last_seen), key.to_string())) {
            count(&mut self.reasons, &old.reason, false);
            count(&mut self.namespaces, &old.namespace, false);
            count(&mut self.kinds, &old.involved.kind, false);
        }
    }

    /// Every row, newest (last seen) first; ties in key order.
    pub fn newest(&self) -> impl Iterator<Item = &Arc<EventRow>> {
        self.order.values()
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Reasons present, sorted.
    pub fn reasons(&self) -> &ValueCounts {
        &self.reasons
    }

    /// Namespaces present, sorted.
    pub fn namespaces(&self) -> &ValueCounts {
        &self.namespaces
    }

    /// Involved objects' kinds present, sorted.
    pub fn kinds(&self) -> &ValueCounts {
        &self.kinds
    }
}

/// Counts one more (or one fewer) event holding `value`; empty values are
/// not menu choices.
fn count(counts: &mut ValueCounts, value: &str, add: bool) {
    if value.is_empty() {
        return;
    }
    if add {
        *counts.entry(value.to_string()).or_default() += 1;
    } else if let Some(n) = counts.get_mut(value) {
        *n -= 1;
        if *n == 0 {
            counts.remove(value);
        }
    }
}

fn event_row(e: &DynamicObject) -> EventRow {
    let text = |p: &str| {
        e.data
            .pointer(p)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let time = |p: &str| {
        e.data
            .pointer(p)
            .and_then(|v| v.as_str())
            .and_then(crate::state::table::parse_time)
    };
    let last_seen = time("/lastTimestamp")
        .or_else(|| time("/eventTime"))
        .or_else(|| time("/firstTimestamp"))
        .or_else(|| {
            e.metadata
                .creation_timestamp
                .as_ref()
                .map(|t| t.0.as_second() as f64)
        })
        .unwrap_or(0.0) as i64;
    let first_seen = time("/firstTimestamp")
        .or_else(|| time("/eventTime"))
        .map_or(last_seen, |t| t as i64);
    let count = e
        .data
        .pointer("/count")
        .or_else(|| e.data.pointer("/series/count"))
        .and_then(|v| v.as_i64())
        .unwrap_or(1) as i32;
    let type_ = text("/type");
    let kind = text("/involvedObject/kind");
    let name = text("/involvedObject/name");
    let source = Some(text("/reportingComponent"))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| text("/source/component"));
    EventRow {
        key: object_key(e),
        type_: if type_.is_empty() {
            "Normal".into()
        } else {
            type_
        },
        reason: text("/reason"),
        object: format!(
            "{}/{}",
            if kind.is_empty() {
                "?".into()
            } else {
                kind.to_ascii_lowercase()
            },
            if name.is_empty() { "?" } else { &name }
        ),
        involved: Involved {
            api_version: text("/involvedObject/apiVersion"),
            namespace: text("/involvedObject/namespace"),
            kind,
            name,
        },
        namespace: e.metadata.namespace.clone().unwrap_or_default(),
        message: text("/message"),
        count,
        last_seen,
        first_seen,
        source,
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
    /// Events, newest first.
    pub events: RwSignal<EventIndex>,
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
    /// The signals, empty until [`Workloads::start`].
    pub fn new() -> Self {
        Self {
            deployments: RwSignal::new(BTreeMap::new()),
            nodes: RwSignal::new(BTreeMap::new()),
            events: RwSignal::new(EventIndex::default()),
            last_action: RwSignal::new(None),
            actions: StoredValue::new_local(None),
        }
    }

    /// Deployments, for as long as the returned watch is held.
    pub fn watch_deployments(&self, kube: &Kube) -> Watch<DynamicObject> {
        kube.watch_rows(
            "deployment-rows",
            "/apis/apps/v1/deployments",
            self.deployments,
            |_, o| deployment_row(o),
        )
    }

    /// Nodes, while the returned watch is held.
    pub fn watch_nodes(&self, kube: &Kube) -> Watch<DynamicObject> {
        kube.watch_rows("node-rows", "/api/v1/nodes", self.nodes, |_, o| node_row(o))
    }

    /// Events, newest first, while the returned watch is held; each frame
    /// updates only the events that changed.
    pub fn watch_events(&self, kube: &Kube) -> Watch<DynamicObject> {
        let w = *self;
        w.events.set(EventIndex::default());
        kube.watch_frames(
            "event-rows",
            InformerOptions::<DynamicObject>::new("/api/v1/events"),
            move |inf, keys| {
                let indexer = inf.indexer();
                let store = indexer.borrow();
                w.events.update(|ix| {
                    for key in keys {
                        match store.get(&key) {
                            Some(e) => ix.upsert(event_row(&e)),
                            None => ix.remove(&key),
                        }
                    }
                });
            },
        )
    }

    /// Starts the action queue (actions recorded as Events by "kubeglass").
    pub fn start(&self, kube: &Kube) {
        let w = *self;
        let (client, clock) = (kube.client.clone(), kube.clock.clone());
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
    }

    /// The action queue's metrics (client-go's work queue names), for X-ray.
    pub fn action_metrics(&self) -> Option<kubeglass_client::workqueue::QueueMetrics> {
        self.actions
            .with_value(|a| a.as_ref().map(|a| a.queue().queue().metrics()))
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

    /// Queues `kind` on any object (the object page's actions).
    pub fn submit(
        &self,
        resource: ApiResource,
        namespace: Option<&str>,
        name: &str,
        kind: ActionKind,
    ) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(name: &str, body: serde_json::Value) -> EventRow {
        let mut v = json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "shop"}});
        if let (Some(m), serde_json::Value::Object(b)) = (v.as_object_mut(), body) {
            m.extend(b);
        }
        event_row(&serde_json::from_value(v).expect("an event"))
    }

    #[test]
    fn rows_carry_the_involved_object_and_first_and_last_seen() {
        let e = event(
            "a",
            json!({"type": "Warning", "reason": "BackOff", "count": 7,
            "involvedObject": {"kind": "Pod", "apiVersion": "v1", "namespace": "shop", "name": "cart-1"},
            "firstTimestamp": "2026-11-30T10:00:00Z", "lastTimestamp": "2026-11-30T10:05:00Z",
            "message": "<b>restarting</b>", "source": {"component": "kubelet"}}),
        );
        assert_eq!(e.object, "pod/cart-1");
        assert_eq!(e.involved.api_version, "v1");
        assert_eq!(e.last_seen - e.first_seen, 300);
        assert_eq!((e.count, e.source.as_str()), (7, "kubelet"));
        assert_eq!(e.message, "<b>restarting</b>", "kept as text");
        // events.k8s.io-style: eventTime only, series count.
        let e = event(
            "b",
            json!({"eventTime": "2026-11-30T10:00:00.000000Z",
            "series": {"count": 3}, "involvedObject": {"kind": "Node", "name": "n1"}}),
        );
        assert_eq!(
            (e.first_seen, e.count, e.type_.as_str()),
            (e.last_seen, 3, "Normal")
        );
    }

    #[test]
    fn filters_combine_type_reason_namespace_kind_object_and_text() {
        let rows = [
            event(
                "a",
                json!({"type": "Warning", "reason": "BackOff", "message": "back-off restarting",
                "involvedObject": {"kind": "Pod", "name": "cart-1"}}),
            ),
            event(
                "b",
                json!({"type": "Normal", "reason": "Scheduled",
                "involvedObject": {"kind": "Pod", "name": "web-2"}}),
            ),
            event(
                "c",
                json!({"type": "Normal", "reason": "ScalingReplicaSet",
                "involvedObject": {"kind": "Deployment", "name": "cart"}}),
            ),
        ];
        let pass = |f: EventFilter| -> Vec<String> {
            rows.iter()
                .filter(|e| f.matcher()(e))
                .map(|e| e.key.clone())
                .collect()
        };
        assert_eq!(pass(EventFilter::default()).len(), 3);
        assert_eq!(
            pass(EventFilter {
                type_: "Warning".into(),
                ..Default::default()
            }),
            ["shop/a"]
        );
        assert_eq!(
            pass(EventFilter {
                kind: "Pod".into(),
                ..Default::default()
            }),
            ["shop/a", "shop/b"]
        );
        assert_eq!(
            pass(EventFilter {
                object: "CART".into(),
                ..Default::default()
            }),
            ["shop/a", "shop/c"]
        );
        assert_eq!(
            pass(EventFilter {
                kind: "Pod".into(),
                object: "cart".into(),
                ..Default::default()
            }),
            ["shop/a"]
        );
        assert_eq!(
            pass(EventFilter {
                reason: "Scheduled".into(),
                ..Default::default()
            }),
            ["shop/b"]
        );
        assert!(
            pass(EventFilter {
                namespace: "other".into(),
                ..Default::default()
            })
            .is_empty()
        );
        assert_eq!(
            pass(EventFilter {
                text: "RESTARTING".into(),
                ..Default::default()
            }),
            ["shop/a"]
        );
    }

    #[test]
    fn case_insensitive_search_with_and_without_ascii() {
        assert!(contains_lowercase("Back-Off restarting", "back-off"));
        assert!(contains_lowercase("x", ""));
        assert!(!contains_lowercase("ba", "back"));
        assert!(contains_lowercase("Größe ÜBER", "über"));
        assert!(!contains_lowercase("Größe", "über"));
        // An ASCII term never matches half of a multi-byte character.
        assert!(!contains_lowercase("é", "e"));
    }

    fn at(name: &str, reason: &str, kind: &str, last: u32) -> EventRow {
        let mut e = event(
            name,
            json!({"reason": reason, "involvedObject": {"kind": kind, "name": "x"}}),
        );
        e.last_seen = i64::from(last);
        e
    }

    #[test]
    fn the_index_keeps_newest_first_and_the_menu_choices_change_by_change() {
        let mut ix = EventIndex::default();
        ix.upsert(at("a", "BackOff", "Pod", 10));
        ix.upsert(at("b", "Scheduled", "Pod", 30));
        ix.upsert(at("c", "ScalingReplicaSet", "Deployment", 20));
        let keys = |ix: &EventIndex| ix.newest().map(|e| e.key.clone()).collect::<Vec<_>>();
        assert_eq!(keys(&ix), ["shop/b", "shop/c", "shop/a"]);
        let names = |c: &ValueCounts| c.keys().cloned().collect::<Vec<_>>();
        assert_eq!(names(ix.kinds()), ["Deployment", "Pod"]);
        assert_eq!(
            names(ix.reasons()),
            ["BackOff", "ScalingReplicaSet", "Scheduled"]
        );
        // An update moves its row and its counts; nothing is listed twice.
        ix.upsert(at("a", "Pulled", "Pod", 40));
        assert_eq!(keys(&ix), ["shop/a", "shop/b", "shop/c"]);
        assert_eq!(
            names(ix.reasons()),
            ["Pulled", "ScalingReplicaSet", "Scheduled"]
        );
        // The last event of a kind takes the kind off the menu.
        ix.remove("shop/c");
        ix.remove("shop/missing");
        assert_eq!(names(ix.kinds()), ["Pod"]);
        assert_eq!(ix.kinds()["Pod"], 2);
        assert_eq!((ix.len(), ix.namespaces()["shop"]), (2, 2));
    }

    #[test]
    fn the_index_agrees_with_a_full_sort_after_many_changes() {
        let mut ix = EventIndex::default();
        let mut model: BTreeMap<String, EventRow> = BTreeMap::new();
        // A fixed pseudo-random walk of upserts and removals over 50 keys.
        let mut x: u32 = 12345;
        for _ in 0..3_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let name = format!("e{}", (x >> 8) % 50);
            if (x >> 20).is_multiple_of(4) {
                ix.remove(&format!("shop/{name}"));
                model.remove(&format!("shop/{name}"));
            } else {
                let reasons = ["A", "B", "C"];
                let row = at(
                    &name,
                    reasons[(x >> 4) as usize % 3],
                    "Pod",
                    (x >> 12) % 100,
                );
                model.insert(row.key.clone(), row.clone());
                ix.upsert(row);
            }
        }
        let mut want: Vec<&EventRow> = model.values().collect();
        want.sort_by(|a, b| {
            b.last_seen
                .cmp(&a.last_seen)
                .then_with(|| a.key.cmp(&b.key))
        });
        let got: Vec<&EventRow> = ix.newest().map(|e| e.as_ref()).collect();
        assert_eq!(got, want);
        let mut reasons = ValueCounts::new();
        for e in model.values() {
            *reasons.entry(e.reason.clone()).or_default() += 1;
        }
        assert_eq!(ix.reasons(), &reasons);
    }
}
