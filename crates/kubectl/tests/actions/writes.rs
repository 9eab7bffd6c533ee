//! The writes as kubectl sends them: a poisoned mapping or a hostile name sends nothing, labels, edits, creates.

use super::*;

#[test]
fn a_write_on_a_poisoned_mapping_is_refused_before_it_is_sent() {
    // A cache said "Deployment" lives at core secrets; live discovery says not.
    let server = FakeApiServer::new();
    server.expect_get("/api/v1").reply(Reply::json(
        200,
        json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
            {"name": "secrets", "singularName": "secret", "namespaced": true,
             "kind": "Secret", "verbs": ["get", "delete"]}]}),
    ));
    let poisoned = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("", "v1", "Deployment"),
        "secrets",
    );
    let results = run_one(
        &server,
        Action {
            resource: poisoned,
            namespace: Some("shop".into()),
            name: "web".into(),
            kind: ActionKind::Delete,
        },
    );
    match &results[..] {
        [ActionResult::Failed { error }] => {
            assert!(error.to_string().contains("is now Secret"), "{error}")
        }
        other => panic!("unexpected {other:?}"),
    }
    // verify() fails on any request not scripted: no DELETE went out.
    server.verify();
}

#[test]
fn a_delete_with_a_hostile_name_or_namespace_sends_nothing() {
    // Both come from cluster data (an Event's involvedObject) in the worst
    // case; neither may reach a path, and nothing is asked of discovery.
    for (namespace, name) in [
        (Some("shop"), "%2e%2e"),
        (Some("shop"), "web/../../secrets/db"),
        (Some("prod/secrets/db#"), "web"),
    ] {
        let server = FakeApiServer::new();
        let results = run_one(
            &server,
            Action {
                resource: deployments(),
                namespace: namespace.map(str::to_string),
                name: name.into(),
                kind: ActionKind::Delete,
            },
        );
        match &results[..] {
            [ActionResult::Failed { error }] => assert!(
                matches!(error, Error::InvalidName(_)),
                "{namespace:?} {name}: {error}"
            ),
            other => panic!("{namespace:?} {name}: unexpected {other:?}"),
        }
        server.verify();
    }
}

#[test]
fn labels_are_merge_patched_from_metadata_only() {
    let server = FakeApiServer::new();
    let path = "/api/v1/namespaces/shop/secrets/db";
    server.expect_get("/api/v1").reply(Reply::json(
        200,
        json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
            {"name": "secrets", "singularName": "secret", "namespaced": true,
             "kind": "Secret", "verbs": ["get", "patch"]}]}),
    ));
    let meta = json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
        "metadata": {"name": "db", "namespace": "shop", "uid": "uid-db", "resourceVersion": "41",
                     "labels": {"old": "x"}}});
    server
        .expect_get(path)
        .header(
            "accept",
            "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
        )
        .reply(Reply::json(200, meta.clone()));
    server
        .expect(Method::PATCH, path)
        .header(
            "accept",
            "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
        )
        .body(json!({"metadata": {"resourceVersion": "41", "labels": {"tier": "db", "old": null}}}))
        .reply(Reply::json(200, meta));
    let results = run_one(
        &server,
        Action {
            resource: ApiResource::from_gvk_with_plural(
                &GroupVersionKind::gvk("", "v1", "Secret"),
                "secrets",
            ),
            namespace: Some("shop".into()),
            name: "db".into(),
            kind: ActionKind::Labels(vec![
                ("tier".into(), Some("db".into())),
                ("old".into(), None),
            ]),
        },
    );
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                attempts: 1,
                answer_lost: false,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();
}

// `kubectl annotate --overwrite`: the same read of metadata only and one
// merge patch, of `metadata.annotations`, never of the labels.
#[test]
fn annotations_are_merge_patched_from_metadata_only() {
    let server = FakeApiServer::new();
    let path = "/api/v1/namespaces/shop/configmaps/app";
    server.expect_get("/api/v1").reply(Reply::json(
        200,
        json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
            {"name": "configmaps", "singularName": "configmap", "namespaced": true,
             "kind": "ConfigMap", "verbs": ["get", "patch"]}]}),
    ));
    let meta = json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
        "metadata": {"name": "app", "namespace": "shop", "uid": "uid-app", "resourceVersion": "7",
                     "annotations": {"old": "x"}}});
    server
        .expect_get(path)
        .header(
            "accept",
            "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
        )
        .reply(Reply::json(200, meta.clone()));
    server
        .expect(Method::PATCH, path)
        .body(json!({"metadata": {"resourceVersion": "7",
            "annotations": {"note": "owned by the shop team", "old": null}}}))
        .reply(Reply::json(200, meta));
    let results = run_one(
        &server,
        Action {
            resource: ApiResource::from_gvk_with_plural(
                &GroupVersionKind::gvk("", "v1", "ConfigMap"),
                "configmaps",
            ),
            namespace: Some("shop".into()),
            name: "app".into(),
            kind: ActionKind::Annotations(vec![
                ("note".into(), Some("owned by the shop team".into())),
                ("old".into(), None),
            ]),
        },
    );
    assert!(
        matches!(results.as_slice(), [ActionResult::Done { attempts: 1, .. }]),
        "{results:?}"
    );
    server.verify();
}

// An edit is one merge patch of what the person changed, carrying the
// resourceVersion it began from (as the field manager kubeglass); a 409
// Conflict ends it at once (the person decides, nothing retries it over the
// newer object), and a rename is refused before anything is sent.
#[test]
fn an_edit_is_one_patch_and_a_conflict_is_not_retried() {
    let patch = json!({"metadata": {"resourceVersion": "5"}, "spec": {"replicas": 4}});
    let path = "/apis/apps/v1/namespaces/shop/deployments/web";
    let action = |patch: serde_json::Value| Action {
        resource: deployments(),
        namespace: Some("shop".into()),
        name: "web".into(),
        kind: ActionKind::Edit(patch),
    };
    let server = FakeApiServer::new();
    expect_apps_discovery(&server);
    server
        .expect(Method::PATCH, path)
        .header("content-type", "application/merge-patch+json")
        .query("fieldManager", "kubeglass")
        .body(patch.clone())
        .reply(Reply::status(
            409,
            "Conflict",
            "the object has been modified",
        ));
    let results = run_one(&server, action(patch.clone()));
    match results.as_slice() {
        [ActionResult::Failed { error }] => {
            assert!(error.api().is_some_and(|a| a.is_conflict()), "{error:?}")
        }
        other => panic!("one failure, not retried: {other:?}"),
    }
    server.verify();

    let server = FakeApiServer::new();
    expect_apps_discovery(&server);
    server.expect(Method::PATCH, path).reply(Reply::json(
        200,
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "6"},
            "spec": {"replicas": 4}, "status": {"replicas": 1}}),
    ));
    let results = run_one(&server, action(patch.clone()));
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                attempts: 1,
                answer_lost: false,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();

    for (bad, says) in [
        (
            json!({"metadata": {"resourceVersion": "5", "name": "other"}}),
            "a rename is a new object",
        ),
        (
            json!({"kind": "StatefulSet", "metadata": {"resourceVersion": "5"}}),
            "kind or apiVersion",
        ),
        (json!({"spec": {"replicas": 4}}), "no resourceVersion"),
    ] {
        let server = FakeApiServer::new();
        expect_apps_discovery(&server);
        match run_one(&server, action(bad)).as_slice() {
            [ActionResult::Failed { error }] => {
                assert!(error.to_string().contains(says), "{error}")
            }
            other => panic!("{other:?}"),
        }
        server.verify();
    }
}

// A create is one POST to the collection, in the action's namespace; an
// AlreadyExists answer (409) is final, not retried as a conflict would be.
#[test]
fn a_create_is_one_post_and_already_exists_is_final() {
    let object = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"}, "spec": {"replicas": 1}});
    let mut sent = object.clone();
    sent["metadata"]["namespace"] = json!("shop");
    let action = Action {
        resource: deployments(),
        namespace: Some("shop".into()),
        name: "web".into(),
        kind: ActionKind::Create(object),
    };
    let server = FakeApiServer::new();
    expect_apps_discovery(&server);
    server
        .expect(Method::POST, "/apis/apps/v1/namespaces/shop/deployments")
        .body(sent.clone())
        .reply(Reply::json(201, sent.clone()));
    let results = run_one(&server, action.clone());
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                attempts: 1,
                answer_lost: false,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();

    let server = FakeApiServer::new();
    expect_apps_discovery(&server);
    server
        .expect(Method::POST, "/apis/apps/v1/namespaces/shop/deployments")
        .reply(Reply::status(
            409,
            "AlreadyExists",
            "deployments.apps \"web\" already exists",
        ));
    match run_one(&server, action).as_slice() {
        [ActionResult::Failed { error }] => {
            assert!(error.to_string().contains("already exists"), "{error}")
        }
        other => panic!("one failure, not retried: {other:?}"),
    }
    server.verify();
}
