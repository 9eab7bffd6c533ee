//! The cluster as every view shares it: the client, the injected clock, the informer factory (one watch per resource however many views use it) and discovery.

use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use kubeglass_client::cache::InformerFactory;
use kubeglass_client::cache::factory::Format;
use kubeglass_client::clock::Clock;
use kubeglass_client::discovery::{CachedDiscovery, Discovery, DiscoveryClient, ResourceInfo};
use kubeglass_client::reconnect::Reconnect;
use kubeglass_client::rest::RestClient;
use kubeglass_kubectl::metrics::MetricsPolls;
use kubeglass_web::ConnectionCounts;
use leptos::prelude::*;

use crate::model::problem::Problem;
use crate::model::resolve::{Unresolved, usable};
use crate::model::time::Seconds;

pub mod access;
pub mod cluster;
pub mod create;
pub mod edit;
pub mod history;
pub mod host;
pub mod logs;
pub mod metrics;
pub mod reads;
pub mod session;
mod settle;
pub mod start;
pub mod timeline;
pub mod watch;
pub mod workload;

#[cfg(test)]
mod tests;

pub use host::{Host, Sockets};
/// The objects an informer keeps as their last good copy (they stopped
/// decoding), as a view reads them: pages name it through here.
pub use kubeglass_client::cache::Stale;
pub use watch::Watch;

/// The app's clock in seconds since the epoch, ticking once a second (ages,
/// flashes, statuses); set from the injected clock only (`cluster` starts
/// the tick).
#[derive(Clone, Copy)]
pub struct Now(pub RwSignal<Seconds>);

/// Shared handles, provided as context.
#[derive(Clone)]
pub struct Kube {
    /// The rate-limited client.
    pub client: RestClient,
    /// The clock (the browser's; injected, so nothing else reads it).
    pub clock: Rc<dyn Clock>,
    /// Shared informers.
    pub factory: InformerFactory,
    /// Shared polls of metrics.k8s.io (it has no watch).
    pub metrics: MetricsPolls,
    /// Discovery, cached in localStorage for 10 minutes.
    pub discovery: Rc<CachedDiscovery>,
    /// The latest discovery (None while loading).
    pub discovered: RwSignal<Option<Result<Arc<Discovery>, Problem>>>,
    /// Open connections by kind (fetch, stream, WebSocket), for the X-ray page.
    pub counts: Rc<ConnectionCounts>,
    /// Whether watches and logs may go over WebSocket now.
    pub websockets: Rc<dyn Sockets>,
    /// The browser (or a native test's stand-in): spawning, frames, storage.
    pub host: Host,
    /// True when the API is under a capability token (`/<token>/`), so no
    /// other page can reach it; false under a plain `kubectl proxy --www`.
    pub protected: bool,
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
        let metrics = MetricsPolls::new(client.clone(), clock.clone(), host.spawn.clone());
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
        let kube = Self {
            client,
            clock,
            factory,
            metrics,
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
