//! Objects that stop decoding: kept as their last good copy, marked stale, until a readable copy or a delete.

use super::*;

/// `name` as the server now sends it: its data holds a number where a
/// ConfigMap has strings, so it no longer decodes (as after a CRD's schema
/// changed under a typed view).
fn unreadable_cm(name: &str, rv: &str) -> Value {
    let mut o = cm(name, rv);
    o["data"] = json!({"k": 42});
    o
}

/// Brings an informer on `queue` to the state the issue is about: it held
/// a@5 and b@6, then b stopped decoding (a watch event of it did not, and
/// the relist that follows named it); z never decoded. Returns the harness,
/// its recorder, and the watch after the relist (from rv 12).
fn with_stale_b(
    server: &FakeApiServer,
    queue: QueueKind,
) -> (Harness, Rc<RefCell<Recorder>>, StreamHandle) {
    let watch = expect_list_and_watch(server, "10", vec![cm("a", "5"), cm("b", "6")]);
    let mut h = Harness::new(server, queue);
    let rec = Rc::new(RefCell::new(Recorder::default()));
    h.informer.add_handler(record(&rec), None);
    h.start();
    server
        .expect_get(PATH)
        .query("resourceVersion", "10")
        .no_query("watch")
        .reply(list(
            "12",
            vec![
                cm("a", "5"),
                unreadable_cm("b", "12"),
                unreadable_cm("z", "11"),
            ],
        ));
    let watch2 = expect_watch(server, "12");
    // The event does not decode: the watch ends, and after the backoff the
    // reflector relists (client-go's ListAndWatch starting over).
    watch.event("MODIFIED", unreadable_cm("b", "12"));
    h.settle();
    h.clock
        .advance_to_next_timer()
        .expect("the backoff before the relist");
    h.settle();
    assert_eq!(h.informer.snapshot().relists, 1, "{queue:?}");
    (h, rec, watch2)
}

/// The informer's stale keys.
fn stale_keys(h: &Harness) -> Vec<String> {
    h.informer
        .stale()
        .iter()
        .map(|(k, _)| k.to_string())
        .collect()
}

// Issue #39, item 3: an object that stops decoding is not deleted. The
// relist names it but does not say it is gone: the handlers hear nothing,
// the cache keeps the last good copy, and the informer names it as stale,
// with why. An object that never decoded is still left out.
#[test]
fn a_relist_that_cannot_read_an_object_keeps_its_last_good_copy_marked_stale() {
    for queue in BOTH {
        let server = FakeApiServer::new();
        let (h, rec, _watch) = with_stale_b(&server, queue);
        assert_eq!(
            rec.borrow().lines[2..],
            [] as [&str; 0],
            "{queue:?}: handlers were told of a change that did not happen"
        );
        let cached: Vec<(String, String)> = h.cached().into_iter().collect();
        assert_eq!(
            cached,
            [("ns/a".into(), "5".into()), ("ns/b".into(), "6".into())],
            "{queue:?}"
        );
        let stale = h.informer.stale();
        assert_eq!(stale_keys(&h), ["ns/b"], "{queue:?}");
        assert!(
            stale
                .get("ns/b")
                .is_some_and(|why| why.contains("invalid type")),
            "{queue:?}: {stale:?}"
        );
        assert_eq!(h.informer.snapshot().stale, stale, "{queue:?}");
        let named: Vec<String> = h
            .informer
            .snapshot()
            .reflector
            .undecodable
            .iter()
            .map(|u| u.key.clone())
            .collect();
        assert_eq!(named, ["ns/b", "ns/z"], "{queue:?}");
        server.assert_no_failures();
    }
}

// The stale mark goes when a copy that decodes arrives: the handlers hear
// the change from the last good copy, and the list's report of it goes too.
#[test]
fn a_copy_that_decodes_clears_the_stale_mark() {
    for queue in BOTH {
        let server = FakeApiServer::new();
        let (mut h, rec, watch) = with_stale_b(&server, queue);
        watch.event("MODIFIED", cm("b", "13"));
        h.settle();
        assert_eq!(rec.borrow().lines[2..], ["update ns/b 6->13"], "{queue:?}");
        assert!(h.informer.stale().is_empty(), "{queue:?}");
        let named: Vec<String> = h
            .informer
            .snapshot()
            .reflector
            .undecodable
            .iter()
            .map(|u| u.key.clone())
            .collect();
        assert_eq!(named, ["ns/z"], "{queue:?}");
        assert_eq!(rec.borrow().replay, h.cached());
        server.assert_no_failures();
    }
}

// A resync re-delivers the copy held; that is not a copy from the server,
// so the object stays stale.
#[test]
fn a_resync_does_not_clear_the_stale_mark() {
    for queue in BOTH {
        let server = FakeApiServer::new();
        let (mut h, _rec, _watch) = with_stale_b(&server, queue);
        let resynced = Rc::new(RefCell::new(Recorder::default()));
        h.informer
            .add_handler(record(&resynced), Some(Duration::from_secs(1)));
        h.clock.advance(Duration::from_secs(1));
        h.settle();
        assert!(
            resynced
                .borrow()
                .lines
                .contains(&"update ns/b 6->6 resync".to_string()),
            "{queue:?}: {:?}",
            resynced.borrow().lines
        );
        assert_eq!(stale_keys(&h), ["ns/b"], "{queue:?}");
        server.assert_no_failures();
    }
}

// When the server really deletes a stale object, and says so in a watch
// event, it is deleted like any other.
#[test]
fn a_stale_object_the_watch_says_is_deleted_is_deleted() {
    for queue in BOTH {
        let server = FakeApiServer::new();
        let (mut h, rec, watch) = with_stale_b(&server, queue);
        watch.event("DELETED", cm("b", "14"));
        h.settle();
        assert_eq!(rec.borrow().lines[2..], ["delete ns/b@14"], "{queue:?}");
        assert!(h.informer.stale().is_empty(), "{queue:?}");
        assert!(!h.cached().contains_key("ns/b"), "{queue:?}");
        server.assert_no_failures();
    }
}

// The DELETED event of an object that does not decode does not decode
// either: the watch ends and the relist that follows does not have it, nor
// names it. Then it is gone, and deleted with the last good copy as its
// final state (unknown: the real one was never read).
#[test]
fn a_stale_object_a_later_list_leaves_out_is_deleted() {
    for queue in BOTH {
        let server = FakeApiServer::new();
        let (mut h, rec, watch) = with_stale_b(&server, queue);
        server
            .expect_get(PATH)
            .query("resourceVersion", "12")
            .no_query("watch")
            .reply(list("14", vec![cm("a", "5"), unreadable_cm("z", "11")]));
        let _watch = expect_watch(&server, "14");
        watch.event("DELETED", unreadable_cm("b", "14"));
        h.settle();
        h.clock
            .advance_to_next_timer()
            .expect("the backoff before the relist");
        h.settle();
        assert_eq!(
            rec.borrow().lines[2..],
            ["delete ns/b@6 unknown"],
            "{queue:?}"
        );
        assert!(h.informer.stale().is_empty(), "{queue:?}");
        assert_eq!(rec.borrow().replay, h.cached());
        server.verify();
    }
}
