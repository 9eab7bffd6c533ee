//! User actions through the rate-limited queue, against the scripted fake API
//! server: a conflict is retried after the limiter's delay, a Forbidden is
//! not, and each outcome is recorded as an Event.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use http::Method;
use kubeglass_client::kube_core::{ApiResource, GroupVersionKind};
use kubeglass_client::record::{ApiSink, EventBroadcaster};
use kubeglass_client::rest::{Error, RestClient};
use kubeglass_client::testing::{FakeApiServer, FakeClock, Reply};
use kubeglass_kubectl::actions::{Action, ActionKind, ActionQueue, ActionResult, RollBackTo};
use serde_json::json;

const SCALE: &str = "/apis/apps/v1/namespaces/shop/deployments/web/scale";

fn scale_json(rv: &str, replicas: i32) -> serde_json::Value {
    json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
           "metadata": {"name": "web", "namespace": "shop", "uid": "uid-web", "resourceVersion": rv},
           "spec": {"replicas": replicas}})
}

fn deployments() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apps", "v1", "Deployment"),
        "deployments",
    )
}

/// Live discovery of apps/v1, which every write on a Deployment confirms first.
fn expect_apps_discovery(server: &FakeApiServer) {
    server.expect_get("/apis/apps/v1").reply(Reply::json(
        200,
        json!({"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": [
            {"name": "deployments", "singularName": "deployment", "namespaced": true,
             "kind": "Deployment", "verbs": ["get", "patch", "delete"]},
            {"name": "deployments/scale", "singularName": "", "namespaced": true,
             "kind": "Scale", "verbs": ["get", "update"]}]}),
    ));
}

#[test]
fn a_conflicting_scale_is_retried_and_recorded() {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let client = RestClient::new(Rc::new(server.clone()));
    let broadcaster = EventBroadcaster::new();
    let recorder = broadcaster.recorder("kubeglass", Rc::new(clock.clone()));
    let actions = ActionQueue::new(client.clone(), recorder, Rc::new(clock.clone()));
    let results = Rc::new(RefCell::new(Vec::new()));
    let r2 = results.clone();
    actions.on_result(move |_, r| r2.borrow_mut().push(r.clone()));

    expect_apps_discovery(&server);
    server
        .expect_get(SCALE)
        .reply(Reply::json(200, scale_json("5", 3)));
    server
        .expect(Method::PUT, SCALE)
        .body(json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
            "metadata": {"name": "web", "namespace": "shop", "uid": "uid-web", "resourceVersion": "5"},
            "spec": {"replicas": 5}}))
        .reply(Reply::status(409, "Conflict", "the object has been modified"));
    expect_apps_discovery(&server);
    server
        .expect_get(SCALE)
        .reply(Reply::json(200, scale_json("6", 4)));
    server
        .expect(Method::PUT, SCALE)
        .reply(Reply::json(200, scale_json("7", 5)));
    server
        .expect(Method::POST, "/api/v1/namespaces/shop/events")
        .reply(Reply::json(
            201,
            json!({"metadata": {"name": "web.1"}, "involvedObject": {}}),
        ));

    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(actions.clone().run())
        .expect("spawn");
    pool.spawner()
        .spawn_local(broadcaster.run(Rc::new(ApiSink::new(client)), Rc::new(clock.clone())))
        .expect("spawn");
    actions.submit(Action {
        resource: deployments(),
        namespace: Some("shop".into()),
        name: "web".into(),
        kind: ActionKind::Scale(5),
    });
    pool.run_until_stalled();
    assert!(
        results.borrow().is_empty(),
        "waiting out the conflict backoff"
    );
    assert_eq!(
        clock.advance_to_next_timer(),
        Some(Duration::from_millis(5))
    );
    pool.run_until_stalled();
    assert!(
        matches!(
            *results.borrow().as_slice(),
            [ActionResult::Done {
                attempts: 2,
                answer_lost: false,
                ..
            }]
        ),
        "{:?}",
        results.borrow()
    );
    assert_eq!(broadcaster.counts(), (1, 0, 0), "one Event written");
    server.verify();
}

#[test]
fn a_forbidden_action_fails_at_once_with_a_warning_event() {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let client = RestClient::new(Rc::new(server.clone()));
    let broadcaster = EventBroadcaster::new();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s2 = seen.clone();
    broadcaster.watch(move |e| s2.borrow_mut().push((e.type_.clone(), e.reason.clone())));
    let actions = ActionQueue::new(
        client.clone(),
        broadcaster.recorder("kubeglass", Rc::new(clock.clone())),
        Rc::new(clock.clone()),
    );
    let results = Rc::new(RefCell::new(Vec::new()));
    let r2 = results.clone();
    actions.on_result(move |_, r| r2.borrow_mut().push(r.clone()));
    expect_apps_discovery(&server);
    server
        .expect(
            Method::DELETE,
            "/apis/apps/v1/namespaces/shop/deployments/web",
        )
        .reply(Reply::status(
            403,
            "Forbidden",
            "deployments.apps \"web\" is forbidden: User \"viewer\" cannot delete resource",
        ));
    server
        .expect(Method::POST, "/api/v1/namespaces/shop/events")
        .reply(Reply::status(403, "Forbidden", "events is forbidden"));
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(actions.clone().run())
        .expect("spawn");
    pool.spawner()
        .spawn_local(broadcaster.run(Rc::new(ApiSink::new(client)), Rc::new(clock.clone())))
        .expect("spawn");
    actions.submit(Action {
        resource: deployments(),
        namespace: Some("shop".into()),
        name: "web".into(),
        kind: ActionKind::Delete,
    });
    pool.run_until_stalled();
    match &results.borrow()[..] {
        [ActionResult::Failed { error }] => {
            // Typed up to the listener: a view can say "forbidden".
            assert_eq!(error.api().map(|a| a.code), Some(403), "{error}");
            assert!(
                error.to_string().contains("cannot delete resource"),
                "{error}"
            )
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        *seen.borrow(),
        [(Some("Warning".into()), Some("ActionFailed".into()))]
    );
    assert_eq!(
        broadcaster.counts(),
        (0, 0, 1),
        "writing the Event was forbidden too"
    );
    assert_eq!(clock.pending_timers(), 0, "no retry");
    server.verify();
}

/// Runs `action` on a fresh queue against `server` and returns how it ended
/// (events are not written: the recorder has no sink).
fn run_one(server: &FakeApiServer, action: Action) -> Vec<ActionResult> {
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let client = RestClient::new(Rc::new(server.clone()));
    let broadcaster = EventBroadcaster::new();
    let actions = ActionQueue::new(
        client,
        broadcaster.recorder("kubeglass", Rc::new(clock.clone())),
        Rc::new(clock.clone()),
    );
    let results = Rc::new(RefCell::new(Vec::new()));
    let r2 = results.clone();
    actions.on_result(move |_, r| r2.borrow_mut().push(r.clone()));
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(actions.clone().run())
        .expect("spawn");
    actions.submit(action);
    pool.run_until_stalled();
    results.take()
}

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
