//! The queue: a conflict is retried and recorded, a forbidden action fails at once with a Warning event.

use super::*;

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
    // The retry, 5 ms later, writes on the mapping live discovery has just
    // confirmed: no second discovery request.
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

#[test]
fn each_submit_answers_with_its_own_actions_result() {
    // Two deletes queued together, one refused and one done: each caller's
    // `Submitted` holds its own answer, whatever order they end in.
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let client = RestClient::new(Rc::new(server.clone()));
    let broadcaster = EventBroadcaster::new();
    let actions = ActionQueue::new(
        client,
        broadcaster.recorder("kubeglass", Rc::new(clock.clone())),
        Rc::new(clock.clone()),
    );
    expect_apps_discovery(&server);
    server
        .expect(
            Method::DELETE,
            "/apis/apps/v1/namespaces/shop/deployments/web",
        )
        .reply(Reply::status(403, "Forbidden", "cannot delete resource"));
    // The second delete shares the first one's confirmation.
    server
        .expect(
            Method::DELETE,
            "/apis/apps/v1/namespaces/shop/deployments/api",
        )
        .reply(Reply::json(
            200,
            json!({"kind": "Status", "status": "Success"}),
        ));
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(actions.clone().run())
        .expect("spawn");
    let delete = |name: &str| Action {
        resource: deployments(),
        namespace: Some("shop".into()),
        name: name.into(),
        kind: ActionKind::Delete,
    };
    let web = Rc::new(RefCell::new(None));
    let api = Rc::new(RefCell::new(None));
    let (w, a) = (web.clone(), api.clone());
    let (web_answer, api_answer) = (actions.submit(delete("web")), actions.submit(delete("api")));
    pool.spawner()
        .spawn_local(async move { *w.borrow_mut() = web_answer.await })
        .expect("spawn");
    pool.spawner()
        .spawn_local(async move { *a.borrow_mut() = api_answer.await })
        .expect("spawn");
    pool.run_until_stalled();
    assert!(
        matches!(&*web.borrow(), Some(ActionResult::Failed { error }) if error.api().map(|s| s.code) == Some(403)),
        "web: {:?}",
        web.borrow()
    );
    assert!(
        matches!(&*api.borrow(), Some(ActionResult::Done { attempts: 1, .. })),
        "api: {:?}",
        api.borrow()
    );
    // A queue that goes away before an action runs answers None.
    let gone = {
        let q = ActionQueue::new(
            RestClient::new(Rc::new(FakeApiServer::new())),
            broadcaster.recorder("kubeglass", Rc::new(clock.clone())),
            Rc::new(clock.clone()),
        );
        q.submit(delete("never"))
    };
    assert!(futures::executor::block_on(gone).is_none());
}

#[test]
fn a_confirmation_is_shared_for_ten_seconds_then_asked_again() {
    // Three deletes: the first two within 10 s share one discovery request
    // (as a bulk action's writes do); the third, 10 s later, asks again.
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let client = RestClient::new(Rc::new(server.clone()));
    let broadcaster = EventBroadcaster::new();
    let actions = ActionQueue::new(
        client,
        broadcaster.recorder("kubeglass", Rc::new(clock.clone())),
        Rc::new(clock.clone()),
    );
    let path = |n: &str| format!("/apis/apps/v1/namespaces/shop/deployments/{n}");
    let gone = || Reply::json(200, json!({"kind": "Status", "status": "Success"}));
    expect_apps_discovery(&server);
    server.expect(Method::DELETE, &path("a")).reply(gone());
    server.expect(Method::DELETE, &path("b")).reply(gone());
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(actions.clone().run())
        .expect("spawn");
    let delete = |name: &str| Action {
        resource: deployments(),
        namespace: Some("shop".into()),
        name: name.into(),
        kind: ActionKind::Delete,
    };
    drop(actions.submit(delete("a")));
    drop(actions.submit(delete("b")));
    pool.run_until_stalled();
    server.verify();
    clock.advance(Duration::from_secs(10));
    expect_apps_discovery(&server);
    server.expect(Method::DELETE, &path("c")).reply(gone());
    drop(actions.submit(delete("c")));
    pool.run_until_stalled();
    server.verify();
}
