//! The cluster as every view shares it: the client, the injected clock, the informer factory (one watch per resource however many views use it) and discovery.
//!
//! # The cluster side, grouped by job
//!
//! The wiring is this folder's own files. `start` builds the transports
//! under the page's capability prefix, the rate-limited client and the only
//! clock the app reads. `Kube` (`mod`) holds the client, clock,
//! `InformerFactory`, the usage polls and cached discovery, all private: a
//! view subscribes, loads, or reads the few things `Kube`'s methods give.
//! `host` is what it needs of the browser, injected: spawning, animation
//! frames (`Kube::frame_queue`), the discovery cache's storage, the
//! WebSocket switches (`Sockets`), connection counts and the files beside
//! the page. `Host::browser` is the tab's; the room's native tests
//! (`kube/tests`) build one whose executor, frames and storage they step by
//! hand, and run subscriptions, discovery, the session file, log streams
//! and shells against the client's scripted fake API server. `settle` says
//! when the page in front has what it asked for. `resolve` returns a typed
//! `Problem`, and `resolve_for` judges the answer against the verbs a page
//! needs (`rules/resolve`).
//!
//! Then three rooms, each with its own `//!` map:
//! - `subscribe` — what a view holds while it shows something live, ended
//!   when dropped: **the one way a view subscribes**, in one line
//!   (`kube.subscribe("pod-counts", &path).table().frames(apply)`), a
//!   target's usage (`kube.usage(target)`: metrics.k8s.io has no watch), a
//!   workload's pods (`kube.workload_pods`), a container's log, a shell.
//! - `requests` — one-off requests: `Kube::load` starts one for a view and
//!   returns the signal its answer lands in (a view gone by then is left
//!   alone); reads, access reviews, an edit's and a create's dry runs,
//!   port-forwards, actions on many objects.
//! - `stores` — the app's own state for the tab's life, provided as
//!   context: the cluster's tick, version, connection and namespaces, the
//!   session file, the versions seen of objects, and the changes recorded.
//!
//! In the app, store changes reach the view through `FrameQueue`s: keys go into
//! a stingy queue and are applied from the store once per animation frame, so an
//! object updated 100 times between two frames is rendered once. A
//! `FrameQueue` is given the app's clock (the one `kube/start` makes), which
//! times its waits and each frame's apply for the X-ray page.

use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use kubeglass_client::cache::InformerFactory;
use kubeglass_client::cache::factory::Format;
use kubeglass_client::clock::Clock;
use kubeglass_client::discovery::{CachedDiscovery, Discovery, DiscoveryClient, ResourceInfo};
use kubeglass_client::reconnect::Reconnect;
use kubeglass_client::rest::RestClient;
use kubeglass_kubectl::usage::{PollSnapshot, UsagePolls};
use kubeglass_web::ConnectionCounts;
use leptos::prelude::*;

use crate::kube::stores::saved::SavedTables;
use crate::rules::problem::Problem;
use crate::rules::resolve::{Unresolved, usable};
use crate::rules::time::Seconds;

pub mod host;
pub mod quiet;
pub mod requests;
mod settle;
pub mod start;
pub mod stores;
pub mod subscribe;

#[cfg(test)]
mod tests;

pub use host::{Host, Sockets};
/// The objects an informer keeps as their last good copy (they stopped
/// decoding), as a view reads them: pages name it through here.
pub use kubeglass_client::cache::Stale;
pub use subscribe::Watch;

/// The app's clock in seconds since the epoch, ticking once a second (ages,
/// flashes, statuses); set from the injected clock only (`cluster` starts
/// the tick).
#[derive(Clone, Copy)]
pub struct Now(pub RwSignal<Seconds>);

/// The cluster side, provided as context: one client, one clock, one
/// informer factory, one set of usage polls and discovery. Its parts are
/// private: a view subscribes (`subscribe`, `usage`, `workload_pods`), makes
/// one-off requests (`load`, `resolve_for`, `kube/requests`) and reads the
/// few things below; only `kube/` itself reaches the parts.
#[derive(Clone)]
pub struct Kube {
    /// The rate-limited client.
    client: RestClient,
    /// The clock (the browser's; injected, so nothing else reads it).
    clock: Rc<dyn Clock>,
    /// Shared informers.
    factory: InformerFactory,
    /// Shared polls of metrics.k8s.io usage (it has no watch).
    usage_polls: UsagePolls,
    /// Discovery, cached in localStorage for 10 minutes.
    discovery: Rc<CachedDiscovery>,
    /// The latest discovery (None while loading).
    discovered: RwSignal<Option<Result<Arc<Discovery>, Problem>>>,
    /// Open connections by kind (fetch, stream, WebSocket), for the X-ray page.
    counts: Rc<ConnectionCounts>,
    /// Whether watches and logs may go over WebSocket now.
    websockets: Rc<dyn Sockets>,
    /// The browser (or a native test's stand-in): spawning, frames, storage.
    host: Host,
    /// True when the API is under a capability token (`/<token>/`), so no
    /// other page can reach it; false under a plain `kubectl proxy --www`.
    protected: bool,
    /// Tables saved for the next visit, and those drawn from a saved state.
    saved: SavedTables,
    /// Watches paused while the tab is hidden.
    quiet: quiet::Quiet,
}

/// What views read of the cluster side besides subscribing: the client
/// for kubectl's verbs (`kubeglass_kubectl`), the clock, discovery as a
/// signal, and what the X-ray page and the banner show.
impl Kube {
    /// The rate-limited client, for kubectl's verbs (reviews, drains).
    pub fn client(&self) -> &RestClient {
        &self.client
    }

    /// Tables saved for the next visit (what X-ray shows, the Forget button).
    pub fn saved(&self) -> &SavedTables {
        &self.saved
    }

    /// The app's one clock.
    pub fn clock(&self) -> Rc<dyn Clock> {
        self.clock.clone()
    }

    /// The latest discovery (None while loading), as a signal.
    pub fn discovered(&self) -> ReadSignal<Option<Result<Arc<Discovery>, Problem>>> {
        self.discovered.read_only()
    }

    /// True when the API is under a capability token (`/<token>/`).
    pub fn protected(&self) -> bool {
        self.protected
    }

    /// Whether watches and logs may go over WebSocket now.
    pub fn sockets(&self) -> Rc<dyn Sockets> {
        self.websockets.clone()
    }

    /// Open connections by kind, for the X-ray page.
    pub fn connection_counts(&self) -> &ConnectionCounts {
        &self.counts
    }

    /// Every informer of the factory with its state, for the X-ray page.
    pub fn informer_snapshots(&self) -> Vec<subscribe::FactoryEntry> {
        self.factory.snapshots()
    }

    /// Every usage poll with its state, for the X-ray page.
    pub fn usage_poll_snapshots(&self) -> Vec<PollSnapshot> {
        self.usage_polls.snapshots()
    }
}

impl Kube {
    /// Wires the factory and discovery to `client`, and loads discovery
    /// (cached under `scope`, the API's base URL, apart from other servers').
    /// `host` is the browser, or a native test's stand-in; `protected`: the
    /// API is under a capability token.
    pub fn new(
        client: RestClient,
        clock: Rc<dyn Clock>,
        reconnect: Reconnect,
        host: Host,
        scope: &str,
        protected: bool,
    ) -> Self {
        let usage_polls = UsagePolls::new(client.clone(), clock.clone(), host.spawn.clone());
        if let Some(store) = &host.saved {
            // The metrics graphs' points, beside the saved tables.
            usage_polls.keep_history(Rc::new(stores::saved::SavedUsage(store.clone())));
        }
        let factory = InformerFactory::with_reconnect(
            client.clone(),
            clock.clone(),
            host.spawn.clone(),
            reconnect,
        );
        // A view left keeps its watch for a minute, so going back is
        // instant — if the watch goes over WebSocket (whole objects). Table
        // and metadata watches need an Accept header, so they hold one of the
        // browser's six HTTP/1.1 connections: those stop at once.
        factory.set_linger(|key| match key.format {
            Format::Full => Duration::from_secs(60),
            _ => Duration::ZERO,
        });
        factory.start();
        let discovery = Rc::new(
            CachedDiscovery::new(
                DiscoveryClient::new(client.clone()),
                host.storage.clone(),
                clock.clone(),
            )
            .with_scope(scope),
        );
        let saved = SavedTables::new(host.saved.clone(), clock.clone());
        host.spawn(saved.clone().run());
        let kube = Self {
            saved,
            quiet: quiet::Quiet::new(),
            client,
            clock,
            factory,
            usage_polls,
            discovery,
            discovered: RwSignal::new(None),
            counts: host.counts.clone(),
            websockets: host.sockets.clone(),
            host,
            protected,
        };
        kube.load_discovery(false);
        kube
    }

    /// Now, in the app's one unit (seconds since the epoch).
    pub fn now(&self) -> Seconds {
        self.clock.now().as_secs_f64()
    }

    /// Loads discovery (cached if fresh, unless `refresh`) into `discovered`;
    /// a stale cache is shown at once and refreshed behind it.
    pub fn load_discovery(&self, refresh: bool) {
        let this = self.clone();
        self.spawn(async move {
            let result = if refresh {
                this.discovery.refresh().await.map(|d| (d, false))
            } else {
                this.discovery.get_stale_while_revalidate().await
            };
            match result {
                Ok((d, stale)) => {
                    this.discovered.set(Some(Ok(Arc::new(d))));
                    if stale && let Ok(d) = this.discovery.refresh().await {
                        this.discovered.set(Some(Ok(Arc::new(d))));
                    }
                }
                Err(e) => {
                    // Keep a tree already shown; say what failed otherwise.
                    if !matches!(this.discovered.get_untracked(), Some(Ok(_))) {
                        this.discovered.set(Some(Err(Problem::from_error(&e))));
                    }
                }
            }
        });
    }

    /// Resolves a name the way kubectl does (plural, singular, short name,
    /// kind, `plural.group`), refetching discovery once if it is unknown.
    pub async fn resolve(&self, name: &str) -> Result<Option<ResourceInfo>, Problem> {
        self.discovery
            .resolve(name)
            .await
            .map_err(|e| Problem::from_error(&e))
    }

    /// [`Kube::resolve`], judged against the verbs a page needs.
    pub async fn resolve_for(
        &self,
        name: &str,
        verbs: &[&str],
    ) -> Result<ResourceInfo, Unresolved> {
        usable(self.resolve(name).await, verbs)
    }

    /// How old the cached discovery is.
    pub fn discovery_age(&self) -> Option<Duration> {
        self.discovery.cached().map(|(_, age)| age)
    }
}

impl Kube {
    /// Starts a one-off request of this layer for a view and returns the
    /// signal its answer lands in (`None` until then); a view gone by then
    /// is left alone. With [`Kube::subscribe`] for watches, the one way a
    /// view asks the cluster for something.
    pub fn load<T: Send + Sync + 'static>(
        &self,
        request: impl std::future::Future<Output = T> + 'static,
    ) -> RwSignal<Option<T>> {
        let answer = RwSignal::new(None);
        self.spawn(async move {
            let _ = answer.try_set(Some(request.await));
        });
        answer
    }
}

/// Provides `kube` to the components below (as a local stored value: the
/// handles inside are single-threaded, as the browser is).
pub fn provide_kube(kube: Kube) {
    provide_context(StoredValue::new_local(kube));
}

/// The shared handles provided by the app.
pub fn use_kube() -> Kube {
    expect_context::<StoredValue<Kube, leptos::prelude::LocalStorage>>().get_value()
}
