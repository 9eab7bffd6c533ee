//! App state: the informers the views read, exposed as Leptos signals.
//!
//! The client crate does all I/O; this module wires shared informers (from
//! the factory, so a view showing the same resource shares the watch) to
//! signals, once per animation frame. Components only read the signals.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use kubeglass_client::cache::{InformerFactory, InformerOptions, ReflectorStatus};
use kubeglass_client::clock::{Clock, PassiveClock};
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::reconnect::Reconnect;
use kubeglass_client::rest::table::TableRowObject;
use kubeglass_client::rest::{BROWSER_BURST, BROWSER_QPS, RestClient};
use kubeglass_web::{FetchTransport, WebClock, WebSocketTransport, spawn};
use leptos::prelude::*;

pub mod kube;
pub mod secrets;
pub mod session;
pub mod table;
pub mod workloads;

pub use kube::{Kube, Watch, provide_kube, use_kube};
pub use workloads::Workloads;

/// The wall clock in seconds, ticking once a second (ages, flashes, X-ray).
#[derive(Clone, Copy)]
pub struct Now(pub RwSignal<f64>);

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

/// Everything the app starts with: the signals and the shared handles.
pub struct Started {
    /// Signals for the overview.
    pub cluster: ClusterState,
    /// Client, factory, discovery.
    pub kube: Kube,
}

impl ClusterState {
    /// Creates the signals and starts the informers and the version probe.
    pub fn start() -> Started {
        // Plain-JSON watches go over WebSocket (they hold no HTTP/1.1
        // connection); everything else, metadata-only watches included, over fetch.
        // The API is the parent of the app's `ui/` folder: `/<token>` under
        // a capability URL, the origin's root under a plain `kubectl proxy --www`.
        let location = window().location();
        let base = crate::route::api_base_from(&location.pathname().unwrap_or_default());
        let scope = format!("{}{base}", location.origin().unwrap_or_default());
        let transport = Rc::new(WebSocketTransport::new(FetchTransport::new(
            base,
            Duration::from_secs(30),
        )));
        let clock: Rc<dyn Clock> = Rc::new(WebClock);
        let client = RestClient::new(transport.clone())
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
            workloads: Workloads::new(),
        };
        let kube = Kube::new(
            client.clone(),
            clock.clone(),
            reconnect.clone(),
            transport,
            &scope,
        );

        state.workloads.start(&kube);
        state.start_prober(client, clock, reconnect);
        state.follow_status(&kube);
        Started {
            cluster: state,
            kube,
        }
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

    /// Copies the informers' statuses to their signals twice a second (the
    /// reflector updates them after every event; a signal update per event
    /// would re-render at watch speed) and works out the connection state.
    fn follow_status(self, kube: &Kube) {
        let factory = kube.factory.clone();
        set_interval(
            move || self.refresh_status(&factory),
            Duration::from_millis(500),
        );
    }

    /// Reads every informer's status into the signals and the connection state.
    fn refresh_status(self, factory: &InformerFactory) {
        let entries = factory.snapshots();
        for e in &entries {
            let signal = match e.key.path.as_str() {
                "/api/v1/pods" => self.pod_status,
                "/api/v1/namespaces" => self.namespace_status,
                _ => continue,
            };
            if e.key.label_selector.is_none()
                && e.key.field_selector.is_none()
                && signal.with_untracked(|old| *old != e.snapshot.reflector)
            {
                signal.set(e.snapshot.reflector.clone());
            }
        }
        let statuses: Vec<ReflectorStatus> =
            entries.into_iter().map(|e| e.snapshot.reflector).collect();
        self.connection_changed(&statuses);
    }

    /// Connected when some informer has synced and none cannot reach the
    /// API; the banner shows the first failure's message and when it began.
    fn connection_changed(self, statuses: &[ReflectorStatus]) {
        if statuses.is_empty() {
            return;
        }
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

    /// Namespaces as whole objects (over WebSocket; the phase is in status).
    pub fn watch_namespaces(self, kube: &Kube) -> Watch<DynamicObject> {
        kube.watch_rows(
            "namespace-rows",
            "/api/v1/namespaces",
            self.namespaces,
            |name, n| NamespaceRow {
                name: name.to_string(),
                phase: n
                    .data
                    .pointer("/status/phase")
                    .and_then(|p| p.as_str())
                    .unwrap_or_default()
                    .to_string(),
            },
        )
    }

    /// Pods as Table rows: the same informer (one watch) serves the
    /// all-namespaces pod table. Counts per namespace are kept as changes
    /// arrive; pods being deleted (deletionTimestamp set) are not counted, so
    /// a scale-down shows at once, not after the grace period.
    pub fn watch_pods(self, kube: &Kube) -> Watch<TableRowObject> {
        self.pod_count.set(None);
        self.pods_by_namespace.set(BTreeMap::new());
        let counted: Rc<RefCell<BTreeMap<String, String>>> = Rc::default();
        kube.watch_frames(
            "pod-counts",
            table_options("/api/v1/pods"),
            move |inf, keys| {
                let indexer = inf.indexer();
                let indexer = indexer.borrow();
                let mut counted = counted.borrow_mut();
                for key in keys {
                    match indexer
                        .get(&key)
                        .filter(|p| p.metadata.deletion_timestamp.is_none())
                    {
                        Some(p) => {
                            counted.insert(key, p.metadata.namespace.clone().unwrap_or_default());
                        }
                        None => {
                            counted.remove(&key);
                        }
                    }
                }
                let mut by_ns: BTreeMap<String, usize> = BTreeMap::new();
                for ns in counted.values() {
                    *by_ns.entry(ns.clone()).or_default() += 1;
                }
                self.pod_count.set(Some(counted.len()));
                self.pods_by_namespace.set(by_ns);
            },
        )
    }
}

/// A Table-format informer of `path` (kubectl's columns, row metadata).
pub fn table_options(path: &str) -> InformerOptions<TableRowObject> {
    let mut o = InformerOptions::new(path);
    o.reflector = o.reflector.tables();
    o
}

fn js_sys_now() -> f64 {
    WebClock.now().as_secs_f64() * 1000.0
}
