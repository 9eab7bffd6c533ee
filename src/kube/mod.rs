//! The cluster as every view shares it: the client, the injected clock, the informer factory (one watch per resource however many views use it) and discovery.
//!
//! # The cluster side, module by module
//!
//! The cluster side. `start` builds the transports under the
//! page's capability prefix, the rate-limited client and the only clock the
//! app reads. `Kube` (`mod`) holds the client, clock, `InformerFactory` and
//! cached discovery, and the `Host` it runs on (`host`): spawning, animation
//! frames (`Kube::frame_queue`), the discovery cache's storage, the
//! WebSocket switches (`Sockets`), connection counts and the files beside
//! the page. `Host::browser` is the tab's; the room's native tests
//! (`kube/tests`) build one whose executor, frames and storage they step by
//! hand, and run subscriptions, discovery, the session file and log streams
//! against the client's scripted fake API server. `resolve` returns a typed `Problem`, and `resolve_for`
//! judges the answer against the verbs a page needs (`rules/resolve`).
//! `Kube::load` is how a view makes a one-off request of this layer (resolve a
//! name, ask what the person may do): it returns the signal the answer
//! lands in, and a view gone by then is left alone. `watch` is **the
//! one way a view subscribes**, in one line:
//! `kube.subscribe("pod-counts", &path).table().frames(apply)`. The
//! `Subscribe` builder picks the informer's options (whole objects or
//! `table()` rows or `metadata_only()`, managedFields dropped unless
//! `with_managed_fields()`, or cut by `trimmed(name, f)` as each object is
//! decoded, e.g. the usage columns' pods to their containers' `resources`),
//! `fields`/`labels` selectors, `owner_index()`
//! read with `Watch::owned_by`), so no page builds `InformerOptions` or
//! imports the client's `cache`; Secret redaction is the informer's own.
//! `frames` hands the view its changed keys once per animation frame (an
//! empty batch when it syncs empty) through the room's `watch_frames`;
//! `rows` keeps a map of rows instead. The returned `Watch` carries the
//! informer's status as a signal (refreshed each frame and each clock tick)
//! and, when dropped, removes the handler and releases the informer; a frame
//! already asked for then applies nothing (the view's signals are gone). Tables,
//! the overview's panels, the event stream, an object and its events, what
//! it owns, the log pages and the API page's CRD watch all use it. Whole-object informers (over WebSocket) linger a minute so going
//! back is instant; Table and metadata informers hold one of the browser's
//! six HTTP/1.1 connections, so they stop at once. Usage has no
//! watch: `usage` is the one way a view shows it,
//! `kube.usage(Target::Pods(ns))`, a handle on the client's shared
//! `UsagePolls` poll of that target with a tick that changes after each
//! poll, so a view that reads `latest`, `state` or `points` redraws then.
//! `workload` (`kube.workload_pods`) watches a workload's pods together —
//! the workload by name for its UID, a Deployment's ReplicaSets, the
//! namespace's pods, both by the owner-UID index — for its merged logs and
//! its usage. `cluster` is the
//! app-wide state, owned by the app rather than by whichever page runs
//! first: the clock's tick (`Now`, defined in `mod` beside the clock, so
//! `watch` reads it without a circle back to `cluster`), the server version, the connection, the
//! namespaces (an app-wide informer, so a deep link to `#/r/pods` has the
//! namespace menu filled) and the namespace the app works in. `access` asks
//! SelfSubjectAccessReviews per action; a failure to ask is kept apart from
//! "no". `session` reads the launcher's `kubeglass-context.json` once before
//! any page is drawn; its schema is one type, `kubeglass_kubectl::session`'s
//! `Session`, which `kubectl glass` writes (`session_for`) and the app parses,
//! with unknown fields refused. `versions` is the tab's `VersionStore`: every
//! version the object page's informer hands over is recorded there, and the
//! History section reads it. `changes` is the tab's `ChangeStore`: started
//! the first time the changes page opens, it subscribes to every object of
//! each kind in `KINDS` and any the person adds (resolved through discovery;
//! core Secrets refused) with `subscribe(…).with_managed_fields().each(…)`:
//! not a view's frames but every notification as it comes (`Kube::watch_each`),
//! so the objects there at sync, marked `initial`, are the starting point and
//! not rows, and no version is merged into the next; views hear that rows came
//! once per animation frame. The Warning events come from the shared events
//! informer the same way. `edit` makes an edit's round trips that write
//! nothing: the dry run of the edit's patch (`dryRun=All`) and the object now, for a conflict;
//! the write itself is the action queue's `ActionKind::Edit`, the same
//! merge patch (recorded as an Event, a 409 never retried).
//! `create` finds where a document goes (`target`: its kind through
//! discovery's mapper, its namespace or the picked one, cluster-scoped kinds
//! none) and asks for a dry-run create (`dry_run_create`); the write is the
//! action queue's `ActionKind::Create` (recorded as an Event, AlreadyExists
//! final). `access::may_create` asks a SelfSubjectRulesReview whether the
//! person may create anything in the namespace (the reviews every user may
//! create do not count), for the Create link. `logs` opens one container's log (`Api::logs` read
//! as a stream): followed logs go over WebSocket with the `binary.k8s.io`
//! subprotocol, so they hold none of the six connections (a failed log
//! socket falls back to fetch, for logs only); lines are cut as bytes arrive
//! and handed to the view once per animation frame through a `FrameQueue`;
//! dropping the `LogStream` aborts it. It keeps the registry of streams
//! (open ones and the last ten closed, with transport and line count) that
//! the X-ray page lists.
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
use kubeglass_kubectl::usage::UsagePolls;
use kubeglass_web::ConnectionCounts;
use leptos::prelude::*;

use crate::rules::problem::Problem;
use crate::rules::resolve::{Unresolved, usable};
use crate::rules::time::Seconds;

pub mod access;
pub mod bulk;
pub mod changes;
pub mod cluster;
pub mod create;
pub mod edit;
pub mod forwards;
pub mod host;
pub mod logs;
pub mod reads;
pub mod session;
mod settle;
pub mod shell;
pub mod start;
pub mod usage;
pub mod versions;
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
    /// Shared polls of metrics.k8s.io usage (it has no watch).
    pub usage_polls: UsagePolls,
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
        let usage_polls = UsagePolls::new(client.clone(), clock.clone(), host.spawn.clone());
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
