//! Failures of a streaming list: 429, 410, too large versions, 500s, undecodable events.

use super::*;

// 429 on a streaming list: back off and try a streaming list again (no LIST).
#[test]
fn too_many_requests_retries_the_streaming_list_after_backing_off() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("sendInitialEvents", "true")
        .reply(Reply::status(429, "TooManyRequests", "slow down"));
    let mut h = Harness::start(&server);
    assert!(matches!(
        h.status.borrow().state,
        ReflectorState::BackingOff { .. }
    ));
    let feed = expect_watch_list(&server, "");
    h.advance(Duration::from_millis(800));
    feed.event("BOOKMARK", end_bookmark("3", "true"));
    h.settle();
    assert!(h.status.borrow().synced);
    assert_eq!(h.status.borrow().watch_list_fallbacks, 0);
    server.verify();
}

// 410 on a later streaming list: ask again for the latest state.
#[test]
fn gone_during_a_resumed_watch_streams_the_latest_state() {
    let server = FakeApiServer::new();
    let feed = expect_watch_list(&server, "");
    let mut h = Harness::start(&server);
    feed.event("ADDED", cm("a", "5"));
    feed.event("ADDED", cm("b", "6"));
    feed.event("BOOKMARK", end_bookmark("10", "true"));
    h.settle();
    let again = expect_watch_list(&server, "10");
    feed.event("ERROR", expired());
    h.settle();
    // Each new ListAndWatch waits the backoff first, as in client-go.
    h.clock
        .advance_to_next_timer()
        .expect("backoff before the streaming list");
    h.settle();
    let latest = expect_watch_list(&server, "");
    again.event("ERROR", expired());
    // Before its initial state, a streaming list told 410 asks for the
    // latest state at once (client-go's watchList marks the version
    // unavailable and loops without a backoff).
    h.settle();
    assert_eq!(h.status.borrow().state, ReflectorState::Listing);
    latest.event("ADDED", cm("a", "30"));
    latest.event("BOOKMARK", end_bookmark("41", "true"));
    h.settle();
    // b was deleted while nobody watched: gone from the store.
    assert_eq!(h.names(), ["a@30"]);
    assert_eq!(h.last_rv().as_deref(), Some("41"));
    server.verify();
}

// client-go's watchList on "Too large resource version" (a 504 whose cause is
// ResourceVersionTooLarge: the server is behind the version asked for, as
// after an etcd restore): the version is marked unavailable and the
// streaming list is asked again at once for the latest state. It is not a
// failure to back off from and retry with the same version forever.
#[test]
fn too_large_resource_version_streams_the_latest_state_at_once() {
    let server = FakeApiServer::new();
    let feed = expect_watch_list(&server, "");
    let mut h = Harness::start(&server);
    feed.event("ADDED", cm("a", "5"));
    feed.event("BOOKMARK", end_bookmark("10", "true"));
    h.settle();
    // The resumed watch expires; after the backoff, a streaming list from 10.
    server
        .expect_get(PATH)
        .query("sendInitialEvents", "true")
        .query("resourceVersion", "10")
        .reply(Reply::json(
            504,
            json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                   "reason": "Timeout", "code": 504,
                   "message": "Too large resource version: 10, current: 3",
                   "details": {"causes": [{"reason": "ResourceVersionTooLarge",
                                           "message": "Too large resource version"}]}}),
        ));
    let latest = expect_watch_list(&server, "");
    feed.event("ERROR", expired());
    h.settle();
    h.clock.advance_to_next_timer().expect("backoff");
    h.settle();
    assert_eq!(h.status.borrow().state, ReflectorState::Listing);
    latest.event("ADDED", cm("a", "2"));
    latest.event("BOOKMARK", end_bookmark("3", "true"));
    h.settle();
    assert_eq!(h.names(), ["a@2"]);
    assert_eq!(h.last_rv().as_deref(), Some("3"));
    assert_eq!(h.status.borrow().watch_list_fallbacks, 0);
    server.verify();
}

// client-go's ListAndWatch falls back to a plain (paged) LIST when a
// streaming list fails with anything it does not retry: a 500 is not
// retried as a streaming list forever. The X-ray page reads the fallback.
#[test]
fn an_internal_error_falls_back_to_a_paged_list() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("sendInitialEvents", "true")
        .reply(Reply::status(
            500,
            "InternalError",
            "etcd is having a moment",
        ));
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .query("limit", "500")
        .no_query("watch")
        .reply(cm_list("20", vec![cm("a", "5")]));
    let _watch = expect_plain_watch(&server, "20");
    let h = Harness::start(&server);
    assert_eq!(h.names(), ["a@5"]);
    let status = h.status.borrow();
    assert_eq!(status.watch_list_fallbacks, 1);
    assert!(
        status
            .last_fallback
            .as_deref()
            .is_some_and(|f| f.contains("etcd is having a moment")),
        "{:?}",
        status.last_fallback
    );
    drop(status);
    server.verify();
}

// A streaming list that sends an event that does not decode falls back to
// a plain list, which names the object instead of failing on it.
#[test]
fn an_undecodable_initial_event_falls_back_to_a_list_that_names_it() {
    let server = FakeApiServer::new();
    let feed = expect_watch_list(&server, "");
    let bad = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "b", "namespace": "ns", "resourceVersion": "6"},
        "data": {"k": 42}});
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .no_query("watch")
        .reply(cm_list("20", vec![cm("a", "5"), bad.clone()]));
    let _watch = expect_plain_watch(&server, "20");
    let mut h = Harness::start(&server);
    feed.event("ADDED", cm("a", "5"));
    feed.event("ADDED", bad);
    h.settle();
    assert_eq!(h.names(), ["a@5"]);
    let status = h.status.borrow();
    assert_eq!(status.watch_list_fallbacks, 1);
    assert_eq!(status.undecodable.len(), 1);
    assert_eq!(status.undecodable[0].key, "ns/b");
    drop(status);
    server.verify();
}

// The initial state of a streaming list goes through the store's transform
// event by event as it arrives, not once the bookmark ends it, and each
// object through it once.
#[test]
fn a_streaming_list_is_transformed_as_it_arrives_each_object_once() {
    use kubeglass_client::cache::{InformerQueue, Popped, RealFifo};
    let server = FakeApiServer::new();
    let feed = expect_watch_list(&server, "");
    let calls = Rc::new(std::cell::Cell::new(0));
    let c = calls.clone();
    let fifo = RealFifo::<ConfigMap>::new(None).with_transform(Rc::new(move |mut o: ConfigMap| {
        c.set(c.get() + 1);
        o.data = None;
        o
    }));
    let fifo = Rc::new(RefCell::new(fifo));
    let reflector = Reflector::new(
        RestClient::new(Rc::new(server.clone())),
        Rc::new(FakeClock::new(Duration::from_secs(1_700_000_000))),
        ReflectorConfig::new(PATH).streaming(),
        fifo.clone(),
    );
    let mut pool = LocalPool::new();
    pool.spawner().spawn_local(reflector.run()).expect("spawn");
    pool.run_until_stalled();
    for name in ["a", "b"] {
        let mut o = cm(name, "5");
        o["data"] = json!({"k": "v"});
        feed.event("ADDED", o);
    }
    pool.run_until_stalled();
    assert_eq!(calls.get(), 2, "the initial state waited for its end");
    feed.event("BOOKMARK", end_bookmark("12", "true"));
    pool.run_until_stalled();
    assert_eq!(
        calls.get(),
        2,
        "transformed again when the list was swapped in"
    );
    let popped = fifo.borrow_mut().pop_batch(10);
    match popped.as_slice() {
        [Popped::Replace { objects, .. }] => {
            assert_eq!(objects.len(), 2);
            assert!(objects.iter().all(|o| o.data.is_none()));
        }
        _ => panic!("expected one Replace"),
    }
    server.assert_no_failures();
}
