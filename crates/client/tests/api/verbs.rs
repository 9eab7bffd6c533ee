//! The verbs: get, create, replace, list and watch options, every patch type, delete, the status and scale subresources.

use super::*;

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
