//! Roll back as `kubectl rollout undo` does, for a Deployment and a StatefulSet.

use super::*;

// A rollback is `kubectl rollout undo`: it reads the Deployment and sends
// one JSON patch of the revision's template and the revision's ReplicaSet's
// annotations (change-cause included), the Deployment keeping its own of
// the keys kubectl skips; it is recorded.
#[test]
fn a_rollback_writes_the_revisions_template_and_annotations_as_kubectl_does() {
    let path = "/apis/apps/v1/namespaces/shop/deployments/web";
    let live = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "uid": "u1", "resourceVersion": "9",
            "annotations": {"deployment.kubernetes.io/revision": "2",
                "kubernetes.io/change-cause": "image web:2", "team": "a"}},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "web:2"}]}}}});
    let first = json!({"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "web:1"}]}});
    let rs_annotations = json!({"deployment.kubernetes.io/revision": "1",
        "deployment.kubernetes.io/desired-replicas": "2",
        "kubernetes.io/change-cause": "image web:1"});
    let to = RollBackTo {
        revision: 1,
        template: first.clone(),
        annotations: rs_annotations.as_object().cloned(),
    };
    let server = FakeApiServer::new();
    expect_apps_discovery(&server);
    server
        .expect_get(path)
        .reply(Reply::json(200, live.clone()));
    server
        .expect(Method::PATCH, path)
        .header("content-type", "application/json-patch+json")
        .body(json!([
            {"op": "replace", "path": "/spec/template", "value": first},
            {"op": "add", "path": "/metadata/annotations", "value": {
                "deployment.kubernetes.io/revision": "2",
                "kubernetes.io/change-cause": "image web:1"}},
        ]))
        .reply(Reply::json(200, live.clone()));
    let results = run_one(&server, rollback(to.clone()));
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                attempts: 1,
                answer_lost: false,
                unchanged: false
            }]
        ),
        "{results:?}"
    );
    server.verify();

    // Paused: refused in kubectl's words, nothing written.
    let mut paused = live.clone();
    paused["spec"]["paused"] = json!(true);
    let server = FakeApiServer::new();
    expect_apps_discovery(&server);
    server.expect_get(path).reply(Reply::json(200, paused));
    match run_one(&server, rollback(to.clone())).as_slice() {
        [ActionResult::Failed { error }] => assert!(
            error
                .to_string()
                .contains("you cannot rollback a paused deployment; resume it first"),
            "{error}"
        ),
        other => panic!("{other:?}"),
    }
    server.verify();

    // Already at that template (the hash label aside): nothing written.
    let mut there = live;
    there["spec"]["template"] = first;
    there["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] = json!("abc");
    let server = FakeApiServer::new();
    expect_apps_discovery(&server);
    server.expect_get(path).reply(Reply::json(200, there));
    let results = run_one(&server, rollback(to));
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                unchanged: true,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();
}

// A StatefulSet's (or DaemonSet's) revision is its template, written as the
// strategic merge patch that replaces it, as kubectl sends the
// ControllerRevision's data.
#[test]
fn a_statefulset_rollback_replaces_its_template_by_strategic_merge() {
    let path = "/apis/apps/v1/namespaces/shop/statefulsets/db";
    let first = json!({"spec": {"containers": [{"name": "c", "image": "db:1"}]}});
    let server = FakeApiServer::new();
    server.expect_get("/apis/apps/v1").reply(Reply::json(
        200,
        json!({"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": [
            {"name": "statefulsets", "singularName": "statefulset", "namespaced": true,
             "kind": "StatefulSet", "verbs": ["get", "patch"]}]}),
    ));
    server.expect_get(path).reply(Reply::json(
        200,
        json!({"metadata": {"name": "db", "uid": "u2"}, "spec": {"paused": true, "template":
            {"spec": {"containers": [{"name": "c", "image": "db:2"}]}}}}),
    ));
    server
        .expect(Method::PATCH, path)
        .header("content-type", "application/strategic-merge-patch+json")
        .body(json!({"spec": {"template": {"$patch": "replace",
            "spec": {"containers": [{"name": "c", "image": "db:1"}]}}}}))
        .reply(Reply::json(
            200,
            json!({"metadata": {"name": "db", "uid": "u2"}}),
        ));
    let results = run_one(
        &server,
        Action {
            resource: ApiResource::from_gvk_with_plural(
                &GroupVersionKind::gvk("apps", "v1", "StatefulSet"),
                "statefulsets",
            ),
            namespace: Some("shop".into()),
            name: "db".into(),
            kind: ActionKind::RollBack(RollBackTo {
                revision: 1,
                template: first,
                annotations: None,
            }),
        },
    );
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                unchanged: false,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();
}

fn rollback(to: RollBackTo) -> Action {
    Action {
        resource: deployments(),
        namespace: Some("shop".into()),
        name: "web".into(),
        kind: ActionKind::RollBack(to),
    }
}
