//! The fetch transport, the watch decoder and the reflector in the browser, the discovery cache in localStorage, updates applied once per frame.

use super::*;

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
