//! What every view shares: the client, the clock, the informer factory (one
//! watch per resource however many views use it) and discovery.

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use kubeglass_client::cache::factory::Format;
use kubeglass_client::cache::factory::Spawner;
use kubeglass_client::cache::informer::HandlerRegistration;
use kubeglass_client::cache::{
    InformerFactory, InformerOptions, InformerRef, Notification, SharedInformer, object_key,
};
use kubeglass_client::clock::Clock;
use kubeglass_client::discovery::{CachedDiscovery, Discovery, DiscoveryClient, ResourceInfo};
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::reconnect::Reconnect;
use kubeglass_client::rest::RestClient;
use kubeglass_web::{ConnectionCounts, FrameQueue, WebSocketTransport, spawn};
use leptos::prelude::*;

/// Shared handles, provided as context.
#[derive(Clone)]
pub struct Kube {
    /// The rate-limited client.
    pub client: RestClient,
    /// The browser's clock.
    pub clock: Rc<dyn Clock>,
    /// Shared informers.
    pub factory: InformerFactory,
    /// Discovery, cached in localStorage for 10 minutes.
    pub discovery: Rc<CachedDiscovery>,
    /// The latest discovery (None while loading).
    pub discovered: RwSignal<Option<Result<Arc<Discovery>, String>>>,
    /// Open connections by kind (fetch, stream, WebSocket), for the X-ray page.
    pub counts: Rc<ConnectionCounts>,
    /// True when watches may go over WebSocket.
    pub websockets: Rc<WebSocketTransport>,
}

impl Kube {
    /// Wires the factory and discovery to `client`, and loads discovery
    /// (cached under `scope`, the API's base URL, apart from other servers').
    pub fn new(
        client: RestClient,
        clock: Rc<dyn Clock>,
        reconnect: Reconnect,
        transport: Rc<WebSocketTransport>,
        scope: &str,
    ) -> Self {
        let spawner: Spawner = Rc::new(spawn);
        let factory =
            InformerFactory::with_reconnect(client.clone(), clock.clone(), spawner, reconnect);
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
                Rc::new(kubeglass_web::LocalStorage),
                clock.clone(),
            )
            .with_scope(scope),
        );
        let kube = Self {
            client,
            clock,
            factory,
            discovery,
            discovered: RwSignal::new(None),
            counts: transport.fetch().counts(),
            websockets: transport,
        };
        kube.load_discovery(false);
        kube
    }

    /// Loads discovery (cached if fresh, unless `refresh`) into `discovered`;
    /// a stale cache is shown at once and refreshed behind it.
    pub fn load_discovery(&self, refresh: bool) {
        let this = self.clone();
        spawn(async move {
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
                        this.discovered.set(Some(Err(e.to_string())));
                    }
                }
            }
        });
    }

    /// Resolves a name the way kubectl does (plural, singular, short name,
    /// kind, `plural.group`), refetching discovery once if it is unknown.
    pub async fn resolve(&self, name: &str) -> Result<Option<ResourceInfo>, String> {
        let r = self
            .discovery
            .resolve(name)
            .await
            .map_err(|e| e.to_string())?;
        Ok(r)
    }

    /// How old the cached discovery is.
    pub fn discovery_age(&self) -> Option<Duration> {
        self.discovery.cached().map(|(_, age)| age)
    }
}

/// A view's hold on a shared informer with its handler: dropping it removes
/// the handler and, if no other view holds the informer, stops its watch.
pub struct Watch<K> {
    informer: InformerRef<K>,
    registration: HandlerRegistration<K>,
    /// Stops waiting for the first sync when the view goes first.
    sync_wait: futures::future::AbortHandle,
}

impl<K> Drop for Watch<K> {
    fn drop(&mut self) {
        self.registration.remove();
        self.sync_wait.abort();
    }
}

impl<K> std::ops::Deref for Watch<K> {
    type Target = SharedInformer<K>;
    fn deref(&self) -> &SharedInformer<K> {
        &self.informer
    }
}

impl Kube {
    /// An informer (shared through the factory) whose changed keys reach
    /// `apply` once per animation frame; the informer's cache already holds
    /// them. An informer that syncs with nothing notifies nothing, so then
    /// `apply` gets one empty batch: a view learns its list is empty. Keep
    /// the returned [`Watch`] as long as the view shows them.
    pub fn watch_frames<K>(
        &self,
        name: &str,
        options: InformerOptions<K>,
        mut apply: impl FnMut(&SharedInformer<K>, Vec<String>) + 'static,
    ) -> Watch<K>
    where
        K: kubeglass_client::kube_core::Resource + serde::de::DeserializeOwned + Clone + 'static,
    {
        let informer = self.factory.informer(options);
        let inf = (*informer).clone();
        let apply = Rc::new(std::cell::RefCell::new(
            move |inf: &SharedInformer<K>, keys: Vec<String>| apply(inf, keys),
        ));
        let (on_sync, on_sync_apply) = (inf.clone(), apply.clone());
        let (synced, sync_wait) = futures::future::abortable(async move {
            on_sync.wait_synced().await;
            if on_sync.indexer().borrow().is_empty() {
                (on_sync_apply.borrow_mut())(&on_sync, Vec::new());
            }
        });
        spawn(async move {
            let _ = synced.await;
        });
        let frames = FrameQueue::new(name, move |keys: Vec<String>| {
            (apply.borrow_mut())(&inf, keys)
        });
        let registration = informer.add_handler(
            move |n: &Notification<K>| {
                let key = match n {
                    Notification::Added { object, .. } => object_key(object.as_ref()),
                    Notification::Updated { new, .. } => object_key(new.as_ref()),
                    Notification::Deleted { object, .. } => object_key(object.as_ref()),
                };
                frames.add(key);
            },
            None,
        );
        Watch {
            informer,
            registration,
            sync_wait,
        }
    }
}

impl Kube {
    /// Whole objects of `path` (over WebSocket), kept in `rows` by key, each
    /// made by `row` from its key and object, once per frame. `rows` starts
    /// empty.
    pub fn watch_rows<R: Send + Sync + 'static>(
        &self,
        name: &str,
        path: &str,
        rows: RwSignal<BTreeMap<String, R>>,
        row: impl Fn(&str, &DynamicObject) -> R + 'static,
    ) -> Watch<DynamicObject> {
        rows.set(BTreeMap::new());
        self.watch_frames(
            name,
            InformerOptions::<DynamicObject>::new(path),
            move |inf, keys| {
                let indexer = inf.indexer();
                let indexer = indexer.borrow();
                rows.update(|rows| {
                    for key in keys {
                        match indexer.get(&key) {
                            Some(o) => {
                                let r = row(&key, &o);
                                rows.insert(key, r);
                            }
                            None => {
                                rows.remove(&key);
                            }
                        }
                    }
                });
            },
        )
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
