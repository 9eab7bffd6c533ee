//! What is asked for and what comes back: Tables and metadata through Accept, pod logs, the dynamic client, errors, the rate limit.

use super::*;

#[test]
fn tables_and_metadata_are_negotiated_with_accept() {
    let (server, api) = setup();
    server
        .expect_get(CMS)
        .header("accept", "as=Table;v=v1;g=meta.k8s.io")
        .query("includeObject", "Object")
        .reply(Reply::json(
            200,
            json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "9"},
            "columnDefinitions": [{"name": "Name", "type": "string", "format": "name"},
                                  {"name": "Data", "type": "integer"}],
            "rows": [{"cells": ["a", 1], "object": cm_json("a", "8")}]}),
        ));
    server
        .expect_get(CMS)
        .header("accept", "as=PartialObjectMetadataList")
        .reply(Reply::json(
            200,
            json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "9"},
            "items": [{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                       "metadata": {"name": "a", "namespace": "shop", "labels": {"x": "y"}}}]}),
        ));
    server
        .expect_get(&format!("{CMS}/a"))
        .header("accept", "as=PartialObjectMetadata;")
        .reply(Reply::json(
            200,
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"name": "a", "namespace": "shop"}}),
        ));
    let (reply, stream) = Reply::stream();
    server
        .expect_get(CMS)
        .header("accept", "as=Table")
        .query("watch", "true")
        .query("includeObject", "Metadata")
        .reply(reply);
    block_on(async {
        let t = api
            .list_table(&ListParams::default(), IncludeObject::Object)
            .await
            .expect("table");
        assert_eq!(t.rows[0].cell_text(1), "1");
        assert_eq!(t.rows[0].name(), Some("a"));
        let m = api
            .list_metadata(&ListParams::default())
            .await
            .expect("metadata list");
        assert_eq!(
            m.items[0]
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("x"))
                .map(String::as_str),
            Some("y")
        );
        let one = api.get_metadata("a").await.expect("metadata");
        assert_eq!(one.metadata.name.as_deref(), Some("a"));
        let mut events = api
            .watch_table(&WatchParams::default(), "9", IncludeObject::Metadata)
            .await
            .expect("table watch");
        stream.event(
            "MODIFIED",
            json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "10"}, "columnDefinitions": [],
            "rows": [{"cells": ["a", 2], "object": {"metadata": {"name": "a", "uid": "u"}}}]}),
        );
        match events.next().await {
            Some(Ok(WatchEvent::Modified(t))) => assert_eq!(t.rows[0].uid(), Some("u")),
            other => panic!("unexpected {other:?}"),
        }
    });
    server.verify();
}

#[test]
fn pod_logs_as_text_and_as_a_stream() {
    let server = FakeApiServer::new();
    let pods: Api<Pod> = Api::namespaced(RestClient::new(Rc::new(server.clone())), "shop");
    server
        .expect_get("/api/v1/namespaces/shop/pods/web-1/log")
        .query("container", "app")
        .query("tailLines", "10")
        .reply(Reply::Body {
            status: 200,
            headers: vec![("content-type", "text/plain".into())],
            body: b"line 1\nline 2\n".to_vec(),
        });
    let (reply, stream) = Reply::stream();
    server
        .expect_get("/api/v1/namespaces/shop/pods/web-1/log")
        .query("follow", "true")
        .reply(reply);
    block_on(async {
        let lp = LogParams {
            container: Some("app".into()),
            tail_lines: Some(10),
            ..Default::default()
        };
        assert_eq!(
            pods.logs("web-1", &lp).await.expect("logs"),
            "line 1\nline 2\n"
        );
        let mut s = pods
            .log_stream(
                "web-1",
                &LogParams {
                    follow: true,
                    ..Default::default()
                },
            )
            .await
            .expect("stream");
        stream.chunk("hello ");
        stream.chunk("world\n");
        stream.close();
        let mut all = Vec::new();
        while let Some(c) = s.next().await {
            all.extend(c.expect("chunk"));
        }
        assert_eq!(all, b"hello world\n");
    });
    server.verify();
}

#[test]
fn dynamic_client_for_a_custom_resource() {
    let server = FakeApiServer::new();
    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("demo.kubeglass.dev", "v1alpha1", "Database"),
        "databases",
    );
    let api = Api::dynamic(RestClient::new(Rc::new(server.clone())), &ar, Some("data"));
    assert_eq!(
        api.path(),
        "/apis/demo.kubeglass.dev/v1alpha1/namespaces/data/databases"
    );
    server
        .expect_get("/apis/demo.kubeglass.dev/v1alpha1/namespaces/data/databases/pg")
        .reply(Reply::json(200, json!({"apiVersion": "demo.kubeglass.dev/v1alpha1", "kind": "Database",
            "metadata": {"name": "pg", "namespace": "data"}, "spec": {"engine": "postgres", "sizeGiB": 10},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}})));
    block_on(async {
        let db: DynamicObject = api.get("pg").await.expect("get");
        assert_eq!(db.data["spec"]["engine"], "postgres");
        assert_eq!(db.data["status"]["conditions"][0]["type"], "Ready");
    });
    server.verify();
}

#[test]
fn bad_names_transport_failures_and_garbage_are_errors() {
    let (server, api) = setup();
    server
        .expect_get(&format!("{CMS}/a"))
        .reply(Reply::Fail(TransportError::Timeout(Duration::from_secs(
            30,
        ))));
    server.expect_get(&format!("{CMS}/b")).reply(Reply::Body {
        status: 200,
        headers: vec![],
        body: b"{not json".to_vec(),
    });
    server.expect_get(&format!("{CMS}/c")).reply(Reply::Body {
        status: 500,
        headers: vec![],
        body: vec![0xff, 0xfe, 0x00],
    });
    block_on(async {
        assert!(matches!(api.get("").await, Err(Error::InvalidName(_))));
        assert!(matches!(
            api.get("../secrets/x").await,
            Err(Error::InvalidName(_))
        ));
        assert!(matches!(
            api.get("a").await,
            Err(Error::Transport(TransportError::Timeout(_)))
        ));
        assert!(matches!(api.get("b").await, Err(Error::Decode(_))));
        let e = api.get("c").await.expect_err("500");
        assert!(e.api().is_some_and(|a| a.is_server_error()));
    });
    server.verify();
}

#[test]
fn the_rate_limit_spaces_requests_and_metrics_count_them() {
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use kubeglass_client::clock::PassiveClock;
    use kubeglass_testing::FakeClock;
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(1_000));
    let client = RestClient::new(Rc::new(server.clone()))
        .with_clock(Rc::new(clock.clone()))
        .with_rate_limit(2.0, 2);
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "shop");
    for i in 0..4 {
        server
            .expect_get(&format!("{CMS}/c{i}"))
            .reply(Reply::json(200, cm_json(&format!("c{i}"), "1")));
    }
    server
        .expect_get(&format!("{CMS}/missing"))
        .reply(Reply::status(404, "NotFound", "not found"));
    let mut pool = LocalPool::new();
    let done = Rc::new(std::cell::RefCell::new(Vec::new()));
    for i in 0..4 {
        let (api, done, clock) = (api.clone(), done.clone(), clock.clone());
        pool.spawner()
            .spawn_local(async move {
                api.get(&format!("c{i}")).await.expect("get");
                done.borrow_mut()
                    .push((i, clock.now().as_millis() as u64 - 1_000_000));
            })
            .expect("spawn");
    }
    pool.run_until_stalled();
    assert_eq!(done.borrow().len(), 2, "the burst of 2 goes at once");
    clock.advance(Duration::from_millis(500));
    pool.run_until_stalled();
    assert_eq!(done.borrow().len(), 3);
    clock.advance(Duration::from_millis(500));
    pool.run_until_stalled();
    assert_eq!(*done.borrow(), [(0, 0), (1, 0), (2, 500), (3, 1000)]);
    // The bucket is empty now: the next request waits half a second.
    let missing = Rc::new(std::cell::Cell::new(false));
    let (api2, missing2) = (api.clone(), missing.clone());
    pool.spawner()
        .spawn_local(async move { missing2.set(api2.get("missing").await.is_err()) })
        .expect("spawn");
    pool.run_until_stalled();
    assert!(!missing.get());
    clock.advance(Duration::from_millis(500));
    pool.run_until_stalled();
    assert!(missing.get(), "the 404 came back as an error");
    let m = client.metrics();
    assert_eq!(
        m.by_verb_code[&("GET".to_string(), "200".to_string())].count,
        4
    );
    assert_eq!(
        m.by_verb_code[&("GET".to_string(), "404".to_string())].count,
        1
    );
    assert!(
        (m.rate_limiter_wait - 2.0).abs() < 1e-9,
        "waited 0.5 + 1.0 + 0.5 s: {}",
        m.rate_limiter_wait
    );
    server.verify();
}

#[test]
fn hostile_namespaces_and_names_build_no_request() {
    let server = FakeApiServer::new();
    let client = RestClient::new(Rc::new(server.clone()));
    // An Event's involvedObject.namespace of `prod/secrets/db#` would aim a
    // DELETE at `.../namespaces/prod/secrets/db`.
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "prod/secrets/db#");
    assert!(api.invalid().is_some());
    let e = block_on(api.delete("x", &DeleteParams::default())).expect_err("invalid namespace");
    assert!(matches!(e, Error::InvalidName(_)), "{e:?}");
    assert!(e.to_string().contains("DNS-1123"), "{e}");
    assert!(block_on(api.list(&ListParams::default())).is_err());
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "shop");
    for name in ["%2e%2e", "..", "a/b", "x#", "x?dryRun=All"] {
        let e = block_on(api.delete(name, &DeleteParams::default())).expect_err(name);
        assert!(matches!(e, Error::InvalidName(_)), "{name}: {e:?}");
    }
    // A dynamic resource whose discovered plural is not a path segment.
    let bad = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apps", "v1", "Deployment"),
        "deployments/../../../api/v1/secrets",
    );
    let api = Api::<DynamicObject>::dynamic(client, &bad, Some("shop"));
    assert!(block_on(api.get("web")).is_err());
    assert!(
        server.log().is_empty(),
        "nothing was sent: {:?}",
        server.log()
    );
    server.verify();
}
