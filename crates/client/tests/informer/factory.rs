//! The factory: shared informers, transforms as part of the key, Table and metadata informers, lingering.

use super::*;

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
