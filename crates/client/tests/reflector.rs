//! Reflector behaviour against the scripted fake API server and a fake clock,
//! ported from client-go's reflector tests (named in the comments).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::backoff::Backoff;
use kubeglass_client::cache::{Reflector, ReflectorConfig, ReflectorState, ReflectorStatus, Store};
use kubeglass_client::clock::PassiveClock;
use kubeglass_client::rest::RestClient;
use kubeglass_client::testing::{FakeApiServer, FakeClock, Reply};
use kubeglass_client::transport::TransportError;
use serde_json::{Value, json};

const PATH: &str = "/api/v1/namespaces/ns/configmaps";

fn cm(name: &str, rv: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv}})
}

fn list(rv: &str, items: Vec<Value>, cont: Option<&str>) -> Reply {
    let mut meta = json!({"resourceVersion": rv});
    if let Some(c) = cont {
        meta["continue"] = json!(c);
    }
    Reply::json(
        200,
        json!({"apiVersion": "v1", "kind": "ConfigMapList", "metadata": meta, "items": items}),
    )
}

struct Harness {
    pool: LocalPool,
    clock: FakeClock,
    server: FakeApiServer,
    store: Rc<RefCell<Store<ConfigMap>>>,
    status: Rc<RefCell<ReflectorStatus>>,
}

impl Harness {
    /// Starts a reflector (no jitter in its backoff) on a fresh fake server.
    fn start(server: FakeApiServer) -> Self {
        let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
        let store = Rc::new(RefCell::new(Store::<ConfigMap>::new()));
        let mut backoff = Backoff::reflector(1);
        backoff.jitter = 0.0;
        let reflector = Reflector::new(
            RestClient::new(Rc::new(server.clone())),
            Rc::new(clock.clone()),
            ReflectorConfig::new(PATH),
            store.clone(),
        )
        .with_backoff(backoff);
        let status = reflector.status();
        let pool = LocalPool::new();
        pool.spawner().spawn_local(reflector.run()).expect("spawn");
        let mut h = Self {
            pool,
            clock,
            server,
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
        let mut v: Vec<String> = self.store.borrow().keys().map(String::from).collect();
        v.sort();
        v
    }

    fn state(&self) -> ReflectorState {
        self.status.borrow().state.clone()
    }
}

// TestReflectorListAndWatch: list at rv=0, watch from the list's RV with
// bookmarks, events applied, RV tracked from events and bookmarks.
#[test]
fn lists_at_rv_0_then_watches_from_the_list_rv() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .query("limit", "500")
        .reply(list("10", vec![cm("a", "5")], None));
    let (reply, watch) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "10")
        .query("allowWatchBookmarks", "true")
        .reply(reply);
    let mut h = Harness::start(server);
    assert_eq!(h.names(), ["ns/a"]);
    assert_eq!(h.state(), ReflectorState::Watching);

    watch.event("ADDED", cm("b", "11"));
    watch.event("MODIFIED", cm("a", "12"));
    watch.event("DELETED", cm("b", "13"));
    h.settle();
    assert_eq!(h.names(), ["ns/a"]);
    assert_eq!(
        h.status.borrow().last_resource_version.as_deref(),
        Some("13")
    );
    assert_eq!(h.status.borrow().last_bookmark_at, None);

    watch.event(
        "BOOKMARK",
        json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"resourceVersion": "20"}}),
    );
    h.settle();
    let s = h.status.borrow().clone();
    assert_eq!(s.last_resource_version.as_deref(), Some("20"));
    assert_eq!((s.added, s.modified, s.deleted, s.bookmarks), (1, 1, 1, 1));
    assert!(s.last_bookmark_at.is_some());
    assert_eq!(s.last_bookmark_at, s.last_event_at);
    assert!(s.synced);
    h.server.verify();
}

// The watch timeout is random in [5 min, 10 min] (client-go's minWatchTimeout × [1, 2)).
#[test]
fn the_watch_timeout_is_between_5_and_10_minutes() {
    let server = FakeApiServer::new();
    server.expect_get(PATH).reply(list("10", vec![], None));
    let (reply, _watch) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply);
    let h = Harness::start(server);
    let log = h.server.log();
    let timeout: u64 = log[1]
        .split('&')
        .find_map(|p| p.strip_prefix("timeoutSeconds="))
        .and_then(|v| v.parse().ok())
        .expect("timeoutSeconds sent");
    assert!((300..=600).contains(&timeout), "timeout {timeout}");
}

// TestReflectorExpiredExactResourceVersion and
// TestReflectorNotPaginatingNotConsistentReads: a 410 on the watch waits the
// backoff, then lists again at the last RV with no limit (so the watch cache
// answers "not older than" rather than etcd an Exact read); only when that
// list is also expired does it list at once with no RV, paged.
#[test]
fn relists_at_the_last_rv_after_410_then_fully_after_a_second_410() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .reply(list("10", vec![cm("a", "5")], None));
    let (reply, watch) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "10")
        .reply(reply);
    server
        .expect_get(PATH)
        .query("resourceVersion", "15")
        .no_query("limit")
        .reply(Reply::status(
            410,
            "Expired",
            "too old resource version: 15 (30)",
        ));
    server
        .expect_get(PATH)
        .no_query("resourceVersion")
        .query("limit", "500")
        .reply(list("30", vec![cm("b", "25")], Some("next-page")));
    server
        .expect_get(PATH)
        .query("continue", "next-page")
        .no_query("resourceVersion")
        .reply(list("30", vec![cm("c", "26")], None));
    let (reply2, _watch2) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "30")
        .reply(reply2);

    let mut h = Harness::start(server);
    watch.event("MODIFIED", cm("a", "15"));
    watch.event("ERROR", json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                 "message": "too old resource version: 15 (30)", "reason": "Expired", "code": 410}));
    h.settle();
    // The relist after the watch's 410 waits the backoff first.
    assert!(
        matches!(h.state(), ReflectorState::BackingOff { .. }),
        "{:?}",
        h.state()
    );
    assert_eq!(h.status.borrow().lists, 1, "no list before the backoff");
    h.advance(Duration::from_millis(800));
    // No wait between the two lists: the list at the last RV was gone too.
    assert_eq!(
        h.names(),
        ["ns/b", "ns/c"],
        "the missed delete of ns/a is applied"
    );
    assert_eq!(h.state(), ReflectorState::Watching);
    assert_eq!(h.status.borrow().lists, 2);
    h.server.verify();
}

// TestReflectorFullListIfTooLarge
#[test]
fn a_too_large_resource_version_falls_back_to_a_full_list() {
    let server = FakeApiServer::new();
    server.expect_get(PATH).reply(list("10", vec![], None));
    let (reply, watch) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply);
    server.expect_get(PATH).query("resourceVersion", "10").reply(Reply::json(
        504,
        json!({"kind": "Status", "status": "Failure", "reason": "Timeout", "code": 504,
               "message": "Too large resource version: 10, current: 3",
               "details": {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]}}),
    ));
    server
        .expect_get(PATH)
        .no_query("resourceVersion")
        .reply(list("3", vec![cm("x", "3")], None));
    let (reply2, _w2) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "3")
        .reply(reply2);
    let mut h = Harness::start(server);
    watch.event("ERROR", json!({"kind": "Status", "status": "Failure", "reason": "Expired", "code": 410, "message": "gone"}));
    h.settle();
    h.advance(Duration::from_millis(800));
    assert_eq!(h.names(), ["ns/x"]);
    h.server.verify();
}

// A watch cache that keeps answering 410 (the informer's RV left it during
// a long outage) gets one list per backoff step, growing, never a hot loop:
// the loop the issue measured at ~10 LISTs a second.
#[test]
fn repeated_410s_on_the_watch_are_relisted_at_the_backoff_pace() {
    let server = FakeApiServer::new();
    server.expect_get(PATH).reply(list("10", vec![], None));
    let mut watches = Vec::new();
    let (reply, w) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply);
    watches.push(w);
    for _ in 0..3 {
        server
            .expect_get(PATH)
            .query("resourceVersion", "10")
            .no_query("limit")
            .reply(list("10", vec![], None));
        let (reply, w) = Reply::stream();
        server
            .expect_get(PATH)
            .query("watch", "true")
            .query("resourceVersion", "10")
            .reply(reply);
        watches.push(w);
    }
    let mut h = Harness::start(server);
    let gone = json!({"kind": "Status", "status": "Failure", "reason": "Expired", "code": 410, "message": "too old resource version"});
    let mut waited = Vec::new();
    for w in &watches[..3] {
        w.event("ERROR", gone.clone());
        h.settle();
        let lists = h.status.borrow().lists;
        waited.push(h.clock.advance_to_next_timer().expect("a backoff timer"));
        h.settle();
        assert_eq!(h.status.borrow().lists, lists + 1, "one list per backoff");
    }
    assert_eq!(
        waited,
        [
            Duration::from_millis(800),
            Duration::from_millis(1600),
            Duration::from_millis(3200)
        ]
    );
    h.server.verify();
}

// TestReflectorPaginatingNonConsistentReadsIfWatchCacheDisabled: an rv=0
// list that came back in pages means no watch cache, so the relist at the
// last RV pages too.
#[test]
fn a_paginated_rv_0_list_makes_later_lists_page() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .query("limit", "500")
        .reply(list("10", vec![cm("a", "1")], Some("C1")));
    server
        .expect_get(PATH)
        .query("continue", "C1")
        .no_query("resourceVersion")
        .reply(list("10", vec![cm("b", "2")], None));
    let (reply, watch) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply);
    server
        .expect_get(PATH)
        .query("resourceVersion", "10")
        .query("limit", "500")
        .reply(list("12", vec![cm("a", "1")], Some("C2")));
    server
        .expect_get(PATH)
        .query("continue", "C2")
        .query("limit", "500")
        .no_query("resourceVersion")
        .reply(list("12", vec![cm("c", "12")], None));
    let (reply2, _w2) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "12")
        .reply(reply2);
    let mut h = Harness::start(server);
    assert_eq!(h.names(), ["ns/a", "ns/b"]);
    watch.event("ERROR", json!({"kind": "Status", "status": "Failure", "reason": "Expired", "code": 410, "message": "gone"}));
    h.settle();
    h.advance(Duration::from_millis(800));
    assert_eq!(h.names(), ["ns/a", "ns/c"]);
    h.server.verify();
}

// TestReflectorFullListIfExpired: a continue token that expires in the
// middle of a paged list falls back to one full list at the version first
// asked for, instead of starting over page by page.
#[test]
fn an_expired_continue_token_falls_back_to_one_full_list_at_the_same_rv() {
    let server = FakeApiServer::new();
    // rv=0 answered in pages: this resource has no watch cache.
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .reply(list("10", vec![cm("a", "1")], Some("C0")));
    server
        .expect_get(PATH)
        .query("continue", "C0")
        .reply(list("10", vec![], None));
    let (reply, watch) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply);
    server
        .expect_get(PATH)
        .query("resourceVersion", "10")
        .query("limit", "500")
        .reply(list("11", vec![cm("a", "1")], Some("C1")));
    server
        .expect_get(PATH)
        .query("continue", "C1")
        .reply(Reply::status(
            410,
            "Expired",
            "The provided continue parameter is too old to display a consistent list result.",
        ));
    server
        .expect_get(PATH)
        .query("resourceVersion", "10")
        .no_query("limit")
        .no_query("continue")
        .reply(list(
            "11",
            vec![cm("a", "1"), cm("b", "2"), cm("c", "3")],
            None,
        ));
    let (reply2, _w2) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "11")
        .reply(reply2);
    let mut h = Harness::start(server);
    watch.event("ERROR", json!({"kind": "Status", "status": "Failure", "reason": "Expired", "code": 410, "message": "gone"}));
    h.settle();
    h.advance(Duration::from_millis(800));
    assert_eq!(h.names(), ["ns/a", "ns/b", "ns/c"]);
    assert_eq!(
        h.status.borrow().lists,
        2,
        "one list, finished by the fallback"
    );
    assert_eq!(h.status.borrow().errors, 1, "only the watch's 410 counted");
    h.server.verify();
}

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

// client-go's StreamWatcher ends a watch on an event it cannot decode, and
// the reflector's ListAndWatch starts over after its backoff: a relist, not
// a resumed watch that would receive the same event again, forever. The
// list keeps every object that decodes and names the one that does not;
// the store keeps that one's last good copy, marked stale (the list does
// not say it is gone), until a copy that decodes comes.
#[test]
fn an_undecodable_watch_event_relists_and_the_bad_object_is_named() {
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .reply(list("10", vec![cm("a", "5"), cm("b", "6")], None));
    let (reply, watch) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "10")
        .reply(reply);
    // b's data now holds a number where the view expects a string.
    let bad_b = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "b", "namespace": "ns", "resourceVersion": "12"},
        "data": {"k": 42}});
    server
        .expect_get(PATH)
        .query("resourceVersion", "11")
        .no_query("watch")
        .reply(list(
            "12",
            vec![cm("a", "5"), bad_b.clone(), cm("c", "11")],
            None,
        ));
    let (reply, watch2) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", "12")
        .reply(reply);
    let mut h = Harness::start(server);
    watch.event("ADDED", cm("c", "11"));
    watch.event("MODIFIED", bad_b);
    h.settle();
    assert!(matches!(h.state(), ReflectorState::BackingOff { .. }));
    assert!(
        h.status
            .borrow()
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("invalid")),
        "{:?}",
        h.status.borrow().last_error
    );
    h.advance(Duration::from_millis(800));
    assert_eq!(h.state(), ReflectorState::Watching);
    assert_eq!(h.names(), ["ns/a", "ns/b", "ns/c"]);
    let kept = h.store.borrow().get("ns/b").expect("b's last good copy");
    assert_eq!(kept.metadata.resource_version.as_deref(), Some("6"));
    let stale = h.store.borrow().stale();
    assert!(
        stale
            .get("ns/b")
            .is_some_and(|why| why.contains("invalid type")),
        "{stale:?}"
    );
    let undecodable = h.status.borrow().undecodable.clone();
    assert_eq!(undecodable.len(), 1, "{undecodable:?}");
    assert_eq!(undecodable[0].key, "ns/b");
    assert!(
        undecodable[0].error.contains("invalid type"),
        "{undecodable:?}"
    );
    // The resumed watch goes on as usual.
    watch2.event("ADDED", cm("d", "13"));
    h.settle();
    assert_eq!(h.names(), ["ns/a", "ns/b", "ns/c", "ns/d"]);
    assert_eq!(h.status.borrow().undecodable.len(), 1);
    // A copy of b that decodes: no longer stale, no longer named.
    watch2.event("MODIFIED", cm("b", "14"));
    h.settle();
    assert!(h.store.borrow().stale().is_empty());
    assert!(h.status.borrow().undecodable.is_empty());
    h.server.verify();
}

// A cluster full of bad objects does not make the status (copied into every
// snapshot the views read) large: it names the first hundred and counts
// the rest.
#[test]
fn a_list_of_many_bad_objects_names_a_hundred_and_counts_the_rest() {
    use kubeglass_client::cache::reflector::MAX_UNDECODABLE;
    let server = FakeApiServer::new();
    let mut items: Vec<Value> = (0..MAX_UNDECODABLE + 5)
        .map(|i| {
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": format!("bad-{i}"), "namespace": "ns", "resourceVersion": "5"},
                "data": {"k": 42}})
        })
        .collect();
    items.push(cm("good", "6"));
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .reply(list("10", items, None));
    let (reply, _watch) = Reply::stream();
    server.expect_get(PATH).query("watch", "true").reply(reply);
    let h = Harness::start(server);
    assert_eq!(h.names(), ["ns/good"]);
    let status = h.status.borrow();
    assert_eq!(status.undecodable.len(), MAX_UNDECODABLE);
    assert_eq!(status.undecodable_more, 5);
    assert_eq!(status.undecodable[0].key, "ns/bad-0");
}
