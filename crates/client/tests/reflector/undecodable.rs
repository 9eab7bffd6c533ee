//! Objects that do not decode: a relist that names them while the store keeps the rest.

use super::*;

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
