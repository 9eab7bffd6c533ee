//! Transforms and listers: managed fields dropped, paged lists trimmed as they arrive, the watch error hook.

use super::*;

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
