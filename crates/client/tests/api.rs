//! Every verb, option, content type and error path of `Api<K>` against the
//! scripted fake API server (each request is checked: method, path, query,
//! headers and body).

use std::rc::Rc;
use std::time::Duration;

use futures::StreamExt;
use futures::executor::block_on;
use http::Method;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kubeglass_client::api::{Api, Deleted};
use kubeglass_client::kube_core::params::{
    DeleteParams, ListParams, Patch, PatchParams, PostParams, Preconditions, PropagationPolicy,
    VersionMatch, WatchParams,
};
use kubeglass_client::kube_core::subresource::LogParams;
use kubeglass_client::kube_core::watch::WatchEvent;
use kubeglass_client::kube_core::{ApiResource, DynamicObject, GroupVersionKind};
use kubeglass_client::rest::table::IncludeObject;
use kubeglass_client::rest::{Error, RestClient};
use kubeglass_client::testing::{FakeApiServer, Reply};
use kubeglass_client::transport::TransportError;
use serde_json::json;

const CMS: &str = "/api/v1/namespaces/shop/configmaps";

fn setup() -> (FakeApiServer, Api<ConfigMap>) {
    let server = FakeApiServer::new();
    let api = Api::namespaced(RestClient::new(Rc::new(server.clone())), "shop");
    (server, api)
}

fn cm_json(name: &str, rv: &str) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "shop", "resourceVersion": rv}, "data": {"k": "v"}})
}

fn cm(name: &str) -> ConfigMap {
    serde_json::from_value(cm_json(name, "")).expect("configmap")
}

#[test]
fn get_create_replace_and_a_conflict() {
    let (server, api) = setup();
    server
        .expect_get(&format!("{CMS}/a"))
        .reply(Reply::json(200, cm_json("a", "5")));
    server
        .expect(Method::POST, CMS)
        .query("fieldManager", "kubeglass")
        .header("content-type", "application/json")
        .body(serde_json::to_value(cm("b")).expect("json"))
        .reply(Reply::json(201, cm_json("b", "6")));
    server
        .expect(Method::PUT, &format!("{CMS}/a"))
        .reply(Reply::status(409, "Conflict", "the object has been modified; please apply your changes to the latest version and try again"));
    block_on(async {
        let a = api.get("a").await.expect("get");
        assert_eq!(a.metadata.resource_version.as_deref(), Some("5"));
        let pp = PostParams {
            field_manager: Some("kubeglass".into()),
            ..Default::default()
        };
        let b = api.create(&pp, &cm("b")).await.expect("create");
        assert_eq!(b.metadata.resource_version.as_deref(), Some("6"));
        let err = api
            .replace("a", &PostParams::default(), &a)
            .await
            .expect_err("409");
        let e = err.api().expect("api error");
        assert!(e.is_conflict() && !e.is_not_found());
        assert!(e.message().contains("has been modified"));
    });
    server.verify();
}

#[test]
fn get_opt_turns_not_found_into_none() {
    let (server, api) = setup();
    server
        .expect_get(&format!("{CMS}/missing"))
        .reply(Reply::status(
            404,
            "NotFound",
            "configmaps \"missing\" not found",
        ));
    server
        .expect_get(&format!("{CMS}/forbidden"))
        .reply(Reply::status(
            403,
            "Forbidden",
            "configmaps \"forbidden\" is forbidden: User \"viewer\" cannot get resource",
        ));
    block_on(async {
        assert!(api.get_opt("missing").await.expect("ok").is_none());
        let err = api.get_opt("forbidden").await.expect_err("403 is not none");
        assert!(err.api().is_some_and(|a| a.is_forbidden()));
        assert!(
            err.to_string()
                .contains("User \"viewer\" cannot get resource")
        );
    });
    server.verify();
}

#[test]
fn every_list_option_reaches_the_query() {
    let (server, api) = setup();
    server
        .expect_get(CMS)
        .query("labelSelector", "app=web,tier!=db")
        .query("fieldSelector", "metadata.name!=x")
        .query("limit", "2")
        .query("resourceVersion", "100")
        .query("resourceVersionMatch", "NotOlderThan")
        .reply(Reply::json(
            200,
            json!({"kind": "ConfigMapList", "apiVersion": "v1",
            "metadata": {"resourceVersion": "101", "continue": "tok"},
            "items": [cm_json("a", "1"), cm_json("b", "2")]}),
        ));
    server
        .expect_get(CMS)
        .query("continue", "tok")
        .query("limit", "2")
        .no_query("resourceVersion")
        .reply(Reply::json(
            200,
            json!({"kind": "ConfigMapList", "apiVersion": "v1",
            "metadata": {"resourceVersion": "101"}, "items": [cm_json("c", "3")]}),
        ));
    block_on(async {
        let lp = ListParams::default()
            .labels("app=web,tier!=db")
            .fields("metadata.name!=x")
            .limit(2)
            .at("100")
            .matching(VersionMatch::NotOlderThan);
        let page = api.list(&lp).await.expect("page 1");
        assert_eq!(page.items.len(), 2);
        let token = page.metadata.continue_.clone().expect("continue");
        let page2 = api
            .list(&ListParams::default().limit(2).continue_token(&token))
            .await
            .expect("page 2");
        assert_eq!(page2.items.len(), 1);
        assert!(page2.metadata.continue_.is_none());
    });
    server.verify();
}

#[test]
fn watch_options_and_events() {
    let (server, api) = setup();
    let (reply, stream) = Reply::stream();
    server
        .expect_get(CMS)
        .query("watch", "true")
        .query("resourceVersion", "7")
        .query("allowWatchBookmarks", "true")
        .query("timeoutSeconds", "120")
        .query("labelSelector", "app=web")
        .reply(reply);
    let (reply2, _s2) = Reply::stream();
    server
        .expect_get(CMS)
        .query("watch", "true")
        .query("sendInitialEvents", "true")
        .query("resourceVersionMatch", "NotOlderThan")
        .query("allowWatchBookmarks", "true")
        .reply(reply2);
    block_on(async {
        let mut events = api
            .watch(&WatchParams::default().labels("app=web").timeout(120), "7")
            .await
            .expect("watch");
        stream.event("ADDED", cm_json("a", "8"));
        // An event split across chunks, in the middle of a multi-byte character.
        let line = format!(
            "{}\n",
            json!({"type": "MODIFIED", "object": cm_json("é", "9")})
        );
        let bytes = line.as_bytes();
        let cut = line.find('é').expect("é") + 1;
        stream.chunk(&bytes[..cut]);
        stream.chunk(&bytes[cut..]);
        stream.event(
            "BOOKMARK",
            json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"resourceVersion": "10"}}),
        );
        stream.close();
        let got: Vec<String> = events
            .by_ref()
            .map(|e| match e.expect("event") {
                WatchEvent::Added(c) => format!("added {}", c.metadata.name.unwrap_or_default()),
                WatchEvent::Modified(c) => {
                    format!("modified {}", c.metadata.name.unwrap_or_default())
                }
                WatchEvent::Bookmark(b) => format!("bookmark {}", b.metadata.resource_version),
                other => format!("{other:?}"),
            })
            .collect()
            .await;
        assert_eq!(got, ["added a", "modified é", "bookmark 10"]);
        let _streaming = api
            .watch(&WatchParams::streaming_lists(), "")
            .await
            .expect("streaming list");
    });
    server.verify();
}

#[test]
fn every_patch_type_sets_its_content_type() {
    let (server, api) = setup();
    let path = format!("{CMS}/a");
    server
        .expect(Method::PATCH, &path)
        .header("content-type", "application/merge-patch+json")
        .body(json!({"data": {"k": "v2"}}))
        .reply(Reply::json(200, cm_json("a", "2")));
    server
        .expect(Method::PATCH, &path)
        .header("content-type", "application/json-patch+json")
        .body(json!([{"op": "replace", "path": "/data/k", "value": "v3"}]))
        .reply(Reply::json(200, cm_json("a", "3")));
    server
        .expect(Method::PATCH, &path)
        .header("content-type", "application/strategic-merge-patch+json")
        .reply(Reply::json(200, cm_json("a", "4")));
    server
        .expect(Method::PATCH, &path)
        .header("content-type", "application/apply-patch+yaml")
        .query("fieldManager", "kubeglass")
        .query("force", "true")
        .reply(Reply::json(200, cm_json("a", "5")));
    block_on(async {
        let pp = PatchParams::default();
        api.patch("a", &pp, &Patch::Merge(json!({"data": {"k": "v2"}})))
            .await
            .expect("merge");
        let jp: kubeglass_client::kube_core::params::Patch<serde_json::Value> = Patch::Json(
            serde_json::from_value(json!([{"op": "replace", "path": "/data/k", "value": "v3"}]))
                .expect("json patch"),
        );
        api.patch("a", &pp, &jp).await.expect("json patch");
        api.patch("a", &pp, &Patch::Strategic(json!({"data": {"k": "v4"}})))
            .await
            .expect("strategic");
        let apply = PatchParams::apply("kubeglass").force();
        let done = api
            .patch("a", &apply, &Patch::Apply(cm_json("a", "")))
            .await
            .expect("apply");
        assert_eq!(done.metadata.resource_version.as_deref(), Some("5"));
    });
    server.verify();
}

#[test]
fn delete_with_options_and_both_answers() {
    let (server, api) = setup();
    server
        .expect(Method::DELETE, &format!("{CMS}/a"))
        .body(json!({"propagationPolicy": "Foreground", "gracePeriodSeconds": 0,
                      "preconditions": {"uid": "u-1", "resourceVersion": "5"}}))
        .reply(Reply::json(200, json!({"kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": ["x"]}})));
    server
        .expect(Method::DELETE, &format!("{CMS}/b"))
        .reply(Reply::json(
            200,
            json!({"kind": "Status", "apiVersion": "v1", "status": "Success",
            "details": {"name": "b", "kind": "configmaps"}}),
        ));
    server
        .expect(Method::DELETE, CMS)
        .query("labelSelector", "tmp=true")
        .reply(Reply::json(
            200,
            json!({"kind": "ConfigMapList", "apiVersion": "v1",
            "metadata": {}, "items": [cm_json("c", "1")]}),
        ));
    block_on(async {
        let dp = DeleteParams {
            propagation_policy: Some(PropagationPolicy::Foreground),
            grace_period_seconds: Some(0),
            preconditions: Some(Preconditions {
                uid: Some("u-1".into()),
                resource_version: Some("5".into()),
            }),
            ..Default::default()
        };
        match api.delete("a", &dp).await.expect("delete a") {
            Deleted::Pending(c) => assert!(c.metadata.deletion_timestamp.is_some()),
            Deleted::Gone(s) => panic!("expected the object, got {s:?}"),
        }
        assert!(matches!(
            api.delete("b", &DeleteParams::default())
                .await
                .expect("delete b"),
            Deleted::Gone(_)
        ));
        match api
            .delete_collection(
                &DeleteParams::default(),
                &ListParams::default().labels("tmp=true"),
            )
            .await
            .expect("deletecollection")
        {
            Deleted::Pending(list) => assert_eq!(list.items.len(), 1),
            Deleted::Gone(_) => panic!("expected the list"),
        }
    });
    server.verify();
}

#[test]
fn status_and_scale_subresources() {
    let server = FakeApiServer::new();
    let api: Api<Deployment> = Api::namespaced(RestClient::new(Rc::new(server.clone())), "shop");
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {}},
        "status": {"replicas": 3, "conditions": [{"type": "Available", "status": "True"}]}});
    let path = "/apis/apps/v1/namespaces/shop/deployments/web";
    server
        .expect_get(&format!("{path}/status"))
        .reply(Reply::json(200, deploy.clone()));
    server
        .expect(Method::PATCH, &format!("{path}/status"))
        .header("content-type", "application/merge-patch+json")
        .reply(Reply::json(200, deploy));
    server
        .expect_get(&format!("{path}/scale"))
        .reply(Reply::json(
            200,
            json!({"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": {"name": "web"},
               "spec": {"replicas": 3}, "status": {"replicas": 3}}),
        ));
    server
        .expect(Method::PATCH, &format!("{path}/scale"))
        .body(json!({"spec": {"replicas": 5}}))
        .reply(Reply::json(
            200,
            json!({"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": {"name": "web"},
                   "spec": {"replicas": 5}, "status": {"replicas": 3}}),
        ));
    block_on(async {
        let d = api.get_status("web").await.expect("status");
        assert_eq!(d.status.and_then(|s| s.replicas), Some(3));
        api.patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {}})),
        )
        .await
        .expect("patch status");
        let s = api.get_scale("web").await.expect("scale");
        assert_eq!(s.spec.and_then(|s| s.replicas), Some(3));
        let s = api.scale("web", 5).await.expect("scale to 5");
        assert_eq!(s.spec.and_then(|s| s.replicas), Some(5));
    });
    server.verify();
}

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
    use kubeglass_client::testing::FakeClock;
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
fn secrets_are_read_as_metadata_unless_revealed() {
    use kubeglass_client::typed::SecretsApi;
    let server = FakeApiServer::new();
    let secrets = SecretsApi::new(RestClient::new(Rc::new(server.clone())), Some("shop"));
    let path = "/api/v1/namespaces/shop/secrets";
    server
        .expect_get(path)
        .header("accept", "as=PartialObjectMetadataList")
        .reply(Reply::json(
            200,
            json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
            "metadata": {}, "items": [{"metadata": {"name": "db-password", "namespace": "shop"}}]}),
        ));
    server
        .expect_get(&format!("{path}/db-password"))
        .header("accept", "as=PartialObjectMetadata;")
        .reply(Reply::json(
            200,
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"name": "db-password", "namespace": "shop"}}),
        ));
    server
        .expect_get(&format!("{path}/db-password"))
        .reply(Reply::json(
            200,
            json!({"kind": "Secret", "apiVersion": "v1",
            "metadata": {"name": "db-password"}, "data": {"password": "aHVudGVyMg=="}}),
        ));
    block_on(async {
        let list = secrets.list(&ListParams::default()).await.expect("list");
        assert_eq!(list.items[0].metadata.name.as_deref(), Some("db-password"));
        secrets.get("db-password").await.expect("metadata");
        let s = secrets.reveal("db-password").await.expect("reveal");
        assert_eq!(s.data.expect("data")["password"].0, b"hunter2");
    });
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

#[test]
fn secret_data_is_read_only_through_reveal() {
    use k8s_openapi::api::core::v1::Secret;
    let server = FakeApiServer::new();
    let api: Api<Secret> = Api::namespaced(RestClient::new(Rc::new(server.clone())), "shop");
    let e = block_on(api.get("db")).expect_err("a plain GET of a Secret is refused");
    assert!(matches!(e, Error::SecretData(_)), "{e:?}");
    assert!(block_on(api.list(&ListParams::default())).is_err());
    assert!(block_on(api.watch(&WatchParams::default(), "0")).is_err());
    assert!(
        server.log().is_empty(),
        "refused before sending: {:?}",
        server.log()
    );
    // Metadata passes; a reveal passes.
    let meta = json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
        "metadata": {"name": "db", "namespace": "shop"}});
    server
        .expect_get("/api/v1/namespaces/shop/secrets/db")
        .header("accept", "as=PartialObjectMetadata")
        .reply(Reply::json(200, meta));
    block_on(api.get_metadata("db")).expect("metadata");
    server
        .expect_get("/api/v1/namespaces/shop/secrets/db")
        .reply(Reply::json(
            200,
            json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "db", "namespace": "shop"}, "data": {"password": "aHVudGVyMg=="}}),
        ));
    let s = block_on(api.reveal("db")).expect("revealed");
    assert!(s.data.is_some());
    server.verify();
}

// Every one-off read of Secret metadata hides the annotations' values (kapp
// and kubectl apply keep the Secret, data and all, in one): one object, a
// metadata list and a table page. Other kinds keep theirs.
#[test]
fn one_off_reads_of_secret_metadata_hide_annotation_values() {
    use k8s_openapi::api::core::v1::Secret;
    use kubeglass_client::rest::secrets::HIDDEN_VALUE;
    let copy = "{\"data\":{\"password\":\"aHVudGVyMg==\"}}";
    let meta = |name: &str| {
        json!({"name": name, "namespace": "shop",
               "annotations": {"kapp.k14s.io/original": copy, "team": "shop"}})
    };
    let server = FakeApiServer::new();
    let client = RestClient::new(Rc::new(server.clone()));
    let secrets: Api<Secret> = Api::namespaced(client.clone(), "shop");
    let path = "/api/v1/namespaces/shop/secrets";
    server.expect_get(&format!("{path}/db")).reply(Reply::json(
        200,
        json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta("db")}),
    ));
    server.expect_get(path).header("accept", "as=PartialObjectMetadataList").reply(Reply::json(
        200,
        json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1", "metadata": {},
               "items": [{"metadata": meta("db")}]}),
    ));
    let table = |metadata: serde_json::Value| {
        json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {},
               "columnDefinitions": [{"name": "Name", "type": "string"}],
               "rows": [{"cells": ["db"], "object": {"metadata": metadata}}]})
    };
    server
        .expect_get(path)
        .header("accept", "as=Table")
        .reply(Reply::json(200, table(meta("db"))));
    let hidden = |a: Option<&std::collections::BTreeMap<String, String>>| {
        let a = a.expect("annotations");
        assert_eq!(a.len(), 2, "every key stays: {a:?}");
        assert!(a.values().all(|v| v == HIDDEN_VALUE), "{a:?}");
    };
    let one = block_on(secrets.get_metadata("db")).expect("metadata");
    hidden(one.metadata.annotations.as_ref());
    let list = block_on(secrets.list_metadata(&ListParams::default())).expect("list");
    hidden(list.items[0].metadata.annotations.as_ref());
    let page = block_on(secrets.list_table_rows(&ListParams::default())).expect("table");
    hidden(page.rows[0].metadata.annotations.as_ref());
    server.verify();
    // A ConfigMap's annotations are its own business.
    let cms: Api<ConfigMap> = Api::namespaced(client, "shop");
    server
        .expect_get(CMS)
        .header("accept", "as=Table")
        .reply(Reply::json(200, table(meta("settings"))));
    let page = block_on(cms.list_table_rows(&ListParams::default())).expect("table");
    let a = page.rows[0]
        .metadata
        .annotations
        .as_ref()
        .expect("annotations");
    assert_eq!(a.get("team").map(String::as_str), Some("shop"));
    server.verify();
}

/// A `Status` answer carrying `Retry-After: secs`.
fn retry_after(code: u16, reason: &str, secs: u64) -> Reply {
    Reply::Body {
        status: code,
        headers: vec![("retry-after", secs.to_string())],
        body: json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                     "reason": reason, "code": code, "message": "try later"})
        .to_string()
        .into_bytes(),
    }
}

/// A client with a fake clock, the pool that runs it, and the clock.
fn retrying(
    server: &FakeApiServer,
) -> (
    Api<ConfigMap>,
    RestClient,
    kubeglass_client::testing::FakeClock,
    futures::executor::LocalPool,
) {
    let clock = kubeglass_client::testing::FakeClock::new(Duration::from_secs(1_000));
    let client = RestClient::new(Rc::new(server.clone())).with_clock(Rc::new(clock.clone()));
    (
        Api::namespaced(client.clone(), "shop"),
        client,
        clock,
        futures::executor::LocalPool::new(),
    )
}

// client-go TestCheckRetryHandles429And5xx: a 429 or 5xx with Retry-After is
// sent again after that long; the retries are counted.
#[test]
fn a_429_or_5xx_with_retry_after_is_sent_again_after_that_long() {
    use futures::task::LocalSpawnExt;
    let server = FakeApiServer::new();
    let path = format!("{CMS}/a");
    server
        .expect_get(&path)
        .reply(retry_after(429, "TooManyRequests", 2));
    server
        .expect_get(&path)
        .reply(retry_after(503, "ServiceUnavailable", 1));
    server
        .expect_get(&path)
        .reply(Reply::json(200, cm_json("a", "1")));
    let (api, client, clock, mut pool) = retrying(&server);
    let got = Rc::new(std::cell::RefCell::new(None));
    let g = got.clone();
    pool.spawner()
        .spawn_local(async move {
            let r = api.get("a").await;
            *g.borrow_mut() = Some(r);
        })
        .expect("spawn");
    pool.run_until_stalled();
    assert_eq!(server.log().len(), 1);
    clock.advance(Duration::from_millis(1999));
    pool.run_until_stalled();
    assert_eq!(server.log().len(), 1, "waits the whole Retry-After");
    clock.advance(Duration::from_millis(1));
    pool.run_until_stalled();
    assert_eq!(server.log().len(), 2);
    clock.advance(Duration::from_secs(1));
    pool.run_until_stalled();
    assert!(
        matches!(got.borrow().as_ref(), Some(Ok(_))),
        "{:?}",
        got.borrow()
    );
    assert_eq!(client.metrics().retries, 2);
    assert_eq!(
        client.metrics().total(),
        3,
        "every attempt is counted by code"
    );
    server.verify();
}

// client-go TestRequestMaxRetries: at most 10 retries, then the error.
#[test]
fn retries_stop_after_ten() {
    use futures::task::LocalSpawnExt;
    let server = FakeApiServer::new();
    let path = format!("{CMS}/a");
    for _ in 0..=kubeglass_client::rest::MAX_RETRIES {
        server
            .expect_get(&path)
            .reply(retry_after(503, "ServiceUnavailable", 1));
    }
    let (api, client, clock, mut pool) = retrying(&server);
    let got = Rc::new(std::cell::RefCell::new(None));
    let g = got.clone();
    pool.spawner()
        .spawn_local(async move {
            let r = api.get("a").await;
            *g.borrow_mut() = Some(r);
        })
        .expect("spawn");
    for _ in 0..20 {
        pool.run_until_stalled();
        clock.advance(Duration::from_secs(1));
    }
    pool.run_until_stalled();
    let e = got
        .borrow_mut()
        .take()
        .expect("done")
        .expect_err("503 in the end");
    assert!(e.api().is_some_and(|a| a.code == 503), "{e:?}");
    assert_eq!(client.metrics().retries, 10);
    server.verify();
}

// A write is repeated after a 429 (never run), not after a 5xx (it may have
// run); nor is anything repeated without Retry-After.
#[test]
fn writes_repeat_only_after_a_429_and_nothing_repeats_without_retry_after() {
    use futures::task::LocalSpawnExt;
    let server = FakeApiServer::new();
    server
        .expect(Method::POST, CMS)
        .reply(retry_after(429, "TooManyRequests", 1));
    server
        .expect(Method::POST, CMS)
        .reply(retry_after(504, "Timeout", 1));
    server.expect_get(&format!("{CMS}/b")).reply(Reply::status(
        503,
        "ServiceUnavailable",
        "no retry-after",
    ));
    let (api, client, clock, mut pool) = retrying(&server);
    let got = Rc::new(std::cell::RefCell::new(Vec::new()));
    let g = got.clone();
    pool.spawner()
        .spawn_local(async move {
            let created = api.create(&PostParams::default(), &cm("x")).await;
            g.borrow_mut()
                .push(created.map(|_| ()).map_err(|e| e.to_string()));
            let read = api.get("b").await;
            g.borrow_mut()
                .push(read.map(|_| ()).map_err(|e| e.to_string()));
        })
        .expect("spawn");
    pool.run_until_stalled();
    clock.advance(Duration::from_secs(1));
    pool.run_until_stalled();
    let got = got.borrow();
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.iter().all(Result::is_err), "{got:?}");
    assert_eq!(client.metrics().retries, 1, "only the 429 was repeated");
    server.verify();
}

// client-go TestConnectionResetByPeerIsRetried (and with_retry.go's
// IsNextRetry): a GET whose connection was reset or hit EOF is sent again,
// a second after each break as if the server had said Retry-After: 1, up to
// maxRetries (10) times; the eleventh break is the error. Writes are not
// repeated.
#[test]
fn connection_reset_by_peer_is_retried_up_to_max_retries() {
    use futures::task::LocalSpawnExt;
    let server = FakeApiServer::new();
    let path = format!("{CMS}/a");
    let reset = || Reply::Fail(TransportError::Read("connection reset by peer".into()));
    // First GET: ten breaks, then the answer.
    for _ in 0..10 {
        server.expect_get(&path).reply(reset());
    }
    server
        .expect_get(&path)
        .reply(Reply::json(200, cm_json("a", "1")));
    // Second GET: eleven breaks; the last is the error.
    for _ in 0..11 {
        server.expect_get(&path).reply(reset());
    }
    // A write whose connection broke is not repeated.
    server.expect(http::Method::POST, CMS).reply(reset());
    let (api, client, clock, mut pool) = retrying(&server);
    let got = Rc::new(std::cell::RefCell::new(Vec::new()));
    let g = got.clone();
    pool.spawner()
        .spawn_local(async move {
            let first = api.get("a").await.is_ok();
            g.borrow_mut().push(first);
            let second = api.get("a").await.is_ok();
            g.borrow_mut().push(second);
            let third = api.create(&PostParams::default(), &cm("x")).await.is_ok();
            g.borrow_mut().push(third);
        })
        .expect("spawn");
    use kubeglass_client::clock::PassiveClock;
    let start = clock.now();
    pool.run_until_stalled();
    while clock.advance_to_next_timer().is_some() {
        pool.run_until_stalled();
    }
    assert_eq!(*got.borrow(), [true, false, false]);
    assert_eq!(client.metrics().retries, 20);
    assert_eq!(
        clock.now() - start,
        Duration::from_secs(20),
        "one second before each repeat"
    );
    server.verify();
}
