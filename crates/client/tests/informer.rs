//! Shared informers and the factory against the scripted fake API server
//! and a fake clock: handlers, late handlers, relists, resync, transforms,
//! sharing and stopping.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::cache::factory::Spawner;
use kubeglass_client::cache::lister::LabelSelector;
use kubeglass_client::cache::{
    InformerFactory, InformerOptions, Notification, QueueKind, SharedInformer, object_key,
};
use kubeglass_client::rest::RestClient;
use kubeglass_client::testing::{FakeApiServer, FakeClock, Reply, StreamHandle};
use serde_json::{Value, json};

const PATH: &str = "/api/v1/namespaces/ns/configmaps";

fn cm(name: &str, rv: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv,
                        "labels": {"app": if name.starts_with('w') { "web" } else { "db" }},
                        "managedFields": [{"manager": "kubectl", "operation": "Apply"}]}})
}

fn list(rv: &str, items: Vec<Value>) -> Reply {
    Reply::json(
        200,
        json!({"apiVersion": "v1", "kind": "ConfigMapList",
               "metadata": {"resourceVersion": rv}, "items": items}),
    )
}

/// Expects the first list (rv=0) and a watch from `rv`; returns the watch feed.
fn expect_list_and_watch(server: &FakeApiServer, rv: &str, items: Vec<Value>) -> StreamHandle {
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .reply(list(rv, items));
    expect_watch(server, rv)
}

fn expect_watch(server: &FakeApiServer, rv: &str) -> StreamHandle {
    let (reply, feed) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", rv)
        .reply(reply);
    feed
}

/// Handler notifications, as lines and applied to a map (the replay check).
#[derive(Default)]
struct Recorder {
    lines: Vec<String>,
    replay: BTreeMap<String, String>,
}

fn rv_of(o: &ConfigMap) -> String {
    o.metadata.resource_version.clone().unwrap_or_default()
}

fn record(rec: &Rc<RefCell<Recorder>>) -> impl FnMut(&Notification<ConfigMap>) + 'static {
    let rec = rec.clone();
    move |n| {
        let mut r = rec.borrow_mut();
        let line = match n {
            Notification::Added { object, initial } => {
                r.replay.insert(object_key(object.as_ref()), rv_of(object));
                format!(
                    "add {}@{}{}",
                    object_key(object.as_ref()),
                    rv_of(object),
                    if *initial { " initial" } else { "" }
                )
            }
            Notification::Updated { old, new, resync } => {
                r.replay.insert(object_key(new.as_ref()), rv_of(new));
                format!(
                    "update {} {}->{}{}",
                    object_key(new.as_ref()),
                    rv_of(old),
                    rv_of(new),
                    if *resync { " resync" } else { "" }
                )
            }
            Notification::Deleted {
                object,
                final_state_unknown,
            } => {
                r.replay.remove(&object_key(object.as_ref()));
                format!(
                    "delete {}@{}{}",
                    object_key(object.as_ref()),
                    rv_of(object),
                    if *final_state_unknown { " unknown" } else { "" }
                )
            }
        };
        r.lines.push(line);
    }
}

struct Harness {
    pool: LocalPool,
    clock: FakeClock,
    informer: SharedInformer<ConfigMap>,
}

impl Harness {
    fn new(server: &FakeApiServer, queue: QueueKind) -> Self {
        let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
        let options = InformerOptions::new(PATH);
        let options = options.with_queue(queue);
        let informer = SharedInformer::new(
            RestClient::new(Rc::new(server.clone())),
            Rc::new(clock.clone()),
            options,
        );
        Self {
            pool: LocalPool::new(),
            clock,
            informer,
        }
    }

    fn start(&mut self) {
        let i = self.informer.clone();
        self.pool
            .spawner()
            .spawn_local(async move { i.run().await })
            .expect("spawn");
        self.settle();
    }

    fn settle(&mut self) {
        self.pool.run_until_stalled();
    }

    fn cached(&self) -> BTreeMap<String, String> {
        self.informer
            .indexer()
            .borrow()
            .list()
            .iter()
            .map(|o| (object_key(o.as_ref()), rv_of(o)))
            .collect()
    }
}

const BOTH: [QueueKind; 2] = [QueueKind::InOrder, QueueKind::Delta];

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

// TestReflectorRespectStoreTransformer: the default transform drops managedFields.
#[test]
fn managed_fields_are_dropped_before_caching() {
    let server = FakeApiServer::new();
    let watch = expect_list_and_watch(&server, "10", vec![cm("a", "5")]);
    let mut h = Harness::new(&server, QueueKind::InOrder);
    h.start();
    watch.event("ADDED", cm("b", "11"));
    h.settle();
    for o in h.informer.indexer().borrow().list() {
        assert!(o.metadata.managed_fields.is_none(), "{:?}", o.metadata.name);
    }
}

// A paged list goes through the transform page by page as the pages
// arrive, not once the whole list is in (a list of 10,000 whole pods
// trimmed to their resources must never hold 10,000 whole pods), and each
// object through it once: the store does not transform them again.
#[test]
fn a_paged_list_is_transformed_page_by_page_each_object_once() {
    for queue in [QueueKind::InOrder, QueueKind::Delta] {
        let server = FakeApiServer::new();
        let calls = Rc::new(std::cell::Cell::new(0));
        let c = calls.clone();
        let mut options = InformerOptions::<ConfigMap>::new(PATH)
            .with_queue(queue)
            .with_transform(
                "counted",
                Rc::new(move |mut o: ConfigMap| {
                    c.set(c.get() + 1);
                    o.data = None;
                    o
                }),
            );
        options.reflector.page_size = 2;
        let page = |rv: &str, cont: &str, names: &[&str]| {
            json!({"apiVersion": "v1", "kind": "ConfigMapList",
                   "metadata": {"resourceVersion": rv, "continue": cont},
                   "items": names.iter().map(|n| {
                       let mut o = cm(n, "5");
                       o["data"] = json!({"k": "v"});
                       o
                   }).collect::<Vec<_>>()})
        };
        server
            .expect_get(PATH)
            .query("limit", "2")
            .query("resourceVersion", "0")
            .reply(Reply::json(200, page("10", "next", &["a", "b"])));
        let (second, body) = Reply::stream();
        server
            .expect_get(PATH)
            .query("continue", "next")
            .reply(second);
        let _watch = expect_watch(&server, "10");
        let mut pool = LocalPool::new();
        let informer = SharedInformer::new(
            RestClient::new(Rc::new(server.clone())),
            Rc::new(FakeClock::new(Duration::from_secs(1_700_000_000))),
            options,
        );
        let i = informer.clone();
        pool.spawner()
            .spawn_local(async move { i.run().await })
            .expect("spawn");
        pool.run_until_stalled();
        assert_eq!(
            calls.get(),
            2,
            "{queue:?}: the first page waited for the second"
        );
        body.chunk(page("10", "", &["c"]).to_string());
        body.close();
        pool.run_until_stalled();
        assert!(informer.has_synced());
        assert_eq!(calls.get(), 3, "{queue:?}: each object transformed once");
        let cached = informer.indexer().borrow().list();
        assert_eq!(cached.len(), 3);
        assert!(cached.iter().all(|o| o.data.is_none()), "{queue:?}");
        server.verify();
    }
}

#[test]
fn listers_read_the_cache_and_watch_errors_reach_the_hook() {
    let server = FakeApiServer::new();
    let watch = expect_list_and_watch(&server, "10", vec![cm("web-1", "5"), cm("db-1", "6")]);
    let mut h = Harness::new(&server, QueueKind::InOrder);
    let errors = Rc::new(RefCell::new(Vec::<String>::new()));
    let e = errors.clone();
    h.informer
        .set_watch_error_handler(move |m| e.borrow_mut().push(m.to_string()));
    h.start();
    let web = LabelSelector::parse("app=web").expect("valid");
    let lister = h.informer.lister();
    assert_eq!(lister.namespace("ns").list(&web).len(), 1);
    assert!(lister.namespace("ns").get("db-1").is_some());
    // After a stream that does not decode, client-go lists again (at the
    // last version, so the watch cache answers), then watches.
    server
        .expect_get(PATH)
        .query("resourceVersion", "10")
        .no_query("watch")
        .reply(list("10", vec![cm("web-1", "5"), cm("db-1", "6")]));
    let _again = expect_watch(&server, "10");
    watch.chunk("{not json\n");
    h.settle();
    assert_eq!(errors.borrow().len(), 1, "{:?}", errors.borrow());
    // The cache survives the bad stream.
    assert_eq!(lister.list(&LabelSelector::default()).len(), 2);
    // The list and the watch follow after a backoff.
    h.clock.advance(Duration::from_secs(2));
    h.settle();
    assert_eq!(
        server.remaining(),
        0,
        "relisted and re-watched: {:?}",
        server.log()
    );
}

fn factory(server: &FakeApiServer, pool: &LocalPool, clock: &FakeClock) -> InformerFactory {
    let spawner = pool.spawner();
    let spawn: Spawner = Rc::new(move |f| spawner.spawn_local(f).expect("spawn"));
    InformerFactory::new(
        RestClient::new(Rc::new(server.clone())),
        Rc::new(clock.clone()),
        spawn,
    )
}

// One informer — one list and one watch — however many views ask; it stops
// (and its watch is cancelled) when the last view lets go.
#[test]
fn the_factory_shares_one_watch_and_stops_it_when_nobody_needs_it() {
    let server = FakeApiServer::new();
    let watch = expect_list_and_watch(&server, "10", vec![cm("a", "5")]);
    let mut pool = LocalPool::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let f = factory(&server, &pool, &clock);
    let one = f.informer(InformerOptions::<ConfigMap>::new(PATH));
    let two = f.informer(InformerOptions::<ConfigMap>::new(PATH));
    let mut other = InformerOptions::<ConfigMap>::new(PATH);
    other.reflector.label_selector = Some("app=web".into());
    assert_eq!(f.len(), 1);
    // A cache that keeps managedFields (no transform) is not the one that
    // drops them: asking for it after the other must not get the other.
    let mut whole = InformerOptions::<ConfigMap>::new(PATH);
    whole.transform = None;
    assert_ne!(
        InformerFactory::key_of(&whole),
        InformerFactory::key_of(&InformerOptions::<ConfigMap>::new(PATH))
    );
    f.start();
    pool.run_until_stalled();
    assert!(one.has_synced() && two.has_synced());
    assert_eq!(server.log().len(), 2, "{:#?}", server.log());
    let snaps = f.snapshots();
    assert_eq!(snaps.len(), 1);
    assert_eq!(snaps[0].refs, 2);
    assert_eq!(snaps[0].snapshot.objects, 1);
    assert_eq!(snaps[0].snapshot.state_label(), "watching");
    drop(one);
    pool.run_until_stalled();
    assert!(!watch.is_cancelled());
    drop(two);
    pool.run_until_stalled();
    assert!(watch.is_cancelled());
    assert_eq!(f.len(), 0);
    assert_eq!(f.stopped_count(), 1);
    // A different selector is a different informer, started at once.
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .query("labelSelector", "app=web")
        .reply(list("30", vec![]));
    let (reply, _w) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("labelSelector", "app=web")
        .reply(reply);
    let web = f.informer(other);
    pool.run_until_stalled();
    assert!(web.has_synced());
    let sync = f.wait_for_cache_sync();
    futures::pin_mut!(sync);
    assert!(pool.run_until(async { futures::poll!(sync.as_mut()).is_ready() }));
    server.verify();
    f.shutdown();
    pool.run_until_stalled();
    assert_eq!(web.snapshot().state_label(), "stopped");
}

// A transform is part of what makes two informers the same: a cache
// trimmed for one view (only what it reads) is not handed to a view that
// asked for the default, and each keeps its own watch; the same trim is
// shared.
#[test]
fn informers_of_different_transforms_are_not_shared() {
    let server = FakeApiServer::new();
    let mut pool = LocalPool::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let f = factory(&server, &pool, &clock);
    f.start();
    let with_data = || {
        let mut a = cm("a", "5");
        a["data"] = json!({"k": "v"});
        vec![a]
    };
    let _w1 = expect_list_and_watch(&server, "10", with_data());
    let _w2 = expect_list_and_watch(&server, "10", with_data());
    let trim = || {
        InformerOptions::<ConfigMap>::new(PATH).with_transform(
            "data dropped",
            Rc::new(|mut o: ConfigMap| {
                o.data = None;
                o
            }),
        )
    };
    let whole = f.informer(InformerOptions::<ConfigMap>::new(PATH));
    let trimmed = f.informer(trim());
    let same = f.informer(trim());
    pool.run_until_stalled();
    assert_eq!(f.len(), 2, "{:?}", f.snapshots());
    let data = |i: &SharedInformer<ConfigMap>| {
        i.lister()
            .get("ns/a")
            .and_then(|o| o.data.clone())
            .is_some()
    };
    assert!(
        data(&whole),
        "the default cache lost its data to another view's trim"
    );
    assert!(!data(&trimmed) && !data(&same));
    let mut keys: Vec<String> = f.snapshots().iter().map(|e| e.key.to_string()).collect();
    keys.sort();
    assert_eq!(keys, [PATH.to_string(), format!("{PATH} (data dropped)")]);
    server.verify();
}

fn table_row(name: &str, rv: &str, age: &str) -> Value {
    json!({"cells": [name, age],
           "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                      "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv}}})
}

// Table-format informers: kubectl's columns for any resource, live.
#[test]
fn a_table_informer_caches_rows_with_their_columns() {
    use kubeglass_client::rest::table::TableRowObject;
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .query("includeObject", "Metadata")
        .header("accept", "as=Table")
        .reply(Reply::json(
            200,
            json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
                   "metadata": {"resourceVersion": "10"},
                   "columnDefinitions": [{"name": "Name", "type": "string", "format": "name"},
                                         {"name": "Age", "type": "string"}],
                   "rows": [table_row("a", "5", "3m"), table_row("b", "6", "2m")]}),
        ));
    let (reply, feed) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("includeObject", "Metadata")
        .header("accept", "as=Table")
        .reply(reply);
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let mut options = InformerOptions::<TableRowObject>::new(PATH);
    options.reflector = options.reflector.tables();
    let informer = SharedInformer::new(
        RestClient::new(Rc::new(server.clone())),
        Rc::new(clock.clone()),
        options,
    );
    let mut pool = LocalPool::new();
    let i = informer.clone();
    pool.spawner()
        .spawn_local(async move { i.run().await })
        .expect("spawn");
    pool.run_until_stalled();
    assert!(informer.has_synced());
    let names: Vec<String> = informer.columns().iter().map(|c| c.name.clone()).collect();
    assert_eq!(names, ["Name", "Age"]);
    feed.event(
        "MODIFIED",
        json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "11"},
               "rows": [table_row("a", "11", "4m")]}),
    );
    feed.event(
        "DELETED",
        json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "12"},
               "rows": [table_row("b", "12", "2m")]}),
    );
    pool.run_until_stalled();
    let a = informer.lister().namespace("ns").get("a").expect("row a");
    assert_eq!(a.row.cell_text(1), "4m");
    assert!(informer.lister().get("ns/b").is_none());
    assert_eq!(informer.last_sync_resource_version().as_deref(), Some("12"));
    server.assert_no_failures();
}

// Metadata-only informers: PartialObjectMetadata lists and watches.
#[test]
fn a_metadata_informer_asks_for_partial_object_metadata() {
    use kubeglass_client::kube_core::PartialObjectMeta;
    let server = FakeApiServer::new();
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .header("accept", "as=PartialObjectMetadataList")
        .reply(Reply::json(
            200,
            json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                   "metadata": {"resourceVersion": "10"},
                   "items": [{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                              "metadata": {"name": "a", "namespace": "ns", "resourceVersion": "5"}}]}),
        ));
    let (reply, _feed) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .header("accept", "as=PartialObjectMetadata")
        .reply(reply);
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let mut options = InformerOptions::<PartialObjectMeta<ConfigMap>>::new(PATH);
    options.reflector = options.reflector.metadata_only();
    let informer = SharedInformer::new(
        RestClient::new(Rc::new(server.clone())),
        Rc::new(clock.clone()),
        options,
    );
    let mut pool = LocalPool::new();
    let i = informer.clone();
    pool.spawner()
        .spawn_local(async move { i.run().await })
        .expect("spawn");
    pool.run_until_stalled();
    assert!(informer.lister().get("ns/a").is_some());
    server.assert_no_failures();
}

// With a linger, an informer nobody holds keeps running for that long, and
// is picked up again (same watch) if a view asks within it.
#[test]
fn a_lingering_informer_is_reused_then_stopped() {
    let server = FakeApiServer::new();
    let watch = expect_list_and_watch(&server, "10", vec![cm("a", "5")]);
    let mut pool = LocalPool::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let f = factory(&server, &pool, &clock);
    f.set_linger(|_| Duration::from_secs(60));
    f.start();
    let first = f.informer(InformerOptions::<ConfigMap>::new(PATH));
    pool.run_until_stalled();
    drop(first);
    pool.run_until_stalled();
    clock.advance(Duration::from_secs(30));
    pool.run_until_stalled();
    assert!(!watch.is_cancelled(), "still warm after 30 s");
    let again = f.informer(InformerOptions::<ConfigMap>::new(PATH));
    assert!(again.has_synced(), "the cache is there at once");
    clock.advance(Duration::from_secs(60));
    pool.run_until_stalled();
    assert!(!watch.is_cancelled(), "held again, so not stopped");
    drop(again);
    pool.run_until_stalled();
    clock.advance(Duration::from_secs(61));
    pool.run_until_stalled();
    assert!(
        watch.is_cancelled(),
        "stopped a minute after the last view left"
    );
    assert_eq!(f.len(), 0);
    server.verify();
}

// The minute counts from the last view leaving: a view that comes back
// within it and leaves again gets a whole minute, not what was left of the
// first (the first departure's timer must not stop it).
#[test]
fn a_linger_counts_from_the_last_view_leaving() {
    let server = FakeApiServer::new();
    let watch = expect_list_and_watch(&server, "10", vec![cm("a", "5")]);
    let mut pool = LocalPool::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let f = factory(&server, &pool, &clock);
    f.set_linger(|_| Duration::from_secs(60));
    f.start();
    let step = |pool: &mut LocalPool, secs: u64| {
        clock.advance(Duration::from_secs(secs));
        pool.run_until_stalled();
    };
    drop(f.informer(InformerOptions::<ConfigMap>::new(PATH)));
    step(&mut pool, 30);
    drop(f.informer(InformerOptions::<ConfigMap>::new(PATH)));
    step(&mut pool, 59);
    assert!(
        !watch.is_cancelled(),
        "stopped 59 s after the last view left, by the first one's timer"
    );
    step(&mut pool, 2);
    assert!(watch.is_cancelled(), "a minute after the last view left");
    assert_eq!(f.len(), 0);
    server.verify();
}

// Secret redaction is the informer's, not the view's: an informer of core
// Secrets' metadata made with no transform at all (a view that forgot to ask)
// still never caches an annotation's value (`kubectl apply`'s and kapp's
// copies of the Secret among them),
// and one that asks for whole Secrets never sends the request (the Secret
// guard), so no data can reach its cache either.
#[test]
fn every_informer_of_core_secrets_is_redacted_whoever_asks() {
    use kubeglass_client::cache::ReflectorConfig;
    let path = "/api/v1/namespaces/ns/secrets";
    let server = FakeApiServer::new();
    let last_applied = "kubectl.kubernetes.io/last-applied-configuration";
    server
        .expect_get(path)
        .header("accept", "as=PartialObjectMetadataList")
        .reply(Reply::json(
            200,
            json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList",
                   "metadata": {"resourceVersion": "10"},
                   "items": [{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata",
                              "metadata": {"name": "db", "namespace": "ns", "resourceVersion": "5",
                                           "annotations": {
                                               last_applied: "{\"data\":{\"password\":\"aHVudGVyMg==\"}}",
                                               "kapp.k14s.io/original": "{\"data\":{\"password\":\"aHVudGVyMg==\"}}",
                                               "team": "shop"}}}]}),
        ));
    let (reply, _watch) = Reply::stream();
    server.expect_get(path).query("watch", "true").reply(reply);
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let mut options = InformerOptions::<
        kubeglass_client::kube_core::PartialObjectMeta<k8s_openapi::api::core::v1::Secret>,
    >::new(path);
    options.reflector = ReflectorConfig::new(path).metadata_only();
    options.transform = None;
    let informer = SharedInformer::new(
        RestClient::new(Rc::new(server.clone())),
        Rc::new(clock.clone()),
        options,
    );
    let mut pool = LocalPool::new();
    let i = informer.clone();
    pool.spawner()
        .spawn_local(async move { i.run().await })
        .expect("spawn");
    pool.run_until_stalled();
    let cached = informer.indexer().borrow().list();
    assert_eq!(cached.len(), 1);
    let annotations = cached[0].metadata.annotations.clone().unwrap_or_default();
    let hidden = kubeglass_client::rest::secrets::HIDDEN_VALUE;
    assert_eq!(
        annotations.get(last_applied).map(String::as_str),
        Some(hidden),
        "the Secret's copy in its annotation was cached: {annotations:?}"
    );
    assert_eq!(
        annotations.get("kapp.k14s.io/original").map(String::as_str),
        Some(hidden)
    );
    assert_eq!(annotations.get("team").map(String::as_str), Some(hidden));
    server.verify();

    // Whole Secrets: refused before any request, so the server sees none.
    let refusing = FakeApiServer::new();
    let whole = SharedInformer::new(
        RestClient::new(Rc::new(refusing.clone())),
        Rc::new(clock.clone()),
        InformerOptions::<k8s_openapi::api::core::v1::Secret>::new(path),
    );
    let w = whole.clone();
    pool.spawner()
        .spawn_local(async move { w.run().await })
        .expect("spawn");
    pool.run_until_stalled();
    assert!(refusing.log().is_empty(), "{:?}", refusing.log());
    assert!(whole.indexer().borrow().is_empty());
    let error = whole.snapshot().reflector.last_error.unwrap_or_default();
    assert!(error.contains("refused to fetch Secret data"), "{error}");
}

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
