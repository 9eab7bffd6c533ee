//! Failures: 429s, refused connections, short and silent watches, backoff and jitter.

use super::*;

// TestNoRelistOnTooManyRequests / TestBackoffOnTooManyRequests: a 429 on the
// watch backs off (at least Retry-After) and watches again without listing.
#[test]
fn too_many_requests_backs_off_without_relisting() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .reply(list("10", vec![cm("a", "5")], None));
    server.expect_get(PATH).query("watch", "true").reply(Reply::Body {
        status: 429,
        headers: vec![("retry-after", "3".into())],
        body: br#"{"kind":"Status","status":"Failure","reason":"TooManyRequests","code":429,"message":"slow down"}"#.to_vec(),
    });
    let (reply, _watch) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "10")
        .reply(reply);
    let mut h = Harness::start(server);
    assert!(matches!(h.state(), ReflectorState::BackingOff { .. }));
    assert_eq!(h.server.log().len(), 2);
    // 800 ms of backoff is not enough: the server asked for 3 s.
    h.advance(Duration::from_millis(2999));
    assert_eq!(h.server.log().len(), 2);
    h.advance(Duration::from_millis(1));
    assert_eq!(h.state(), ReflectorState::Watching);
    assert_eq!(h.status.borrow().lists, 1, "no relist");
    h.server.verify();
}

// TestReflectorListAndWatchWithErrors / InitConnBackoff: connection refused
// (proxy down) backs off 800 ms, 1.6 s, … and resumes from the last RV.
#[test]
fn connection_refused_backs_off_and_resumes_from_the_last_rv() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .reply(list("10", vec![cm("a", "5")], None));
    let (reply, watch) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "10")
        .reply(reply);
    for _ in 0..3 {
        server
            .expect_get(PATH)
            .query("watch", "true")
            .query("resourceVersion", "11")
            .reply(Reply::Fail(TransportError::Connect(
                "connection refused".into(),
            )));
    }
    let (reply2, watch2) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "11")
        .reply(reply2);

    let mut h = Harness::start(server);
    watch.event("ADDED", cm("b", "11"));
    h.settle();
    let started = h.clock.now();
    watch.fail(TransportError::Read("connection reset".into()));
    h.settle();
    let mut waits = Vec::new();
    while h.server.remaining() > 0 {
        if !waits.is_empty() {
            assert!(
                h.status.borrow().unreachable,
                "refused connections mark it unreachable"
            );
        }
        waits.push(
            h.clock
                .advance_to_next_timer()
                .expect("a backoff timer")
                .as_millis(),
        );
        h.settle();
    }
    assert_eq!(waits, [800, 1600, 3200, 6400]);
    assert_eq!(h.state(), ReflectorState::Watching);
    assert!(
        !h.status.borrow().unreachable,
        "an answered watch clears it"
    );
    assert_eq!(
        h.status.borrow().lists,
        1,
        "no relist while the RV is valid"
    );
    assert!(h.clock.now() - started >= Duration::from_millis(12000));
    watch2.event("DELETED", cm("a", "12"));
    h.settle();
    assert_eq!(h.names(), ["ns/b"]);
    h.server.verify();
}

// A watch that ends within a second having delivered nothing is an error
// (backed off), not a hot loop; a long quiet watch that ends is renewed at once.
#[test]
fn a_watch_closing_at_once_with_nothing_is_backed_off() {
    let server = FakeApiServer::new();
    server.expect_get(PATH).reply(list("10", vec![], None));
    let (reply, w1) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply);
    let (reply2, w2) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply2);
    let (reply3, _w3) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply3);
    let mut h = Harness::start(server);
    w1.close();
    h.settle();
    assert!(matches!(h.state(), ReflectorState::BackingOff { .. }));
    assert_eq!(h.server.log().len(), 2);
    h.advance(Duration::from_millis(800));
    assert_eq!(h.state(), ReflectorState::Watching);
    // This one lasts a minute before the server closes it: renewed at once.
    h.advance(Duration::from_secs(60));
    w2.close();
    h.settle();
    assert_eq!(h.state(), ReflectorState::Watching);
    assert_eq!(h.server.log().len(), 4);
    h.server.verify();
}

// TestWatchTimeout: a watch the server never closes is abandoned after its
// timeout (plus grace) and a new one is opened, cancelling the old request.
#[test]
fn a_silent_watch_is_abandoned_after_its_timeout() {
    let server = FakeApiServer::new();
    server.expect_get(PATH).reply(list("10", vec![], None));
    let (reply, w1) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply);
    let (reply2, _w2) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply2);
    let mut h = Harness::start(server);
    h.advance(Duration::from_secs(299));
    assert_eq!(h.server.log().len(), 2);
    h.advance(Duration::from_secs(600 + 30 - 299));
    assert_eq!(h.server.log().len(), 3);
    assert!(w1.is_cancelled(), "the old request was dropped");
    h.server.verify();
}

// A 500 on the list is retried after a backoff; the store stays empty until it works.
#[test]
fn retries_a_failed_list_after_backing_off() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .reply(Reply::status(500, "InternalError", "etcd is sad"));
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .reply(list("10", vec![cm("a", "1")], None));
    let (reply, _w) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply);
    let mut h = Harness::start(server);
    assert!(
        h.status
            .borrow()
            .last_error
            .as_deref()
            .unwrap_or("")
            .contains("etcd is sad")
    );
    assert!(!h.status.borrow().synced);
    h.advance(Duration::from_millis(800));
    assert_eq!(h.names(), ["ns/a"]);
    assert!(h.status.borrow().last_error.is_none());
    h.server.verify();
}

// A 403 on the list is kept with its code, so a view can say "you may not
// list this" rather than "cannot reach"; the code goes once a list works.
#[test]
fn a_forbidden_list_records_its_code_until_a_list_works() {
    let server = FakeApiServer::new();
    server.expect_get(PATH).reply(Reply::status(
        403,
        "Forbidden",
        "configmaps is forbidden: User \"viewer\" cannot list resource \"configmaps\"",
    ));
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .reply(list("10", vec![cm("a", "1")], None));
    let (reply, _w) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply);
    let mut h = Harness::start(server);
    {
        let s = h.status.borrow();
        assert_eq!(s.last_error_code, Some(403), "{s:?}");
        assert!(!s.unreachable, "the server answered");
        assert!(!s.synced);
    }
    h.advance(Duration::from_millis(800));
    assert_eq!(h.names(), ["ns/a"]);
    assert_eq!(h.status.borrow().last_error_code, None);
}

// Garbage in the stream ends the watch; after the backoff the reflector
// lists again from the last good RV (client-go's ListAndWatch starts over)
// and watches on. What the store holds is kept until that list replaces it.
#[test]
fn invalid_json_in_the_stream_relists_and_keeps_the_store() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .reply(list("10", vec![cm("a", "1")], None));
    let (reply, w1) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "10")
        .reply(reply);
    server
        .expect_get(PATH)
        .query("resourceVersion", "11")
        .no_query("watch")
        .reply(list("11", vec![cm("a", "1"), cm("b", "11")], None));
    let (reply2, _w2) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "11")
        .reply(reply2);
    let mut h = Harness::start(server);
    w1.event("ADDED", cm("b", "11"));
    w1.chunk(
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"c\",\"resourceVersion\":[}}\n",
    );
    h.settle();
    assert_eq!(h.names(), ["ns/a", "ns/b"]);
    assert!(
        h.status
            .borrow()
            .last_error
            .as_deref()
            .unwrap_or("")
            .contains("invalid watch event")
    );
    h.advance(Duration::from_millis(800));
    assert_eq!(h.state(), ReflectorState::Watching);
    h.server.verify();
}

// Backoff after "cannot connect" ends early when the app learns the API is
// reachable again; other failures keep their full backoff.
#[test]
fn a_reconnect_signal_cuts_a_connection_backoff_short() {
    use kubeglass_client::reconnect::Reconnect;
    let server = FakeApiServer::new();
    server.expect_get(PATH).reply(list("10", vec![], None));
    for _ in 0..5 {
        server
            .expect_get(PATH)
            .query("watch", "true")
            .reply(Reply::Fail(TransportError::Connect(
                "connection refused".into(),
            )));
    }
    let (reply, _w) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "10")
        .reply(reply);

    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let store = Rc::new(RefCell::new(Store::<ConfigMap>::new()));
    let reconnect = Reconnect::new();
    let reflector = Reflector::new(
        RestClient::new(Rc::new(server.clone())),
        Rc::new(clock.clone()),
        ReflectorConfig::new(PATH),
        store,
    )
    .with_reconnect(reconnect.clone());
    let status = reflector.status();
    let mut pool = LocalPool::new();
    pool.spawner().spawn_local(reflector.run()).expect("spawn");
    pool.run_until_stalled();
    // Five refusals in a row: the backoff is now several seconds long.
    for _ in 0..4 {
        clock.advance_to_next_timer();
        pool.run_until_stalled();
    }
    assert!(status.borrow().unreachable);
    assert!(matches!(
        status.borrow().state,
        ReflectorState::BackingOff { .. }
    ));
    let before = clock.now();
    reconnect.notify();
    pool.run_until_stalled();
    assert_eq!(status.borrow().state, ReflectorState::Watching);
    assert_eq!(clock.now(), before, "no time passed");
    server.verify();
}

// TestRetryInternalError: a 500 on the watch backs off and watches again
// from the same resourceVersion, without a relist.
#[test]
fn an_internal_error_on_the_watch_is_retried_without_relisting() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .reply(list("10", vec![cm("a", "5")], None));
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "10")
        .reply(Reply::status(
            500,
            "InternalError",
            "etcd is having a moment",
        ));
    let (reply, watch) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "10")
        .reply(reply);
    let mut h = Harness::start(server);
    assert!(matches!(h.state(), ReflectorState::BackingOff { .. }));
    assert!(
        h.status
            .borrow()
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("etcd is having a moment")),
        "{:?}",
        h.status.borrow().last_error
    );
    h.advance(Duration::from_millis(800));
    watch.event("ADDED", cm("b", "11"));
    h.settle();
    assert_eq!(h.names(), ["ns/a", "ns/b"]);
    assert_eq!(h.status.borrow().lists, 1);
    h.server.verify();
}

// wait.Jitter draws from math/rand, seeded at random: twenty reflectors
// started in the same instant that fail together must not all retry in the
// same instant (a thundering herd on an apiserver that just came back).
// Each draws its jitter from the clock's entropy, not from the time.
#[test]
fn jitter_is_random_so_informers_failing_together_retry_apart() {
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let mut pool = LocalPool::new();
    let mut statuses = Vec::new();
    let mut servers = Vec::new();
    for _ in 0..20 {
        let server = FakeApiServer::new();
        server
            .expect_get(PATH)
            .reply(Reply::Fail(TransportError::Connect(
                "connection refused".into(),
            )));
        let reflector = Reflector::<ConfigMap>::new(
            RestClient::new(Rc::new(server.clone())),
            Rc::new(clock.clone()),
            ReflectorConfig::new(PATH),
            Rc::new(RefCell::new(Store::<ConfigMap>::new())),
        );
        statuses.push(reflector.status());
        pool.spawner().spawn_local(reflector.run()).expect("spawn");
        servers.push(server);
    }
    pool.run_until_stalled();
    let mut retries: Vec<Duration> = statuses
        .iter()
        .map(|s| match s.borrow().state {
            ReflectorState::BackingOff { until } => until - clock.now(),
            ref other => panic!("not backing off: {other:?}"),
        })
        .collect();
    retries.sort();
    retries.dedup();
    assert!(
        retries.len() >= 18,
        "20 reflectors that failed together retry at only {} distinct times: {retries:?}",
        retries.len()
    );
    let spread = retries[retries.len() - 1] - retries[0];
    assert!(
        spread >= Duration::from_millis(200),
        "their retries span only {spread:?} of the 800 ms jitter: {retries:?}"
    );
    for d in &retries {
        assert!(*d >= Duration::from_millis(800) && *d <= Duration::from_millis(1600));
    }
}
