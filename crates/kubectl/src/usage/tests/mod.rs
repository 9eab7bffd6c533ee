//! The polls against the scripted fake API server and the fake clock:
//! sharing, stopping, intervals, states, the ring through polls, subscriptions,
//! and the version read (kubectl's choice from the group's discovery).

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::{Value, json};

use super::*;
use kubeglass_client::cache::factory::Spawner;
use kubeglass_client::rest::RestClient;
use kubeglass_client::transport::TransportError;
use kubeglass_testing::{FakeApiServer, FakeClock, Reply};

const GROUP: &str = "/apis/metrics.k8s.io";
const SHOP: &str = "/apis/metrics.k8s.io/v1beta1/namespaces/demo-shop/pods";
const NODES: &str = "/apis/metrics.k8s.io/v1beta1/nodes";
const START: u64 = 1_700_000_000;

mod history;
mod ring;
mod sharing;
mod states;

struct Rig {
    server: FakeApiServer,
    clock: FakeClock,
    pool: LocalPool,
    polls: UsagePolls,
}

fn rig() -> Rig {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(START));
    let pool = LocalPool::new();
    let spawner = pool.spawner();
    let spawn: Spawner = Rc::new(move |f| spawner.spawn_local(f).expect("spawn"));
    let client = RestClient::new(Rc::new(server.clone()));
    let polls = UsagePolls::new(client, Rc::new(clock.clone()), spawn);
    Rig {
        server,
        clock,
        pool,
        polls,
    }
}

impl Rig {
    /// Moves the clock `secs` on and runs everything that can run.
    fn step(&mut self, secs: u64) {
        self.clock.advance(Duration::from_secs(secs));
        self.pool.run_until_stalled();
    }

    /// GETs of metrics (the group's discovery not counted).
    fn gets(&self) -> usize {
        self.server.assert_no_failures();
        let log = self.server.log();
        log.iter().filter(|l| *l != &format!("GET {GROUP}")).count()
    }

    /// GETs of the group's discovery.
    fn discoveries(&self) -> usize {
        self.server.assert_no_failures();
        let log = self.server.log();
        log.iter().filter(|l| *l == &format!("GET {GROUP}")).count()
    }

    fn expect(&self, path: &str, reply: Reply) {
        self.server.expect_get(path).reply(reply);
    }

    /// The group's discovery, listing `versions` in this order.
    fn expect_group(&self, versions: &[&str]) {
        self.expect(GROUP, group(versions));
    }
}

/// An `APIGroup` of metrics.k8s.io listing `versions`, the first preferred.
fn group(versions: &[&str]) -> Reply {
    let listed: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("metrics.k8s.io/{v}"), "version": v}))
        .collect();
    Reply::json(
        200,
        json!({"kind": "APIGroup", "apiVersion": "v1", "name": "metrics.k8s.io",
               "versions": listed, "preferredVersion": listed.first()}),
    )
}

fn pod(name: &str, stamp: &str, cpu: &str, memory: &str) -> Value {
    json!({"metadata": {"name": name, "namespace": "demo-shop"},
           "timestamp": stamp, "window": "15.01s",
           "containers": [{"name": "app", "usage": {"cpu": cpu, "memory": memory}}]})
}

fn pods(items: Vec<Value>) -> Reply {
    Reply::json(
        200,
        json!({"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1",
               "metadata": {}, "items": items}),
    )
}

fn shop() -> Target {
    Target::Pods(Some("demo-shop".into()))
}

fn now(secs_after_start: u64) -> f64 {
    (START + secs_after_start) as f64
}

#[test]
fn usage_targets_name_their_paths_and_say_what_they_are() {
    let beta = Version::V1beta1;
    assert_eq!(shop().path(beta), SHOP);
    assert_eq!(
        Target::Pods(None).path(beta),
        "/apis/metrics.k8s.io/v1beta1/pods"
    );
    assert_eq!(Target::Nodes.path(beta), NODES);
    assert_eq!(
        Target::Nodes.path(Version::V1),
        "/apis/metrics.k8s.io/v1/nodes"
    );
    assert_eq!(shop().to_string(), "pods in demo-shop");
    assert_eq!(Target::Pods(None).to_string(), "pods in all namespaces");
    assert_eq!(Target::Nodes.to_string(), "nodes");
    for bad in ["../secrets", "a/b", "", "A", "x?watch=1"] {
        let t = Target::Pods(Some(bad.into()));
        assert_eq!(t.path(beta), "", "{bad:?}");
        assert!(t.try_path(Version::V1).is_err());
    }
}
