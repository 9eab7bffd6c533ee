//! App state: the informers the views read, exposed as Leptos signals.
//!
//! The client crate does all I/O; this module wires reflectors to stores and
//! stores to signals. Components only read the signals.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Namespace, Pod};
use kubeglass_client::cache::{Change, Reflector, ReflectorConfig, ReflectorStatus, Store};
use kubeglass_client::clock::{Clock, PassiveClock};
use kubeglass_client::kube_core::PartialObjectMeta;
use kubeglass_client::reconnect::Reconnect;
use kubeglass_client::rest::{BROWSER_BURST, BROWSER_QPS, RestClient};
use kubeglass_web::{FetchTransport, FrameQueue, WebClock, WebSocketTransport, spawn};
use leptos::prelude::*;

pub mod workloads;

pub use workloads::Workloads;

/// How often the API is probed while it cannot be reached.
const PROBE_INTERVAL: Duration = Duration::from_secs(1);

/// How the app's link to the API is doing.
#[derive(Debug, Clone, PartialEq)]
pub enum Connection {
    /// Nothing has answered yet.
    Connecting,
    /// The API answers.
    Connected,
    /// The proxy or the API cannot be reached; data shown may be stale.
    Unreachable {
        /// What the browser reported.
        message: String,
        /// When the failures started (ms since the epoch).
        since_ms: f64,
    },
}

/// One namespace as the overview shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceRow {
    /// Its name.
    pub name: String,
    /// Its phase (`Active`, `Terminating`).
    pub phase: String,
}

/// Signals fed by the app's informers; cheap to copy into components.
#[derive(Clone, Copy)]
pub struct ClusterState {
    /// The server's gitVersion, or the error that prevented reading it.
    pub version: RwSignal<Option<Result<String, String>>>,
    /// The namespaces by name.
    pub namespaces: RwSignal<BTreeMap<String, NamespaceRow>>,
    /// Pods per namespace, not counting those being deleted.
    pub pods_by_namespace: RwSignal<BTreeMap<String, usize>>,
    /// Pods in the cluster that are not being deleted (None until the first list arrives).
    pub pod_count: RwSignal<Option<usize>>,
    /// The link to the API.
    pub connection: RwSignal<Connection>,
    /// The pod informer's status, for the X-ray strip.
    pub pod_status: RwSignal<ReflectorStatus>,
    /// The namespace informer's status.
    pub namespace_status: RwSignal<ReflectorStatus>,
    /// Deployments, events and actions.
    pub workloads: Workloads,
}

type PodMeta = PartialObjectMeta<Pod>;

impl ClusterState {
    /// Creates the signals and starts the informers and the version probe.
    pub fn start() -> Self {
        // Plain-JSON watches go over WebSocket (they hold no HTTP/1.1
        // connection); everything else, metadata-only watches included, over fetch.
        let transport = Rc::new(WebSocketTransport::new(FetchTransport::new(
            "",
            Duration::from_secs(30),
        )));
        let clock: Rc<dyn Clock> = Rc::new(WebClock);
        let client = RestClient::new(transport)
            .with_clock(clock.clone())
            .with_rate_limit(BROWSER_QPS, BROWSER_BURST);
        let reconnect = Reconnect::new();
        let state = Self {
            version: RwSignal::new(None),
            namespaces: RwSignal::new(BTreeMap::new()),
            pods_by_namespace: RwSignal::new(BTreeMap::new()),
            pod_count: RwSignal::new(None),
            connection: RwSignal::new(Connection::Connecting),
            pod_status: RwSignal::new(ReflectorStatus::default()),
            namespace_status: RwSignal::new(ReflectorStatus::default()),
            workloads: Workloads::start(client.clone(), clock.clone(), reconnect.clone()),
        };

        state.start_prober(client.clone(), clock.clone(), reconnect.clone());
        state.start_namespaces(client.clone(), clock.clone(), reconnect.clone());
        state.start_pods(client, clock, reconnect);
        state
    }

    /// Reads `/version` once, and while the API is unreachable probes it every
    /// second: the first answer wakes every reflector waiting out a backoff, so
    /// the app reconnects within about a second of the proxy coming back.
    fn start_prober(self, client: RestClient, clock: Rc<dyn Clock>, reconnect: Reconnect) {
        spawn(async move {
            loop {
                let unreachable = matches!(
                    self.connection.get_untracked(),
                    Connection::Unreachable { .. }
                );
                let need_version = !matches!(self.version.get_untracked(), Some(Ok(_)));
                if unreachable || need_version {
                    match client.version().await {
                        Ok(info) => {
                            if need_version {
                                self.version.set(Some(Ok(info.git_version)));
                            }
                            if unreachable {
                                reconnect.notify();
                            }
                        }
                        Err(e) => {
                            if need_version {
                                self.version.set(Some(Err(e.to_string())));
                            }
                        }
                    }
                }
                clock.sleep(PROBE_INTERVAL).await;
            }
        });
    }

    /// A reflector status listener that shows the latest status once per
    /// animation frame: the reflector reports after every event, and a
    /// signal update per event would re-render at watch speed.
    fn status_per_frame(
        self,
        signal: RwSignal<ReflectorStatus>,
        name: &str,
    ) -> impl Fn(&ReflectorStatus) + 'static {
        let latest: Rc<RefCell<Option<ReflectorStatus>>> = Rc::default();
        let pending = latest.clone();
        let frames = FrameQueue::new(name, move |_: Vec<()>| {
            if let Some(s) = pending.borrow_mut().take() {
                signal.set(s);
                self.connection_changed();
            }
        });
        move |s: &ReflectorStatus| {
            *latest.borrow_mut() = Some(s.clone());
            frames.add(());
        }
    }

    fn connection_changed(self) {
        let statuses = [
            self.pod_status.get_untracked(),
            self.namespace_status.get_untracked(),
        ];
        let down = statuses.iter().find(|s| s.unreachable);
        let next = match down {
            Some(s) => {
                let since_ms = match self.connection.get_untracked() {
                    Connection::Unreachable { since_ms, .. } => since_ms,
                    _ => js_sys_now(),
                };
                Connection::Unreachable {
                    message: s.last_error.clone().unwrap_or_default(),
                    since_ms,
                }
            }
            None if statuses.iter().any(|s| s.synced) => Connection::Connected,
            None => Connection::Connecting,
        };
        if self.connection.get_untracked() != next {
            self.connection.set(next);
        }
    }

    fn start_namespaces(self, client: RestClient, clock: Rc<dyn Clock>, reconnect: Reconnect) {
        // Whole objects: namespaces are few and small, and the phase lives in status.
        let store = Rc::new(RefCell::new(Store::<Namespace>::new()));
        // Changes reach the view through a frame queue: a namespace changed
        // many times between two frames is applied once, from the store.
        let reader = store.clone();
        let frames = FrameQueue::new("namespace-rows", move |names: Vec<String>| {
            let store = reader.borrow();
            self.namespaces.update(|rows| {
                for name in names {
                    match store.get(&name) {
                        Some(n) => {
                            let phase = n.status.as_ref().and_then(|s| s.phase.clone());
                            rows.insert(
                                name.clone(),
                                NamespaceRow {
                                    name,
                                    phase: phase.unwrap_or_default(),
                                },
                            );
                        }
                        None => {
                            rows.remove(&name);
                        }
                    }
                }
            });
        });
        store.borrow_mut().subscribe(move |change| match change {
            Change::Added(n) | Change::Updated { new: n, .. } | Change::Deleted(n) => {
                frames.add(n.metadata.name.clone().unwrap_or_default());
            }
            Change::Replaced => {}
        });
        let reflector = Reflector::new(
            client,
            clock,
            ReflectorConfig::new("/api/v1/namespaces"),
            store,
        )
        .with_reconnect(reconnect)
        .on_status(self.status_per_frame(self.namespace_status, "namespace-status"));
        spawn(reflector.run());
    }

    fn start_pods(self, client: RestClient, clock: Rc<dyn Clock>, reconnect: Reconnect) {
        let store = Rc::new(RefCell::new(Store::<PodMeta>::new()));
        // Counts per namespace are kept here as events arrive and copied to
        // the signals once per animation frame.
        let counts: Rc<RefCell<BTreeMap<String, usize>>> = Rc::default();
        let shown = counts.clone();
        let frames = FrameQueue::new("pod-counts", move |_: Vec<()>| {
            let counts = shown.borrow();
            self.pods_by_namespace.set(counts.clone());
            self.pod_count.set(Some(counts.values().sum()));
        });
        store.borrow_mut().subscribe(move |change| {
            // Pods being deleted (deletionTimestamp set) are not counted: a
            // scale-down shows at once, not after the grace period.
            let delta: [(Option<&PodMeta>, i64); 2] = match change {
                Change::Added(p) => [(Some(p), 1), (None, 0)],
                Change::Deleted(p) => [(Some(p), -1), (None, 0)],
                Change::Updated { old, new } => [(Some(old), -1), (Some(new), 1)],
                Change::Replaced => [(None, 0), (None, 0)],
            };
            let mut m = counts.borrow_mut();
            for (pod, d) in delta {
                let Some(pod) = pod.filter(|p| p.metadata.deletion_timestamp.is_none()) else {
                    continue;
                };
                let ns = pod.metadata.namespace.clone().unwrap_or_default();
                let c = m.entry(ns.clone()).or_default();
                *c = (*c as i64 + d).max(0) as usize;
                if *c == 0 {
                    m.remove(&ns);
                }
            }
            frames.add(());
        });
        let reflector = Reflector::new(
            client,
            clock,
            ReflectorConfig::new("/api/v1/pods").metadata_only(),
            store,
        )
        .with_reconnect(reconnect)
        .on_status(self.status_per_frame(self.pod_status, "pod-status"));
        spawn(reflector.run());
    }
}

fn js_sys_now() -> f64 {
    WebClock.now().as_secs_f64() * 1000.0
}
