//! Listing, watching and relisting: versions, paging, 410s and the full-list fallback.

use super::*;

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
