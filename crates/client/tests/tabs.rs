//! Watches shared between tabs (`tabs::SharedWatches`): three reflectors,
//! each behind its own tab's transport, share one watch at the (fake)
//! server over a fake BroadcastChannel and Web Locks (`MemoryBus`), and
//! when the tab holding it goes another takes it over from its version
//! with no list.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::future::AbortHandle;
use futures::task::LocalSpawnExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::backoff::Backoff;
use kubeglass_client::cache::{Reflector, ReflectorConfig, Store};
use kubeglass_client::clock::Clock;
use kubeglass_client::rest::RestClient;
use kubeglass_client::tabs::{Role, SharedWatches};
use kubeglass_testing::{FakeApiServer, FakeClock, MemoryBus, Reply, StreamHandle};
use serde_json::{Value, json};

const PATH: &str = "/api/v1/namespaces/ns/configmaps";

fn cm(name: &str, rv: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv}})
}

fn list(rv: &str, items: Vec<Value>) -> Reply {
    Reply::json(
        200,
        json!({"apiVersion": "v1", "kind": "ConfigMapList",
               "metadata": {"resourceVersion": rv}, "items": items}),
    )
}

struct Tab {
    store: Rc<RefCell<Store<ConfigMap>>>,
    watches: Rc<SharedWatches<FakeApiServer>>,
    stop: AbortHandle,
}

impl Tab {
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.store.borrow().keys().map(String::from).collect();
        v.sort();
        v
    }

    fn role(&self) -> Role {
        self.watches.shares()[0].role.clone()
    }
}

fn open_tab(
    pool: &LocalPool,
    server: &FakeApiServer,
    bus: &MemoryBus,
    clock: &FakeClock,
    name: &str,
) -> Tab {
    let clock: Rc<dyn Clock> = Rc::new(clock.clone());
    let watches = Rc::new(SharedWatches::new(
        Rc::new(server.clone()),
        Rc::new(bus.clone()),
        clock.clone(),
        name.into(),
    ));
    let store = Rc::new(RefCell::new(Store::<ConfigMap>::new()));
    let mut backoff = Backoff::reflector(1);
    backoff.jitter = 0.0;
    let reflector = Reflector::new(
        RestClient::new(watches.clone()),
        clock,
        ReflectorConfig::new(PATH),
        store.clone(),
    )
    .with_backoff(backoff);
    let (run, stop) = futures::future::abortable(reflector.run());
    pool.spawner()
        .spawn_local(async move {
            let _ = run.await;
        })
        .expect("spawn");
    Tab {
        store,
        watches,
        stop,
    }
}

/// A fake server, a bus and a clock the tabs share, and their executor.
fn rig() -> (FakeApiServer, MemoryBus, FakeClock, LocalPool) {
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    (
        FakeApiServer::new(),
        MemoryBus::new(),
        clock,
        LocalPool::new(),
    )
}

/// The server expects a tab's first list, and answers `items` at `rv`.
fn expect_list(server: &FakeApiServer, rv: &str, items: Vec<Value>) {
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .reply(list(rv, items));
}

/// The server expects a watch from `rv`; its events are the handle's.
fn expect_watch(server: &FakeApiServer, rv: &str) -> StreamHandle {
    let (reply, watch) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", rv)
        .reply(reply);
    watch
}

#[test]
fn three_tabs_one_watch_and_the_next_tab_takes_over_without_a_list() {
    let (server, bus, clock, mut pool) = rig();

    // Tab a lists and holds the watch.
    expect_list(&server, "10", vec![cm("x", "5")]);
    let watch_a = expect_watch(&server, "10");
    let a = open_tab(&pool, &server, &bus, &clock, "a");
    pool.run_until_stalled();
    watch_a.event("ADDED", cm("y", "11"));
    pool.run_until_stalled();
    assert_eq!(a.names(), ["ns/x", "ns/y"]);
    assert!(matches!(a.role(), Role::Holding { .. }));

    // Tabs b and c list (as any tab opening a table does) and follow: the
    // server is asked for no other watch.
    expect_list(&server, "11", vec![cm("x", "5"), cm("y", "11")]);
    let b = open_tab(&pool, &server, &bus, &clock, "b");
    pool.run_until_stalled();
    // An event the server sends while c's list is on its way (c's list is
    // older than the holder's last event: the holder catches it up).
    watch_a.event("MODIFIED", cm("x", "12"));
    expect_list(&server, "11", vec![cm("x", "5"), cm("y", "11")]);
    let c = open_tab(&pool, &server, &bus, &clock, "c");
    pool.run_until_stalled();
    assert_eq!(b.role(), Role::Following);
    assert_eq!(c.role(), Role::Following);
    assert_eq!(server.remaining(), 0);

    watch_a.event("ADDED", cm("z", "13"));
    watch_a.event("DELETED", cm("y", "14"));
    pool.run_until_stalled();
    for t in [&a, &b, &c] {
        assert_eq!(t.names(), ["ns/x", "ns/z"]);
        assert_eq!(
            t.store
                .borrow()
                .get("ns/x")
                .expect("x is cached")
                .metadata
                .resource_version
                .as_deref(),
            Some("12")
        );
    }

    // Tab a closes: the first tab waiting takes the watch over from its
    // version (14), with no list; the other follows the new holder.
    let watch_b = expect_watch(&server, "14");
    a.stop.abort();
    drop(a);
    pool.run_until_stalled();
    assert!(watch_a.is_cancelled());
    assert!(matches!(
        b.role(),
        Role::Holding {
            took_over: true,
            ..
        }
    ));
    assert_eq!(c.role(), Role::Following);
    watch_b.event("ADDED", cm("w", "15"));
    pool.run_until_stalled();
    for t in [&b, &c] {
        assert_eq!(t.names(), ["ns/w", "ns/x", "ns/z"]);
    }
    server.verify();
    b.stop.abort();
    c.stop.abort();
}

#[test]
fn a_follower_whose_version_the_holder_no_longer_has_watches_alone() {
    let (server, bus, clock, mut pool) = rig();
    expect_list(&server, "100", vec![]);
    let _watch_a = expect_watch(&server, "100");
    let _a = open_tab(&pool, &server, &bus, &clock, "a");
    pool.run_until_stalled();
    // b's list is older than where a's watch began: a cannot catch it up,
    // so b watches from its own version rather than list again.
    expect_list(&server, "90", vec![]);
    let _watch_b = expect_watch(&server, "90");
    let b = open_tab(&pool, &server, &bus, &clock, "b");
    pool.run_until_stalled();
    assert!(matches!(b.role(), Role::Alone(_)), "{:?}", b.role());
    server.verify();
}

#[test]
fn with_no_answer_a_follower_watches_alone_after_the_wait() {
    let (server, bus, clock, mut pool) = rig();
    expect_list(&server, "10", vec![]);
    let _w = expect_watch(&server, "10");
    let a = open_tab(&pool, &server, &bus, &clock, "a");
    pool.run_until_stalled();
    assert!(matches!(a.role(), Role::Holding { .. }));
    // From now on nothing posted arrives: a holds the lock but never
    // answers (a tab stuck in a long task).
    bus.silence();
    expect_list(&server, "10", vec![]);
    let b = open_tab(&pool, &server, &bus, &clock, "b");
    pool.run_until_stalled();
    assert_eq!(
        b.role(),
        Role::Alone("opening"),
        "b waits for an answer first"
    );
    let _w2 = expect_watch(&server, "10");
    clock.advance(kubeglass_client::tabs::REPLY_WAIT);
    pool.run_until_stalled();
    assert!(matches!(b.role(), Role::Alone(_)), "{:?}", b.role());
    server.verify();
}

#[test]
fn a_holders_ring_goes_on_when_its_watch_is_opened_again_from_where_it_got_to() {
    let (server, bus, clock, mut pool) = rig();
    expect_list(&server, "10", vec![]);
    let watch = expect_watch(&server, "10");
    let a = open_tab(&pool, &server, &bus, &clock, "a");
    pool.run_until_stalled();
    watch.event("ADDED", cm("x", "11"));
    watch.event("ADDED", cm("y", "12"));
    // The server ends the watch (its timeout); a watches on from 12.
    let again = expect_watch(&server, "12");
    watch.close();
    pool.run_until_stalled();
    assert!(matches!(a.role(), Role::Holding { .. }));
    again.event("ADDED", cm("z", "13"));
    pool.run_until_stalled();
    // b's list is from before the second watch began: the ring, kept
    // across it, still reaches back to it.
    expect_list(&server, "11", vec![cm("x", "11")]);
    let b = open_tab(&pool, &server, &bus, &clock, "b");
    pool.run_until_stalled();
    assert_eq!(b.role(), Role::Following);
    assert_eq!(b.names(), ["ns/x", "ns/y", "ns/z"]);
    server.verify();
}
