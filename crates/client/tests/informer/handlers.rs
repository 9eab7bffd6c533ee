//! Handlers: adds, updates and deletes, late handlers, relists, resync and removal.

use super::*;

#[test]
fn handlers_see_adds_updates_and_deletes_with_old_and_new() {
    for queue in BOTH {
        let server = FakeApiServer::new();
        let watch = expect_list_and_watch(&server, "10", vec![cm("a", "5"), cm("b", "6")]);
        let mut h = Harness::new(&server, queue);
        let rec = Rc::new(RefCell::new(Recorder::default()));
        let reg = h.informer.add_handler(record(&rec), None);
        assert!(!h.informer.has_synced() && !reg.has_synced());
        h.start();
        assert!(h.informer.has_synced(), "{queue:?}");
        assert!(reg.has_synced());
        watch.event("ADDED", cm("c", "11"));
        watch.event("MODIFIED", cm("a", "12"));
        watch.event("DELETED", cm("b", "13"));
        h.settle();
        let mut lines = rec.borrow().lines.clone();
        lines[..2].sort();
        assert_eq!(
            lines,
            [
                "add ns/a@5 initial",
                "add ns/b@6 initial",
                "add ns/c@11",
                "update ns/a 5->12",
                "delete ns/b@13",
            ],
            "{queue:?}"
        );
        assert_eq!(rec.borrow().replay, h.cached());
        assert_eq!(
            h.informer.last_sync_resource_version().as_deref(),
            Some("13")
        );
        server.assert_no_failures();
    }
}

#[test]
fn a_handler_added_later_first_receives_what_is_cached() {
    let server = FakeApiServer::new();
    let watch = expect_list_and_watch(&server, "10", vec![cm("a", "5"), cm("b", "6")]);
    let mut h = Harness::new(&server, QueueKind::InOrder);
    h.start();
    let rec = Rc::new(RefCell::new(Recorder::default()));
    let reg = h.informer.add_handler(record(&rec), None);
    assert!(reg.has_synced());
    watch.event("ADDED", cm("c", "11"));
    h.settle();
    assert_eq!(
        rec.borrow().lines,
        ["add ns/a@5 initial", "add ns/b@6 initial", "add ns/c@11"]
    );
}

// controller.go processReplacedAllInfo: with the in-order queue a relist
// reaches handlers as its deletes first, then adds and updates in the
// list's own order (not the indexer's hash order).
#[test]
fn a_relist_notifies_deletes_first_then_the_list_in_its_order() {
    let server = FakeApiServer::new();
    let watch = expect_list_and_watch(
        &server,
        "10",
        vec![cm("a", "5"), cm("b", "6"), cm("z", "7")],
    );
    let mut h = Harness::new(&server, QueueKind::InOrder);
    let rec = Rc::new(RefCell::new(Recorder::default()));
    h.informer.add_handler(record(&rec), None);
    h.start();
    let listed: Vec<Value> = ["m", "a", "k", "c", "y", "d"]
        .iter()
        .enumerate()
        .map(|(i, n)| cm(n, &(20 + i).to_string()))
        .collect();
    server
        .expect_get(PATH)
        .query("resourceVersion", "10")
        .reply(list("30", listed));
    let _watch2 = expect_watch(&server, "30");
    watch.event(
        "ERROR",
        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
               "reason": "Expired", "code": 410, "message": "too old resource version"}),
    );
    h.settle();
    h.clock
        .advance_to_next_timer()
        .expect("the backoff before the relist");
    h.settle();
    assert_eq!(
        rec.borrow().lines[3..],
        [
            "delete ns/b@6 unknown",
            "delete ns/z@7 unknown",
            "add ns/m@20",
            "update ns/a 5->21",
            "add ns/k@22",
            "add ns/c@23",
            "add ns/y@24",
            "add ns/d@25",
        ]
    );
    server.verify();
}

#[test]
fn a_relist_after_410_reports_missed_deletes_as_final_state_unknown() {
    for queue in BOTH {
        let server = FakeApiServer::new();
        let watch = expect_list_and_watch(&server, "10", vec![cm("a", "5"), cm("b", "6")]);
        let mut h = Harness::new(&server, queue);
        let rec = Rc::new(RefCell::new(Recorder::default()));
        h.informer.add_handler(record(&rec), None);
        h.start();
        // While the watch was down, b was deleted, a changed and c appeared.
        server
            .expect_get(PATH)
            .query("resourceVersion", "10")
            .reply(list("20", vec![cm("a", "15"), cm("c", "16")]));
        let _watch2 = expect_watch(&server, "20");
        watch.event(
            "ERROR",
            json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                   "reason": "Expired", "code": 410, "message": "too old resource version"}),
        );
        h.settle();
        // The relist waits the reflector's backoff (at most 800 ms × jitter).
        h.clock
            .advance_to_next_timer()
            .expect("the backoff before the relist");
        h.settle();
        let lines = rec.borrow().lines[2..].to_vec();
        let mut sorted = lines.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            ["add ns/c@16", "delete ns/b@6 unknown", "update ns/a 5->15"],
            "{queue:?}"
        );
        assert_eq!(rec.borrow().replay, h.cached());
        let snap = h.informer.snapshot();
        assert_eq!(snap.relists, 1);
        assert_eq!(snap.objects, 2);
        server.assert_no_failures();
    }
}

// client-go's per-handler resync: only the handler that asked is re-sent
// every object, as an update that is marked as a resync.
#[test]
fn resync_goes_only_to_the_handler_that_asked_for_it() {
    for queue in BOTH {
        let server = FakeApiServer::new();
        let _watch = expect_list_and_watch(&server, "10", vec![cm("a", "5")]);
        let mut h = Harness::new(&server, queue);
        let fast = Rc::new(RefCell::new(Recorder::default()));
        let none = Rc::new(RefCell::new(Recorder::default()));
        h.informer
            .add_handler(record(&fast), Some(Duration::from_secs(30)));
        h.informer.add_handler(record(&none), None);
        h.start();
        h.clock.advance(Duration::from_secs(31));
        h.settle();
        assert_eq!(
            fast.borrow().lines,
            ["add ns/a@5 initial", "update ns/a 5->5 resync"],
            "{queue:?}"
        );
        assert_eq!(none.borrow().lines, ["add ns/a@5 initial"]);
    }
}

// client-go's resync check runs on its own timer: a handler added later
// (a view that mounts) does not restart it, so the first handler's resync
// comes on time however often handlers come and go.
#[test]
fn adding_a_handler_does_not_restart_the_resync_timer() {
    for queue in BOTH {
        let server = FakeApiServer::new();
        let _watch = expect_list_and_watch(&server, "10", vec![cm("a", "5")]);
        let mut h = Harness::new(&server, queue);
        let first = Rc::new(RefCell::new(Recorder::default()));
        h.informer
            .add_handler(record(&first), Some(Duration::from_secs(30)));
        h.start();
        let mut later = Vec::new();
        for _ in 0..3 {
            h.clock.advance(Duration::from_secs(9));
            h.settle();
            later.push(
                h.informer
                    .add_handler(|_| {}, Some(Duration::from_secs(60))),
            );
        }
        h.clock.advance(Duration::from_secs(4));
        h.settle();
        assert_eq!(
            first.borrow().lines,
            ["add ns/a@5 initial", "update ns/a 5->5 resync"],
            "{queue:?}: due 30 s after it was added, handlers added at 9, 18 and 27 s"
        );
    }
}

// client-go's minimumResyncPeriod: a period under a second is raised to
// one second; a period of zero means no resync at all.
#[test]
fn resync_period_is_clamped_to_the_minimum_and_zero_means_none() {
    let server = FakeApiServer::new();
    let _watch = expect_list_and_watch(&server, "10", vec![cm("a", "5")]);
    let mut h = Harness::new(&server, QueueKind::InOrder);
    let tiny = Rc::new(RefCell::new(Recorder::default()));
    let zero = Rc::new(RefCell::new(Recorder::default()));
    h.informer
        .add_handler(record(&tiny), Some(Duration::from_millis(10)));
    h.informer.add_handler(record(&zero), Some(Duration::ZERO));
    h.start();
    h.clock.advance(Duration::from_millis(999));
    h.settle();
    assert_eq!(tiny.borrow().lines, ["add ns/a@5 initial"]);
    h.clock.advance(Duration::from_millis(1));
    h.settle();
    assert_eq!(
        tiny.borrow().lines,
        ["add ns/a@5 initial", "update ns/a 5->5 resync"]
    );
    h.clock.advance(Duration::from_secs(5));
    h.settle();
    assert_eq!(zero.borrow().lines, ["add ns/a@5 initial"]);
}

#[test]
fn a_removed_handler_hears_nothing_more() {
    let server = FakeApiServer::new();
    let watch = expect_list_and_watch(&server, "10", vec![]);
    let mut h = Harness::new(&server, QueueKind::InOrder);
    let rec = Rc::new(RefCell::new(Recorder::default()));
    let reg = h.informer.add_handler(record(&rec), None);
    h.start();
    watch.event("ADDED", cm("a", "11"));
    h.settle();
    reg.remove();
    watch.event("ADDED", cm("b", "12"));
    h.settle();
    assert_eq!(rec.borrow().lines, ["add ns/a@11"]);
    assert_eq!(h.informer.snapshot().handlers, 0);
    assert_eq!(h.cached().len(), 2);
}
