//! A write whose answer is lost (the fake server applies it, then answers
//! 504) is not repeated blindly: create, delete and edit read the object
//! back and end with what is true; a restart, whose stamp is taken once,
//! is sent again unchanged.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use http::Method;
use kubeglass_client::kube_core::{ApiResource, GroupVersionKind};
use kubeglass_client::record::EventBroadcaster;
use kubeglass_client::rest::RestClient;
use kubeglass_kubectl::actions::{Action, ActionKind, ActionQueue, ActionResult};
use kubeglass_testing::{FakeApiServer, FakeClock, Reply};
use serde_json::json;

const WEB: &str = "/apis/apps/v1/namespaces/shop/deployments/web";

fn deployments() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apps", "v1", "Deployment"),
        "deployments",
    )
}

fn expect_discovery(server: &FakeApiServer) {
    server.expect_get("/apis/apps/v1").reply(Reply::json(
        200,
        json!({"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": [
            {"name": "deployments", "singularName": "deployment", "namespaced": true,
             "kind": "Deployment", "verbs": ["get", "patch", "delete", "create"]}]}),
    ));
}

fn timed_out() -> Reply {
    Reply::status(
        504,
        "Timeout",
        "the server was unable to return a response in the time allotted",
    )
}

fn web(kind: ActionKind) -> Action {
    Action {
        resource: deployments(),
        namespace: Some("shop".into()),
        name: "web".into(),
        kind,
    }
}

/// Runs `action` to its end, stepping the clock from one timer to the
/// next (each step `jump` further, so a time taken at each attempt would
/// differ), and returns how it ended.
fn run(server: &FakeApiServer, action: Action, jump: Duration) -> Vec<ActionResult> {
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
    loop {
        pool.run_until_stalled();
        if !results.borrow().is_empty() || clock.pending_timers() == 0 {
            break;
        }
        clock.advance(jump);
        clock.advance_to_next_timer();
    }
    server.assert_no_failures();
    results.take()
}

fn created_by(manager: &str) -> serde_json::Value {
    json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
        "metadata": {"name": "web", "namespace": "shop", "uid": "u1", "resourceVersion": "7",
            "managedFields": [{"manager": manager, "operation": "Update", "apiVersion": "apps/v1"}]}})
}

#[test]
fn a_create_whose_answer_is_lost_is_read_back_and_not_sent_again() {
    let object =
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}});
    let server = FakeApiServer::new();
    expect_discovery(&server);
    server
        .expect(Method::POST, "/apis/apps/v1/namespaces/shop/deployments")
        .query("fieldManager", "kubeglass")
        .reply(timed_out());
    server
        .expect_get(WEB)
        .header("accept", "as=PartialObjectMetadata")
        .reply(Reply::json(200, created_by("kubeglass")));
    let results = run(
        &server,
        web(ActionKind::Create(object.clone())),
        Duration::ZERO,
    );
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                attempts: 1,
                answer_lost: true,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();

    // Someone else's object of that name: said, and nothing more sent.
    let server = FakeApiServer::new();
    expect_discovery(&server);
    server
        .expect(Method::POST, "/apis/apps/v1/namespaces/shop/deployments")
        .reply(timed_out());
    server
        .expect_get(WEB)
        .reply(Reply::json(200, created_by("kubectl-create")));
    match run(
        &server,
        web(ActionKind::Create(object.clone())),
        Duration::ZERO,
    )
    .as_slice()
    {
        [ActionResult::Failed { error }] => assert!(
            error.to_string().contains("kubeglass did not write"),
            "{error}"
        ),
        other => panic!("{other:?}"),
    }
    server.verify();

    a_lost_create_that_was_not_applied_is_sent_again(object);
}

/// The third case of a lost create: the object is not there, so the create
/// was not applied, and it is sent again.
fn a_lost_create_that_was_not_applied_is_sent_again(object: serde_json::Value) {
    let server = FakeApiServer::new();
    expect_discovery(&server);
    server
        .expect(Method::POST, "/apis/apps/v1/namespaces/shop/deployments")
        .reply(timed_out());
    server.expect_get(WEB).reply(Reply::status(
        404,
        "NotFound",
        "deployments.apps \"web\" not found",
    ));
    // Sent again within seconds: discovery's live answer is still held.
    server
        .expect(Method::POST, "/apis/apps/v1/namespaces/shop/deployments")
        .reply(Reply::json(
            201,
            json!({"metadata": {"name": "web", "uid": "u1"}}),
        ));
    let results = run(&server, web(ActionKind::Create(object)), Duration::ZERO);
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                attempts: 2,
                answer_lost: false,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();
}

#[test]
fn an_edit_whose_answer_is_lost_is_read_back() {
    let patch = json!({"metadata": {"resourceVersion": "5"}, "spec": {"replicas": 4}});
    let object = |rv: &str, replicas: i32| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "uid": "u1", "resourceVersion": rv},
            "spec": {"replicas": replicas}, "status": {"replicas": 1}})
    };
    // Applied: the object holds the edit at a newer version.
    let server = FakeApiServer::new();
    expect_discovery(&server);
    server.expect(Method::PATCH, WEB).reply(timed_out());
    server
        .expect_get(WEB)
        .reply(Reply::json(200, object("6", 4)));
    let results = run(
        &server,
        web(ActionKind::Edit(patch.clone())),
        Duration::ZERO,
    );
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                attempts: 1,
                answer_lost: true,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();

    // Not applied: still at the version the edit began from; sent again.
    let server = FakeApiServer::new();
    expect_discovery(&server);
    server.expect(Method::PATCH, WEB).reply(timed_out());
    server
        .expect_get(WEB)
        .reply(Reply::json(200, object("5", 2)));
    // Sent again within seconds: discovery's live answer is still held.
    server
        .expect(Method::PATCH, WEB)
        .body(patch.clone())
        .reply(Reply::json(200, object("6", 4)));
    let results = run(
        &server,
        web(ActionKind::Edit(patch.clone())),
        Duration::ZERO,
    );
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                attempts: 2,
                answer_lost: false,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();

    // Changed some other way: a conflict for the person, nothing more sent.
    let server = FakeApiServer::new();
    expect_discovery(&server);
    server.expect(Method::PATCH, WEB).reply(timed_out());
    server
        .expect_get(WEB)
        .reply(Reply::json(200, object("6", 3)));
    match run(&server, web(ActionKind::Edit(patch)), Duration::ZERO).as_slice() {
        [ActionResult::Failed { error }] => {
            assert!(error.api().is_some_and(|a| a.is_conflict()), "{error:?}");
            assert!(error.to_string().contains("answer was lost"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    server.verify();
}

#[test]
fn a_delete_whose_answer_is_lost_is_read_back() {
    let server = FakeApiServer::new();
    expect_discovery(&server);
    server.expect(Method::DELETE, WEB).reply(timed_out());
    server.expect_get(WEB).reply(Reply::status(
        404,
        "NotFound",
        "deployments.apps \"web\" not found",
    ));
    let results = run(&server, web(ActionKind::Delete), Duration::ZERO);
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                attempts: 1,
                answer_lost: true,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();
}

// The stamp is the time the restart was asked for: the second send after a
// lost answer, seconds later, writes the very same one, so the pods are
// restarted once.
#[test]
fn a_restart_sent_again_writes_the_same_stamp() {
    let stamped = json!({"spec": {"template": {"metadata": {"annotations": {
        "kubectl.kubernetes.io/restartedAt": "2023-11-14T22:13:20Z"}}}}});
    let server = FakeApiServer::new();
    expect_discovery(&server);
    server
        .expect(Method::PATCH, WEB)
        .body(stamped.clone())
        .reply(timed_out());
    // Sent again within seconds: discovery's live answer is still held.
    server
        .expect(Method::PATCH, WEB)
        .body(stamped)
        .reply(Reply::json(
            200,
            json!({"metadata": {"name": "web", "uid": "u1"}}),
        ));
    let results = run(
        &server,
        web(ActionKind::RestartRollout),
        Duration::from_secs(3),
    );
    assert!(
        matches!(
            results.as_slice(),
            [ActionResult::Done {
                attempts: 2,
                answer_lost: false,
                ..
            }]
        ),
        "{results:?}"
    );
    server.verify();
}
