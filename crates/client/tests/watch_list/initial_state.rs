//! The initial state: the end bookmark, its annotation, fallbacks and cut streams.

use super::*;

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
