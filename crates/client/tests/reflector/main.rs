//! Reflector behaviour against the scripted fake API server and a fake clock,
//! ported from client-go's reflector tests (named in the comments).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::backoff::Backoff;
use kubeglass_client::cache::{Reflector, ReflectorConfig, ReflectorState, ReflectorStatus, Store};
use kubeglass_client::clock::PassiveClock;
use kubeglass_client::rest::RestClient;
use kubeglass_client::transport::TransportError;
use kubeglass_testing::{FakeApiServer, FakeClock, Reply};
use serde_json::{Value, json};

mod failures;
mod list_and_watch;
mod steps;
mod undecodable;

const PATH: &str = "/api/v1/namespaces/ns/configmaps";

fn cm(name: &str, rv: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv}})
}

fn list(rv: &str, items: Vec<Value>, cont: Option<&str>) -> Reply {
    let mut meta = json!({"resourceVersion": rv});
    if let Some(c) = cont {
        meta["continue"] = json!(c);
    }
    Reply::json(
        200,
        json!({"apiVersion": "v1", "kind": "ConfigMapList", "metadata": meta, "items": items}),
    )
}

struct Harness {
    pool: LocalPool,
    clock: FakeClock,
    server: FakeApiServer,
    store: Rc<RefCell<Store<ConfigMap>>>,
    status: Rc<RefCell<ReflectorStatus>>,
}

impl Harness {
    /// Starts a reflector (no jitter in its backoff) on a fresh fake server.
    fn start(server: FakeApiServer) -> Self {
        let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
        let store = Rc::new(RefCell::new(Store::<ConfigMap>::new()));
        let mut backoff = Backoff::reflector(1);
        backoff.jitter = 0.0;
        let reflector = Reflector::new(
            RestClient::new(Rc::new(server.clone())),
            Rc::new(clock.clone()),
            ReflectorConfig::new(PATH),
            store.clone(),
        )
        .with_backoff(backoff);
        let status = reflector.status();
        let pool = LocalPool::new();
        pool.spawner().spawn_local(reflector.run()).expect("spawn");
        let mut h = Self {
            pool,
            clock,
            server,
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
        let mut v: Vec<String> = self.store.borrow().keys().map(String::from).collect();
        v.sort();
        v
    }

    fn state(&self) -> ReflectorState {
        self.status.borrow().state.clone()
    }
}
