//! In-browser tests: the fetch transport, the watch decoder and the reflector
//! running in headless Chromium against the real apiserver through a real
//! `kubectl proxy` (started by `make test`).
//!
//! wasm-bindgen-test serves this page from its own port, so the proxy is a
//! different origin; the test browser runs with `--disable-web-security`
//! (crates/web/webdriver.json) for that reason only. The app itself is served
//! by the proxy and needs no such flag.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kubeglass_client::cache::{Reflector, ReflectorConfig, Store};
use kubeglass_client::clock::{Clock, PassiveClock};
use kubeglass_client::kube_core::params::{DeleteParams, PostParams, WatchParams};
use kubeglass_client::kube_core::watch::WatchEvent;
use kubeglass_client::kube_core::{ObjectList, Request};
use kubeglass_client::rest::RestClient;
use kubeglass_client::testing::{informer_scenarios, scenarios};
use kubeglass_client::transport::{Transport, TransportError};
use kubeglass_web::{FetchTransport, WebClock, WebSocketTransport};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const PROXY: &str = match option_env!("KUBEGLASS_TEST_PROXY") {
    Some(p) => p,
    None => "http://127.0.0.1:8001",
};

fn transport() -> Rc<FetchTransport> {
    Rc::new(FetchTransport::new(PROXY, Duration::from_secs(20)))
}

fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", js_sys::Date::now() as u64)
}

/// Polls `cond` every 50 ms for up to `secs` seconds.
async fn eventually(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let clock = WebClock;
    let end = clock.now() + Duration::from_secs(secs);
    while clock.now() < end {
        if cond() {
            return true;
        }
        clock.sleep(Duration::from_millis(50)).await;
    }
    cond()
}

#[wasm_bindgen_test]
async fn reads_the_server_version_through_fetch() {
    let client = RestClient::new(transport());
    let info = client.version().await.expect("GET /version");
    assert!(
        info.git_version.starts_with("v1."),
        "gitVersion {}",
        info.git_version
    );
    assert_ne!(info.git_version, "v0.0.0-master+$Format:%H$");
}

#[wasm_bindgen_test]
async fn every_fetch_asks_the_browser_to_store_nothing() {
    // `window.fetch` wrapped for the length of this test: it records the
    // cache mode of each call and passes it on.
    let wrap = js_sys::Function::new_no_args(
        "const real = window.fetch;
         const seen = [];
         window.fetch = function (url, init) { seen.push(String(init && init.cache)); return real.call(this, url, init); };
         return [seen, () => { window.fetch = real; }];",
    );
    let pair: js_sys::Array = wrap.call0(&JsValue::NULL).expect("wrap fetch").into();
    let seen: js_sys::Array = pair.get(0).into();
    let restore: js_sys::Function = pair.get(1).into();
    let t = transport();
    let version = http::Request::get("/version")
        .body(Vec::new())
        .expect("request");
    let sent = t.send(version).await.map(|r| r.status());
    let watch = http::Request::get("/api/v1/namespaces?watch=true&timeoutSeconds=1")
        .body(Vec::new())
        .expect("request");
    let streamed = t.stream(watch).await.map(|r| r.status());
    restore.call0(&JsValue::NULL).expect("restore fetch");
    assert!(sent.is_ok() && streamed.is_ok(), "{sent:?} {streamed:?}");
    let modes: Vec<String> = seen.iter().filter_map(|v| v.as_string()).collect();
    assert_eq!(
        modes,
        ["no-store", "no-store"],
        "a whole answer, then a stream"
    );
}

#[wasm_bindgen_test]
async fn a_refused_connection_is_a_transport_error() {
    // Port 9 (discard) is closed on the test machine.
    let t = FetchTransport::new("http://127.0.0.1:9", Duration::from_secs(10));
    let req = http::Request::get("/version")
        .body(Vec::new())
        .expect("request");
    match t.send(req).await {
        Err(TransportError::Connect(_)) => {}
        other => panic!(
            "expected a connect error, got {:?}",
            other.map(|r| r.status())
        ),
    }
}

#[wasm_bindgen_test]
async fn a_missing_object_is_a_typed_not_found() {
    let client = RestClient::new(transport());
    let req = Request::new("/api/v1/namespaces/default/configmaps")
        .get("does-not-exist-kubeglass", &Default::default())
        .expect("request");
    let err = client.send_json::<ConfigMap>(req).await.expect_err("404");
    let api = err.api().expect("an API error");
    assert!(api.is_not_found(), "{err}");
    assert!(api.message().contains("does-not-exist-kubeglass"));
}

#[wasm_bindgen_test]
async fn a_watch_stream_sees_create_update_and_delete() {
    let t = transport();
    let client = RestClient::new(t.clone());
    let col = Request::new("/api/v1/namespaces/default/configmaps");
    let list: ObjectList<ConfigMap> = client
        .send_json(col.list(&Default::default()).expect("list"))
        .await
        .expect("list configmaps");
    let rv = list.metadata.resource_version.expect("list rv");
    let name = unique("wbt-watch");
    let wp = WatchParams::default().timeout(60);
    let mut events = client
        .watch::<ConfigMap>(col.watch(&wp, &rv).expect("watch"))
        .await
        .expect("open watch");
    assert_eq!(t.counts().streams.get(), 1);

    let body = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name}, "data": {"html": "<b>not markup</b>", "uni": "你好"}});
    let pp = PostParams::default();
    let _: ConfigMap = client
        .send_json(
            col.create(&pp, body.to_string().into_bytes())
                .expect("create"),
        )
        .await
        .expect("create configmap");
    let patch = serde_json::json!({"data": {"step": "2"}});
    let pp2 = kubeglass_client::kube_core::params::PatchParams::default();
    let _: ConfigMap = client
        .send_json(
            col.patch(
                &name,
                &pp2,
                &kubeglass_client::kube_core::params::Patch::Merge(&patch),
            )
            .expect("patch"),
        )
        .await
        .expect("patch configmap");
    let _: serde_json::Value = client
        .send_json(col.delete(&name, &DeleteParams::default()).expect("delete"))
        .await
        .expect("delete configmap");

    let mut seen = Vec::new();
    while seen.len() < 3 {
        match events.next().await {
            Some(Ok(WatchEvent::Added(c))) if c.metadata.name.as_deref() == Some(&name) => {
                assert_eq!(
                    c.data
                        .as_ref()
                        .and_then(|d| d.get("uni"))
                        .map(String::as_str),
                    Some("你好")
                );
                seen.push("added")
            }
            Some(Ok(WatchEvent::Modified(c))) if c.metadata.name.as_deref() == Some(&name) => {
                seen.push("modified")
            }
            Some(Ok(WatchEvent::Deleted(c))) if c.metadata.name.as_deref() == Some(&name) => {
                seen.push("deleted")
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => panic!("watch error: {e}"),
            None => panic!("watch ended early after {seen:?}"),
        }
    }
    assert_eq!(seen, ["added", "modified", "deleted"]);
    drop(events);
    assert_eq!(
        t.counts().streams.get(),
        0,
        "dropping the watch aborted its fetch"
    );
}

#[wasm_bindgen_test]
async fn a_reflector_syncs_namespaces_and_follows_a_new_one() {
    let t = transport();
    let client = RestClient::new(t.clone());
    let store = Rc::new(RefCell::new(Store::<Namespace>::new()));
    let reflector = Reflector::new(
        client.clone(),
        Rc::new(WebClock),
        ReflectorConfig::new("/api/v1/namespaces"),
        store.clone(),
    );
    let status = reflector.status();
    let (run, handle) = futures::future::abortable(reflector.run());
    kubeglass_web::spawn(async move {
        let _ = run.await;
    });
    assert!(
        eventually(20, || status.borrow().synced).await,
        "never synced: {:?}",
        status.borrow()
    );
    assert!(store.borrow().get("kube-system").is_some());
    assert!(
        store.borrow().get("demo-shop").is_some(),
        "the demo workload's namespace"
    );

    let name = unique("wbt-ns");
    let col = Request::new("/api/v1/namespaces");
    let body =
        serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
    let _: Namespace = client
        .send_json(
            col.create(&PostParams::default(), body.to_string().into_bytes())
                .expect("create"),
        )
        .await
        .expect("create namespace");
    let s = store.clone();
    let n = name.clone();
    assert!(
        eventually(20, move || s.borrow().get(&n).is_some()).await,
        "the new namespace arrived by watch"
    );
    assert_eq!(status.borrow().lists, 1, "one list, then the watch");
    let _: serde_json::Value = client
        .send_json(col.delete(&name, &DeleteParams::default()).expect("delete"))
        .await
        .expect("delete namespace");
    handle.abort();
    assert!(
        eventually(5, || t.counts().streams.get() == 0).await,
        "stopping the reflector closed its watch"
    );
}

// The same integration scenarios the native tests run (kubeglass-client's
// testing::scenarios), here through fetch in Chromium.

const RESTRICTED_PROXY: &str = match option_env!("KUBEGLASS_TEST_RESTRICTED_PROXY") {
    Some(p) => p,
    None => "http://127.0.0.1:8002",
};

fn admin() -> RestClient {
    RestClient::new(transport())
}

#[wasm_bindgen_test]
async fn scenario_configmap_crud() {
    scenarios::configmap_crud(&admin(), &WebClock).await;
}

#[wasm_bindgen_test]
async fn scenario_paginated_list() {
    scenarios::paginated_list(&admin(), &WebClock).await;
}

#[wasm_bindgen_test]
async fn scenario_tables() {
    scenarios::tables(&admin()).await;
}

#[wasm_bindgen_test]
async fn scenario_watch_sees_changes() {
    scenarios::watch_sees_changes(&admin(), &WebClock).await;
}

#[wasm_bindgen_test]
async fn scenario_watch_over_websocket() {
    let ws = Rc::new(WebSocketTransport::new(FetchTransport::new(
        PROXY,
        Duration::from_secs(20),
    )));
    let counts = ws.fetch().counts();
    scenarios::watch_sees_changes(&RestClient::new(ws.clone()), &WebClock).await;
    assert!(
        ws.websockets_enabled(),
        "the socket opened through kubectl proxy"
    );
    assert_eq!(counts.streams.get(), 0, "no fetch stream was used");
    assert!(
        eventually(5, || counts.websockets.get() == 0).await,
        "dropping the watch closed the socket"
    );
}

#[wasm_bindgen_test]
async fn scenario_discovery_finds_crds() {
    scenarios::discovery_finds_crds(&admin(), &WebClock).await;
}

#[wasm_bindgen_test]
async fn scenario_restricted_user_is_forbidden() {
    let restricted = RestClient::new(Rc::new(FetchTransport::new(
        RESTRICTED_PROXY,
        Duration::from_secs(20),
    )));
    scenarios::restricted_user_is_forbidden(&restricted).await;
}

#[wasm_bindgen_test]
async fn discovery_is_cached_in_local_storage() {
    use kubeglass_client::discovery::{CachedDiscovery, DiscoveryClient, KeyValueStore};
    use kubeglass_web::LocalStorage;
    let cache = CachedDiscovery::new(
        DiscoveryClient::new(admin()),
        Rc::new(LocalStorage),
        Rc::new(WebClock),
    )
    .with_scope(PROXY);
    LocalStorage.remove(&cache.key());
    assert!(cache.cached().is_none());
    let d = cache.get().await.expect("discovery");
    assert!(d.mapper().resource_for("deploy").is_some());
    let (cached, age) = cache.cached().expect("stored in localStorage");
    assert_eq!(cached, d);
    assert!(age < Duration::from_secs(60));
}

/// Resolves at the next animation frame.
async fn next_frame() {
    let (tx, rx) = futures::channel::oneshot::channel::<()>();
    let cb = wasm_bindgen::closure::Closure::once_into_js(move || {
        let _ = tx.send(());
    });
    web_sys::window()
        .expect("window")
        .request_animation_frame(wasm_bindgen::JsCast::unchecked_ref(&cb))
        .expect("requestAnimationFrame");
    let _ = rx.await;
}

#[wasm_bindgen_test]
async fn ten_thousand_updates_to_a_hundred_keys_apply_at_most_a_hundred_times() {
    use kubeglass_web::FrameQueue;
    let applied = Rc::new(RefCell::new(Vec::new()));
    let a2 = applied.clone();
    let q = FrameQueue::new(
        "ten-thousand-updates",
        Rc::new(kubeglass_web::WebClock),
        move |batch: Vec<u32>| a2.borrow_mut().extend(batch),
    );
    // 10,000 updates between two frames: 100 per key.
    for i in 0..10_000u32 {
        q.add(i % 100);
    }
    next_frame().await;
    next_frame().await;
    let mut keys = applied.borrow().clone();
    assert!(keys.len() <= 100, "{} view applications", keys.len());
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), 100, "every key was applied");
    assert_eq!(q.frames(), 1, "in one frame");
    assert_eq!(q.metrics().adds, 100);

    // The X-ray page finds it by name, live, and keeps its figures once dropped.
    let named = |name: &str| {
        kubeglass_web::frame_queue_stats()
            .into_iter()
            .filter(|s| s.metrics.name == name)
            .collect::<Vec<_>>()
    };
    let seen = named("ten-thousand-updates");
    assert_eq!(seen.len(), 1);
    let s = &seen[0];
    assert_eq!(
        (s.applied, s.frames, s.largest_batch, s.live),
        (100, 1, 100, 1)
    );
    drop(q);
    let seen = named("ten-thousand-updates");
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (seen[0].applied, seen[0].live),
        (100, 0),
        "kept after the drop, not live"
    );
}

/// Passes requests through, but before the first PUT of a scale subresource
/// it changes the object through another client, so that PUT conflicts.
struct ConflictInjector {
    inner: Rc<FetchTransport>,
    injected: std::cell::Cell<bool>,
}

impl Transport for ConflictInjector {
    fn send(
        &self,
        request: kubeglass_client::transport::Request,
    ) -> futures::future::LocalBoxFuture<'_, Result<http::Response<Vec<u8>>, TransportError>> {
        Box::pin(async move {
            if request.method() == http::Method::PUT
                && request.uri().path().ends_with("/scale")
                && !self.injected.replace(true)
            {
                let other = RestClient::new(transport());
                let deploys: kubeglass_client::api::Api<k8s_openapi::api::apps::v1::Deployment> =
                    kubeglass_client::api::Api::namespaced(other, "demo-shop");
                let bump = serde_json::json!({"metadata": {"annotations": {"kubeglass.dev/conflict": js_sys::Date::now().to_string()}}});
                deploys
                    .patch(
                        "cart",
                        &Default::default(),
                        &kubeglass_client::kube_core::params::Patch::Merge(bump),
                    )
                    .await
                    .expect("bump the deployment");
            }
            self.inner.send(request).await
        })
    }

    fn stream(
        &self,
        request: kubeglass_client::transport::Request,
    ) -> futures::future::LocalBoxFuture<
        '_,
        Result<http::Response<kubeglass_client::transport::ByteStream>, TransportError>,
    > {
        self.inner.stream(request)
    }
}

#[wasm_bindgen_test]
async fn a_scale_action_survives_a_conflict_and_records_an_event() {
    use kubeglass_client::kube_core::{ApiResource, GroupVersionKind};
    use kubeglass_client::record::{ApiSink, EventBroadcaster};
    use kubeglass_kubectl::actions::{Action, ActionKind, ActionQueue, ActionResult};
    let injector = Rc::new(ConflictInjector {
        inner: transport(),
        injected: std::cell::Cell::new(false),
    });
    let client = RestClient::new(injector.clone());
    let clock: Rc<dyn Clock> = Rc::new(WebClock);
    let broadcaster = EventBroadcaster::new();
    let actions = ActionQueue::new(
        client.clone(),
        broadcaster.recorder("kubeglass", clock.clone()),
        clock.clone(),
    );
    let results = Rc::new(RefCell::new(Vec::new()));
    let r2 = results.clone();
    actions.on_result(move |_, r| r2.borrow_mut().push(r.clone()));
    kubeglass_web::spawn(actions.clone().run());
    kubeglass_web::spawn(broadcaster.run(Rc::new(ApiSink::new(admin())), clock.clone()));

    let deploys: kubeglass_client::api::Api<k8s_openapi::api::apps::v1::Deployment> =
        kubeglass_client::api::Api::namespaced(admin(), "demo-shop");
    let before = deploys
        .get_scale("cart")
        .await
        .expect("scale")
        .spec
        .and_then(|s| s.replicas)
        .unwrap_or(0);
    let target = if before == 3 { 2 } else { 3 };
    actions.submit(Action {
        resource: ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("apps", "v1", "Deployment"),
            "deployments",
        ),
        namespace: Some("demo-shop".into()),
        name: "cart".into(),
        kind: ActionKind::Scale(target),
    });
    let r3 = results.clone();
    assert!(
        eventually(20, move || !r3.borrow().is_empty()).await,
        "the action finished"
    );
    assert!(injector.injected.get(), "a conflict was forced");
    assert!(
        matches!(
            *results.borrow().as_slice(),
            [ActionResult::Done { attempts: 2, .. }]
        ),
        "retried once after the conflict: {:?}",
        results.borrow()
    );
    let now = deploys
        .get_scale("cart")
        .await
        .expect("scale")
        .spec
        .and_then(|s| s.replicas);
    assert_eq!(now, Some(target));

    // The Event is on the server, reported by kubeglass.
    let events: kubeglass_client::api::Api<k8s_openapi::api::core::v1::Event> =
        kubeglass_client::api::Api::namespaced(admin(), "demo-shop");
    let want = format!("to {target} replicas by kubeglass");
    let mut found = false;
    for _ in 0..100 {
        let list = events
            .list(
                &kubeglass_client::kube_core::params::ListParams::default()
                    .fields("involvedObject.name=cart,reason=Scaled"),
            )
            .await
            .expect("events");
        found = list.items.iter().any(|e| {
            e.reporting_component.as_deref() == Some("kubeglass")
                && e.message.as_deref().is_some_and(|m| m.contains(&want))
        });
        if found {
            break;
        }
        WebClock.sleep(Duration::from_millis(100)).await;
    }
    assert!(found, "a Scaled event from kubeglass for demo-shop/cart");
}

#[wasm_bindgen_test]
async fn scenario_events_v1_sink() {
    scenarios::events_v1_sink(&admin(), Rc::new(WebClock)).await;
}

const FAULT_PROXY: &str = match option_env!("KUBEGLASS_TEST_FAULT_PROXY") {
    Some(p) => p,
    None => "http://127.0.0.1:18003",
};

const CONTROL: &str = match option_env!("KUBEGLASS_TEST_CONTROL") {
    Some(p) => p,
    None => "http://127.0.0.1:18009",
};

fn client_for(base: &str) -> RestClient {
    RestClient::new(Rc::new(FetchTransport::new(base, Duration::from_secs(30))))
}

#[wasm_bindgen_test]
async fn informer_converges_under_churn_of_2000_objects() {
    informer_scenarios::informer_converges_under_churn(
        &RestClient::new(transport()),
        Rc::new(WebClock),
        2000,
        false,
    )
    .await;
}

// Streaming lists go over WebSocket in the browser (docs/kubectl-proxy.md).
#[wasm_bindgen_test]
async fn streaming_list_informer_converges_under_churn_over_websocket() {
    let ws = WebSocketTransport::new(FetchTransport::new(PROXY, Duration::from_secs(30)));
    informer_scenarios::informer_converges_under_churn(
        &RestClient::new(Rc::new(ws)),
        Rc::new(WebClock),
        400,
        true,
    )
    .await;
}

#[wasm_bindgen_test]
async fn informer_survives_proxy_restart_and_compaction() {
    let admin = RestClient::new(transport());
    let control = client_for(CONTROL);
    informer_scenarios::informer_resumes_after_proxy_restart(
        &client_for(FAULT_PROXY),
        &admin,
        &control,
        Rc::new(WebClock),
    )
    .await;
    informer_scenarios::informer_relists_after_compaction(
        &client_for(FAULT_PROXY),
        &admin,
        &control,
        Rc::new(WebClock),
    )
    .await;
}

#[wasm_bindgen_test]
async fn informer_relists_once_when_its_version_left_the_watch_cache() {
    let lists = informer_scenarios::informer_relists_once_when_its_version_left_the_watch_cache(
        &client_for(FAULT_PROXY),
        &RestClient::new(transport()),
        &client_for(CONTROL),
        Rc::new(WebClock),
    )
    .await;
    web_sys::console::log_1(&format!("LISTs after the proxy returned: {lists}").into());
}

#[wasm_bindgen_test]
async fn table_informer_shows_crd_columns_live() {
    informer_scenarios::table_informer_shows_crd_columns_live(
        &RestClient::new(transport()),
        Rc::new(WebClock),
    )
    .await;
}
