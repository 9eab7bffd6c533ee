//! App-wide state, owned by the app and not by whichever page runs: the clock's tick, the server version, the connection, the namespaces and the namespace the app works in.

use std::collections::BTreeMap;
use std::time::Duration;

use kubeglass_client::cache::{InformerFactory, InformerSnapshot, ReflectorStatus};
use kubeglass_client::k8s_openapi::api::core::v1::Namespace;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::reconnect::Reconnect;
use leptos::prelude::*;

use crate::kube::subscribe::cluster_path;
use crate::kube::{Kube, Now, Watch};
use crate::rules::connection::{Connection, next_connection};
use crate::rules::objects::NamespaceRow;
use crate::rules::problem::Problem;
use crate::rules::time::Seconds;

/// How often the API is probed while it cannot be reached.
const PROBE_INTERVAL: Duration = Duration::from_secs(1);
/// How often the informers' statuses are read for the connection banner.
const STATUS_INTERVAL: Duration = Duration::from_millis(500);

/// Signals every page may read; cheap to copy into components.
#[derive(Clone, Copy)]
pub struct ClusterState {
    /// The server's gitVersion, or why it could not be read.
    pub version: RwSignal<Option<Result<String, Problem>>>,
    /// The namespaces by name (an app-wide informer, whatever page opened first).
    pub namespaces: RwSignal<BTreeMap<String, NamespaceRow>>,
    /// The namespace informer's status (a user who may not list namespaces
    /// is told so, and can still type one).
    pub namespaces_status: RwSignal<InformerSnapshot>,
    /// The namespace the app works in (None: all namespaces). Namespaced
    /// panels, tables and the event stream follow it.
    pub namespace: RwSignal<Option<String>>,
    /// The link to the API.
    pub connection: RwSignal<Connection>,
    /// Holds the namespace informer for the app's life.
    _namespaces: StoredValue<Option<Watch<DynamicObject>>, LocalStorage>,
}

impl ClusterState {
    /// Creates the signals and starts the clock's tick, the namespace
    /// informer, the version probe and the connection follower. `now` is
    /// provided as context first, so every watch started after it ticks.
    pub fn start(kube: &Kube, reconnect: Reconnect, namespace: Option<String>) -> Self {
        let now = Now(RwSignal::new(kube.now()));
        let clock = kube.clock.clone();
        set_interval(
            move || now.0.set(clock.now().as_secs_f64()),
            Duration::from_secs(1),
        );
        provide_context(now);
        let namespaces = RwSignal::new(BTreeMap::new());
        let watch = kube
            .subscribe("namespace-rows", &cluster_path::<Namespace>(kube))
            .rows(namespaces, NamespaceRow::from_object);
        let state = Self {
            version: RwSignal::new(None),
            namespaces,
            namespaces_status: watch.status(),
            namespace: RwSignal::new(namespace),
            connection: RwSignal::new(Connection::Connecting),
            _namespaces: StoredValue::new_local(Some(watch)),
        };
        state.start_prober(kube, reconnect);
        let (factory, clock) = (kube.factory.clone(), kube.clock.clone());
        set_interval(
            move || state.refresh_connection(&factory, clock.now().as_secs_f64()),
            STATUS_INTERVAL,
        );
        state
    }

    /// Reads `/version` once, and while the API is unreachable probes it every
    /// second: the first answer wakes every reflector waiting out a backoff, so
    /// the app reconnects within about a second of the proxy coming back.
    fn start_prober(self, kube: &Kube, reconnect: Reconnect) {
        let (client, clock) = (kube.client.clone(), kube.clock.clone());
        kube.spawn(async move {
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
                                self.version.set(Some(Err(Problem::from_error(&e))));
                            }
                        }
                    }
                }
                clock.sleep(PROBE_INTERVAL).await;
            }
        });
    }

    /// Works out the connection from every informer's status (the
    /// reflector updates them after every event; reading them twice a
    /// second keeps the banner off the watch's pace).
    fn refresh_connection(self, factory: &InformerFactory, now: Seconds) {
        let statuses: Vec<ReflectorStatus> = factory
            .snapshots()
            .into_iter()
            .map(|e| e.snapshot.reflector)
            .collect();
        let answered = matches!(self.version.get_untracked(), Some(Ok(_)));
        let next = next_connection(&self.connection.get_untracked(), &statuses, answered, now);
        if self.connection.get_untracked() != next {
            self.connection.set(next);
        }
    }
}
