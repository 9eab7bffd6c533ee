//! Streaming lists (client-go's WatchListClient): the initial state arrives
//! as watch events ended by a bookmark annotated
//! `k8s.io/initial-events-end: "true"`. Cases follow client-go's watch-list
//! reflector tests.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::backoff::Backoff;
use kubeglass_client::cache::{Reflector, ReflectorConfig, ReflectorState, ReflectorStatus, Store};
use kubeglass_client::rest::RestClient;
use kubeglass_client::testing::{FakeApiServer, FakeClock, Reply, StreamHandle};
use serde_json::{Value, json};

const PATH: &str = "/api/v1/namespaces/ns/configmaps";

fn cm(name: &str, rv: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv}})
}

fn end_bookmark(rv: &str, value: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"resourceVersion": rv,
                        "annotations": {"k8s.io/initial-events-end": value}}})
}

/// The ERROR event of a watch whose version expired.
fn expired() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
           "reason": "Expired", "code": 410, "message": "too old resource version: 10 (40)"})
}

/// A plain LIST answer at `rv`.
fn cm_list(rv: &str, items: Vec<Value>) -> Reply {
    Reply::json(
        200,
        json!({"apiVersion": "v1", "kind": "ConfigMapList",
               "metadata": {"resourceVersion": rv}, "items": items}),
    )
}

/// Expects a streaming list from `rv` ("" = latest) and returns its feed.
fn expect_watch_list(server: &FakeApiServer, rv: &str) -> StreamHandle {
    let (reply, feed) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("sendInitialEvents", "true")
        .query("resourceVersionMatch", "NotOlderThan")
        .query("allowWatchBookmarks", "true")
        .query("resourceVersion", rv)
        .reply(reply);
    feed
}

fn expect_plain_watch(server: &FakeApiServer, rv: &str) -> StreamHandle {
    let (reply, feed) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .no_query("sendInitialEvents")
        .query("resourceVersion", rv)
        .reply(reply);
    feed
}

struct Harness {
    pool: LocalPool,
    clock: FakeClock,
    store: Rc<RefCell<Store<ConfigMap>>>,
    status: Rc<RefCell<ReflectorStatus>>,
}

impl Harness {
    fn start(server: &FakeApiServer) -> Self {
        let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
        let store = Rc::new(RefCell::new(Store::<ConfigMap>::new()));
        let mut backoff = Backoff::reflector(1);
        backoff.jitter = 0.0;
        let reflector = Reflector::new(
            RestClient::new(Rc::new(server.clone())),
            Rc::new(clock.clone()),
            ReflectorConfig::new(PATH).streaming(),
            store.clone(),
        )
        .with_backoff(backoff);
        let status = reflector.status();
        let pool = LocalPool::new();
        pool.spawner().spawn_local(reflector.run()).expect("spawn");
        let mut h = Self {
            pool,
            clock,
            store,
            status,
        };
        h.settle();
        h
    }

    fn settle(&mut self) {
        self.pool.run_until_stalled();
    }

    fn advance(&mut self, d: Duration) {
        self.clock.advance(d);
        self.settle();
    }

    fn names(&self) -> Vec<String> {
        let store = self.store.borrow();
        let mut v: Vec<String> = store
            .list()
            .iter()
            .map(|o| {
                format!(
                    "{}@{}",
                    o.metadata.name.as_deref().unwrap_or_default(),
                    o.metadata.resource_version.as_deref().unwrap_or_default()
                )
            })
            .collect();
        v.sort();
        v
    }

    fn last_rv(&self) -> Option<String> {
        self.status.borrow().last_resource_version.clone()
    }
}

// Synced only after the end bookmark; the state replaces the store at once
// and the same stream goes on as a plain watch.
#[test]
fn synced_only_after_the_end_bookmark() {
    let server = FakeApiServer::new();
    let feed = expect_watch_list(&server, "");
    let mut h = Harness::start(&server);
    feed.event("ADDED", cm("a", "5"));
    feed.event("ADDED", cm("b", "7"));
    h.settle();
    assert!(
        h.names().is_empty(),
        "nothing shown before the state is complete"
    );
    assert!(!h.status.borrow().synced);
    assert_eq!(h.status.borrow().state, ReflectorState::Listing);
    // The initial events' versions are not trusted for ordering.
    assert_eq!(h.last_rv(), None);
    feed.event("BOOKMARK", end_bookmark("10", "true"));
    h.settle();
    assert_eq!(h.names(), ["a@5", "b@7"]);
    assert!(h.status.borrow().synced);
    assert_eq!(h.last_rv().as_deref(), Some("10"));
    assert_eq!(h.status.borrow().state, ReflectorState::Watching);
    assert_eq!(h.status.borrow().watch_lists, 1);
    feed.event("ADDED", cm("c", "11"));
    h.settle();
    assert_eq!(h.names(), ["a@5", "b@7", "c@11"]);
    assert_eq!(h.last_rv().as_deref(), Some("11"));
    server.verify();
}

// Updates and deletes during the initial stream are folded into the state.
#[test]
fn updates_and_deletes_during_the_initial_stream() {
    let server = FakeApiServer::new();
    let feed = expect_watch_list(&server, "");
    let mut h = Harness::start(&server);
    feed.event("ADDED", cm("a", "5"));
    feed.event("ADDED", cm("b", "6"));
    feed.event("MODIFIED", cm("a", "8"));
    feed.event("DELETED", cm("b", "9"));
    feed.event("BOOKMARK", end_bookmark("9", "true"));
    h.settle();
    assert_eq!(h.names(), ["a@8"]);
}

// The annotation's value is checked: "false" does not end the initial state.
#[test]
fn only_an_end_annotation_set_to_true_ends_the_initial_state() {
    let server = FakeApiServer::new();
    let feed = expect_watch_list(&server, "");
    let mut h = Harness::start(&server);
    feed.event("ADDED", cm("a", "5"));
    feed.event("BOOKMARK", end_bookmark("6", "false"));
    feed.event(
        "BOOKMARK",
        json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"resourceVersion": "6"}}),
    );
    h.settle();
    assert!(!h.status.borrow().synced);
    assert!(h.names().is_empty());
    feed.event("BOOKMARK", end_bookmark("6", "true"));
    h.settle();
    assert_eq!(h.names(), ["a@5"]);
}

// A server that refuses streaming lists gets a plain list and watch.
#[test]
fn falls_back_to_list_and_watch_when_refused() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("sendInitialEvents", "true")
        .reply(Reply::status(
            422,
            "Invalid",
            "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
        ));
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .no_query("watch")
        .reply(cm_list("20", vec![cm("a", "5")]));
    let _watch = expect_plain_watch(&server, "20");
    let h = Harness::start(&server);
    assert_eq!(h.names(), ["a@5"]);
    assert_eq!(h.status.borrow().watch_list_fallbacks, 1);
    assert_eq!(h.status.borrow().errors, 1);
    server.verify();
}

// Some servers never send the end bookmark: give up after a quiet spell.
#[test]
fn falls_back_when_the_end_bookmark_never_comes() {
    let server = FakeApiServer::new();
    let feed = expect_watch_list(&server, "");
    let mut h = Harness::start(&server);
    feed.event("ADDED", cm("a", "5"));
    h.settle();
    h.advance(Duration::from_secs(20));
    feed.event("ADDED", cm("b", "6"));
    h.settle();
    h.advance(Duration::from_secs(20));
    // 20 s after the last event: still waiting.
    assert_eq!(h.status.borrow().watch_list_fallbacks, 0);
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .no_query("watch")
        .reply(cm_list("20", vec![cm("a", "5"), cm("b", "6")]));
    let _watch = expect_plain_watch(&server, "20");
    h.advance(Duration::from_secs(11));
    assert!(feed.is_cancelled());
    assert_eq!(h.status.borrow().watch_list_fallbacks, 1);
    assert_eq!(h.names(), ["a@5", "b@6"]);
    server.verify();
}

// Stopped before sync: ask for a streaming list again, from the same place
// (not from an untrusted initial event's version).
#[test]
fn a_stream_cut_before_sync_asks_for_a_new_streaming_list() {
    let server = FakeApiServer::new();
    let feed = expect_watch_list(&server, "");
    let mut h = Harness::start(&server);
    feed.event("ADDED", cm("a", "5"));
    h.advance(Duration::from_secs(2));
    let again = expect_watch_list(&server, "");
    feed.close();
    h.settle();
    again.event("ADDED", cm("a", "5"));
    again.event("BOOKMARK", end_bookmark("12", "true"));
    h.settle();
    assert_eq!(h.names(), ["a@5"]);
    server.verify();
}

// Stopped after sync: a plain watch from the last version, no new list.
#[test]
fn a_stream_cut_after_sync_resumes_with_a_plain_watch() {
    let server = FakeApiServer::new();
    let feed = expect_watch_list(&server, "");
    let mut h = Harness::start(&server);
    feed.event("ADDED", cm("a", "5"));
    feed.event("BOOKMARK", end_bookmark("10", "true"));
    feed.event("MODIFIED", cm("a", "11"));
    h.advance(Duration::from_secs(2));
    let watch = expect_plain_watch(&server, "11");
    feed.close();
    h.settle();
    watch.event("DELETED", cm("a", "12"));
    h.settle();
    assert!(h.names().is_empty());
    assert_eq!(h.status.borrow().watch_lists, 1);
    server.verify();
}

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
