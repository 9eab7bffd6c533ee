//! User actions through the rate-limited queue, against the scripted fake API
//! server: a conflict is retried after the limiter's delay, a Forbidden is
//! not, and each outcome is recorded as an Event.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use http::Method;
use kubeglass_client::actions::{Action, ActionKind, ActionQueue, ActionResult};
use kubeglass_client::kube_core::{ApiResource, GroupVersionKind};
use kubeglass_client::record::{ApiSink, EventBroadcaster};
use kubeglass_client::rest::RestClient;
use kubeglass_client::testing::{FakeApiServer, FakeClock, Reply};
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

    server
        .expect_get(SCALE)
        .reply(Reply::json(200, scale_json("5", 3)));
    server
        .expect(Method::PUT, SCALE)
        .body(json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
            "metadata": {"name": "web", "namespace": "shop", "uid": "uid-web", "resourceVersion": "5"},
            "spec": {"replicas": 5}}))
        .reply(Reply::status(409, "Conflict", "the object has been modified"));
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
    assert_eq!(*results.borrow(), [ActionResult::Done { attempts: 2 }]);
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
            assert!(error.contains("cannot delete resource"), "{error}")
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
