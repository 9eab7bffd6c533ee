//! Streaming lists (client-go's WatchListClient): the initial state arrives
//! as watch events ended by a bookmark annotated
//! `k8s.io/initial-events-end: "true"`. Cases follow client-go's watch-list
//! reflector tests.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::backoff::Backoff;
use kubeglass_client::cache::{Reflector, ReflectorConfig, ReflectorState, ReflectorStatus, Store};
use kubeglass_client::rest::RestClient;
use kubeglass_testing::{FakeApiServer, FakeClock, Reply, StreamHandle};
use serde_json::{Value, json};

mod failures;
mod initial_state;

const PATH: &str = "/api/v1/namespaces/ns/configmaps";

fn cm(name: &str, rv: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv}})
}

fn end_bookmark(rv: &str, value: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"resourceVersion": rv,
                        "annotations": {"k8s.io/initial-events-end": value}}})
}

/// The ERROR event of a watch whose version expired.
fn expired() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
           "reason": "Expired", "code": 410, "message": "too old resource version: 10 (40)"})
}

/// A plain LIST answer at `rv`.
fn cm_list(rv: &str, items: Vec<Value>) -> Reply {
    Reply::json(
        200,
        json!({"apiVersion": "v1", "kind": "ConfigMapList",
               "metadata": {"resourceVersion": rv}, "items": items}),
    )
}

/// Expects a streaming list from `rv` ("" = latest) and returns its feed.
fn expect_watch_list(server: &FakeApiServer, rv: &str) -> StreamHandle {
    let (reply, feed) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("sendInitialEvents", "true")
        .query("resourceVersionMatch", "NotOlderThan")
        .query("allowWatchBookmarks", "true")
        .query("resourceVersion", rv)
        .reply(reply);
    feed
}

fn expect_plain_watch(server: &FakeApiServer, rv: &str) -> StreamHandle {
    let (reply, feed) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .no_query("sendInitialEvents")
        .query("resourceVersion", rv)
        .reply(reply);
    feed
}

struct Harness {
    pool: LocalPool,
    clock: FakeClock,
    store: Rc<RefCell<Store<ConfigMap>>>,
    status: Rc<RefCell<ReflectorStatus>>,
}

impl Harness {
    fn start(server: &FakeApiServer) -> Self {
        let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
        let store = Rc::new(RefCell::new(Store::<ConfigMap>::new()));
        let mut backoff = Backoff::reflector(1);
        backoff.jitter = 0.0;
        let reflector = Reflector::new(
            RestClient::new(Rc::new(server.clone())),
            Rc::new(clock.clone()),
            ReflectorConfig::new(PATH).streaming(),
            store.clone(),
        )
        .with_backoff(backoff);
        let status = reflector.status();
        let pool = LocalPool::new();
        pool.spawner().spawn_local(reflector.run()).expect("spawn");
        let mut h = Self {
            pool,
            clock,
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
        let store = self.store.borrow();
        let mut v: Vec<String> = store
            .list()
            .iter()
            .map(|o| {
                format!(
                    "{}@{}",
                    o.metadata.name.as_deref().unwrap_or_default(),
                    o.metadata.resource_version.as_deref().unwrap_or_default()
                )
            })
            .collect();
        v.sort();
        v
    }

    fn last_rv(&self) -> Option<String> {
        self.status.borrow().last_resource_version.clone()
    }
}
