//! The polls against the scripted fake API server and the fake clock:
//! sharing, stopping, intervals, states, history through polls, subscriptions,
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
use kubeglass_client::testing::{FakeApiServer, FakeClock, Reply};
use kubeglass_client::transport::TransportError;

const GROUP: &str = "/apis/metrics.k8s.io";
const SHOP: &str = "/apis/metrics.k8s.io/v1beta1/namespaces/demo-shop/pods";
const NODES: &str = "/apis/metrics.k8s.io/v1beta1/nodes";
const START: u64 = 1_700_000_000;

struct Rig {
    server: FakeApiServer,
    clock: FakeClock,
    pool: LocalPool,
    polls: MetricsPolls,
}

fn rig() -> Rig {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(START));
    let pool = LocalPool::new();
    let spawner = pool.spawner();
    let spawn: Spawner = Rc::new(move |f| spawner.spawn_local(f).expect("spawn"));
    let client = RestClient::new(Rc::new(server.clone()));
    let polls = MetricsPolls::new(client, Rc::new(clock.clone()), spawn);
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
fn metrics_targets_name_their_paths_and_say_what_they_are() {
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

#[test]
fn metrics_one_get_per_target_per_period_however_many_handles() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-1", "t1", "400m", "320Mi")]));
    let a = r.polls.poll(shop());
    let b = r.polls.poll(shop());
    let c = a.clone();
    assert_eq!(a.state(), PollState::Waiting);
    assert!(a.latest().is_empty());
    r.pool.run_until_stalled();
    assert_eq!(r.gets(), 1, "the first GET goes at once, once");
    assert_eq!(r.discoveries(), 1, "after the group's discovery, once");
    assert_eq!(a.version(), Some(Version::V1beta1));
    assert_eq!(
        b.state(),
        PollState::Fresh {
            at: now(0),
            items: 1
        }
    );
    assert!(Rc::ptr_eq(&a.latest(), &b.latest()));
    assert_eq!(c.latest()[0].usage.cpu_millis, 400.0);
    // What the answer cost: its bytes, as sent, and its decode on the clock
    // (which the fake does not move while decoding).
    let sent = serde_json::to_vec(
        &json!({"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {}, "items": [pod("web-1", "t1", "400m", "320Mi")]}),
    )
    .expect("json");
    assert_eq!(
        r.polls.snapshots()[0].last_read,
        Some(crate::metrics::Read {
            bytes: sent.len(),
            decode_ms: 0.0
        })
    );
    assert_eq!(r.polls.snapshots()[0].version, Some(Version::V1beta1));
    assert_eq!(
        r.polls.snapshots()[0].holders,
        2,
        "a clone is the same hold"
    );

    r.step(14);
    assert_eq!(r.gets(), 1);
    r.expect(SHOP, pods(vec![pod("web-1", "t2", "500m", "320Mi")]));
    r.step(1);
    assert_eq!(r.gets(), 2);
    assert_eq!(a.history("demo-shop/web-1").len(), 2);

    assert_eq!(r.discoveries(), 1, "a version known is not asked again");
    r.expect_group(&["v1beta1"]);
    r.expect(
        NODES,
        Reply::json(200, json!({"kind": "NodeMetricsList", "items": []})),
    );
    let nodes = r.polls.poll(Target::Nodes);
    r.pool.run_until_stalled();
    assert_eq!(r.gets(), 3, "another target is another poll");
    assert_eq!(
        nodes.state(),
        PollState::Fresh {
            at: now(15),
            items: 0
        }
    );
    let targets: Vec<Target> = r.polls.snapshots().into_iter().map(|s| s.target).collect();
    assert_eq!(targets, [shop(), Target::Nodes]);
}

#[test]
fn metrics_polls_stop_with_the_last_handle_and_restart_fresh() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-1", "t1", "400m", "320Mi")]));
    let a = r.polls.poll(shop());
    let b = r.polls.poll(shop());
    r.pool.run_until_stalled();
    drop(a);
    r.expect(SHOP, pods(vec![pod("web-1", "t2", "400m", "320Mi")]));
    r.step(15);
    assert_eq!(r.gets(), 2, "one holder left: still polling");
    let kept = b.latest();
    drop(b);
    r.pool.run_until_stalled();
    // Unheld, it lingers a minute: a view come back within it finds it.
    assert_eq!(r.polls.snapshots()[0].holders, 0);
    let back = r.polls.poll(shop());
    assert_eq!(back.latest().len(), 1, "the same poll, with its sample");
    drop(back);
    r.pool.run_until_stalled();
    r.expect(SHOP, pods(vec![pod("web-1", "t3", "400m", "320Mi")]));
    r.step(30);
    let lingering = r.polls.snapshots();
    assert_eq!(
        (lingering.len(), lingering[0].polls),
        (1, 3),
        "half a minute unheld: still polling"
    );
    r.step(30);
    assert!(r.polls.snapshots().is_empty(), "a minute unheld: stopped");
    r.pool.run_until_stalled();
    assert_eq!(r.clock.pending_timers(), 0, "the loop is gone");
    let polled = r.gets();
    r.step(600);
    assert_eq!(r.gets(), polled, "nobody holds it: no GET");
    assert_eq!(kept.len(), 1, "what a view kept stays readable");

    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-2", "t9", "1m", "1Mi")]));
    let again = r.polls.poll(shop());
    assert_eq!(again.state(), PollState::Waiting, "a fresh start");
    assert_eq!(again.version(), None, "the version is asked afresh too");
    assert!(again.latest().is_empty());
    r.pool.run_until_stalled();
    assert_eq!(r.gets(), polled + 1, "its first GET at once");
    assert!(again.history("demo-shop/web-1").is_empty());
    assert_eq!(again.history("demo-shop/web-2").len(), 1);
    assert_eq!(r.polls.snapshots()[0].polls, 1);
}

#[test]
fn metrics_not_served_is_said_and_asked_again_only_each_minute() {
    let mut r = rig();
    // No metrics-server: the group itself is not found.
    r.expect(
        GROUP,
        Reply::status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ),
    );
    let p = r.polls.poll(shop());
    r.pool.run_until_stalled();
    let PollState::NotServed(words) = p.state() else {
        panic!("{:?}", p.state());
    };
    assert!(words.contains("install metrics-server"), "{words}");
    assert!(words.contains("404"), "{words}");
    r.step(59);
    assert_eq!(r.discoveries(), 1, "not every 15 s");
    r.expect_group(&["v1beta1"]);
    r.expect(
        SHOP,
        Reply::status(503, "ServiceUnavailable", "service unavailable"),
    );
    r.step(1);
    assert_eq!((r.discoveries(), r.gets()), (2, 1));
    let PollState::NotServed(words) = p.state() else {
        panic!("{:?}", p.state());
    };
    assert!(
        words.contains("503") && words.contains("metrics-server"),
        "{words}"
    );
    assert_eq!(p.version(), None, "not served: asked again next time");
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-1", "t1", "1", "1Gi")]));
    r.step(60);
    assert_eq!(
        p.state(),
        PollState::Fresh {
            at: now(120),
            items: 1
        }
    );
    r.expect(SHOP, pods(vec![]));
    r.step(15);
    assert_eq!(r.gets(), 3, "served again: back to every 15 s");
    assert_eq!(r.discoveries(), 3);
}

#[test]
fn metrics_v1_is_read_where_the_server_serves_it() {
    let mut r = rig();
    r.expect_group(&["v1", "v1beta1"]);
    r.expect(
        "/apis/metrics.k8s.io/v1/nodes",
        Reply::json(
            200,
            json!({"kind": "NodeMetricsList", "apiVersion": "metrics.k8s.io/v1", "items": [
                {"metadata": {"name": "node-0"}, "usage": {"cpu": "12345678n", "memory": "1Gi"}}]}),
        ),
    );
    let p = r.polls.poll(Target::Nodes);
    r.pool.run_until_stalled();
    assert_eq!(p.version(), Some(Version::V1));
    assert_eq!(p.latest()[0].quantities.cpu.milli_value(), 13);
    r.expect(
        "/apis/metrics.k8s.io/v1/nodes",
        Reply::json(200, json!({"kind": "NodeMetricsList", "items": []})),
    );
    r.step(15);
    assert_eq!((r.discoveries(), r.gets()), (1, 2));
}

#[test]
fn metrics_a_group_without_a_version_kubectl_reads_is_not_served() {
    let mut r = rig();
    r.expect_group(&["v2alpha1"]);
    let p = r.polls.poll(shop());
    r.pool.run_until_stalled();
    let PollState::NotServed(words) = p.state() else {
        panic!("{:?}", p.state());
    };
    assert!(
        words.contains("only as v2alpha1") && words.contains("v1 or v1beta1"),
        "{words}"
    );
    r.step(59);
    assert_eq!(r.discoveries(), 1);
    r.expect_group(&["v2alpha1", "v1beta1"]);
    r.expect(SHOP, pods(vec![]));
    r.step(1);
    assert_eq!(p.version(), Some(Version::V1beta1));
    assert_eq!(r.gets(), 1);
}

#[test]
fn metrics_failures_are_said_and_the_last_good_sample_is_kept() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![pod("web-1", "t1", "400m", "320Mi")]));
    let p = r.polls.poll(shop());
    r.pool.run_until_stalled();
    let good = p.latest();
    let message = r#"pods.metrics.k8s.io is forbidden: User "viewer" cannot list"#;
    r.expect(SHOP, Reply::status(403, "Forbidden", message));
    r.step(15);
    assert_eq!(p.state(), PollState::Forbidden(message.into()));
    assert!(Rc::ptr_eq(&p.latest(), &good), "kept through a failure");
    r.step(59);
    assert_eq!(r.gets(), 2, "forbidden: asked each minute");
    let failures: [(Reply, &str); 3] = [
        (
            Reply::status(500, "InternalError", "etcd is sad"),
            "etcd is sad",
        ),
        (
            Reply::Fail(TransportError::Connect("refused".into())),
            "no answer",
        ),
        (
            Reply::json(200, json!({"kind": "Status"})),
            "not a PodMetricsList",
        ),
    ];
    for (i, (reply, words)) in failures.into_iter().enumerate() {
        r.expect(SHOP, reply);
        r.step(if i == 0 { 1 } else { 15 });
        let PollState::Failed(said) = p.state() else {
            panic!("{:?}", p.state());
        };
        assert!(said.contains(words), "{said}");
        assert_eq!(p.latest(), good);
    }
    let s = &r.polls.snapshots()[0];
    assert_eq!((s.polls, s.failures, s.objects, s.points), (5, 4, 1, 1));
    assert_eq!(r.discoveries(), 1, "only not served asks the version again");
    assert_eq!(s.last_took_ms, Some(0.0));
}

#[test]
fn metrics_history_grows_per_object_and_a_missing_object_gets_no_point() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(
        SHOP,
        pods(vec![
            pod("web-1", "t1", "400m", "320Mi"),
            pod("cart-1", "t1", "5m", "24Mi"),
        ]),
    );
    let p = r.polls.poll(shop());
    r.pool.run_until_stalled();
    // metrics-server left cart-1 out (zero use, or not scraped yet).
    r.expect(SHOP, pods(vec![pod("web-1", "t2", "410m", "320Mi")]));
    r.step(15);
    r.expect(
        SHOP,
        pods(vec![
            pod("web-1", "t3", "420m", "320Mi"),
            pod("cart-1", "t3", "6m", "24Mi"),
        ]),
    );
    r.step(15);
    let web: Vec<(f64, f64)> = p
        .history("demo-shop/web-1")
        .iter()
        .map(|pt| (pt.at, pt.usage.cpu_millis))
        .collect();
    assert_eq!(web, [(now(0), 400.0), (now(15), 410.0), (now(30), 420.0)]);
    let cart: Vec<f64> = p
        .history("demo-shop/cart-1")
        .iter()
        .map(|pt| pt.at)
        .collect();
    assert_eq!(cart, [now(0), now(30)]);
    assert_eq!(r.polls.snapshots()[0].points, 5);
    assert!(p.history("demo-shop/nobody").is_empty());
}

#[test]
fn metrics_history_keeps_at_most_an_hour_of_points() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    let p = r.polls.poll(Target::Nodes);
    for i in 0..HISTORY_POINTS + 10 {
        let item = json!({"metadata": {"name": "node-0"}, "timestamp": i.to_string(),
                          "usage": {"cpu": format!("{i}m"), "memory": "1Gi"}});
        r.expect(
            NODES,
            Reply::json(200, json!({"kind": "NodeMetricsList", "items": [item]})),
        );
        r.step(if i == 0 { 0 } else { 15 });
    }
    let h = p.history("node-0");
    assert_eq!(h.len(), HISTORY_POINTS);
    assert_eq!(h[0].usage.cpu_millis, 10.0);
    assert_eq!(r.gets(), HISTORY_POINTS + 10);
}

#[test]
fn metrics_subscribers_hear_every_poll_until_they_let_go() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![]));
    let p = r.polls.poll(shop());
    let heard = Rc::new(Cell::new(0));
    let h = heard.clone();
    let sub = p.on_poll(move || h.set(h.get() + 1));
    r.pool.run_until_stalled();
    assert_eq!(heard.get(), 1);
    r.expect(SHOP, Reply::status(500, "InternalError", "no"));
    r.step(15);
    assert_eq!(heard.get(), 2, "a failed poll is heard too");
    drop(sub);
    r.expect(SHOP, pods(vec![]));
    r.step(15);
    assert_eq!(heard.get(), 2);
}

#[test]
fn metrics_an_invalid_namespace_sends_nothing() {
    let mut r = rig();
    let p = r.polls.poll(Target::Pods(Some("../secrets".into())));
    r.step(600);
    assert_eq!(r.gets(), 0);
    let PollState::Failed(words) = p.state() else {
        panic!("{:?}", p.state());
    };
    assert!(words.contains("namespace"), "{words}");
}

#[test]
fn metrics_polls_stop_when_their_owner_is_dropped() {
    let mut r = rig();
    r.expect_group(&["v1beta1"]);
    r.expect(SHOP, pods(vec![]));
    let p = r.polls.poll(shop());
    r.pool.run_until_stalled();
    let Rig {
        server,
        clock,
        mut pool,
        polls,
    } = r;
    drop(polls);
    clock.advance(Duration::from_secs(600));
    pool.run_until_stalled();
    assert_eq!(server.log().len(), 2, "the group's discovery and one poll");
    assert_eq!(
        p.state(),
        PollState::Fresh {
            at: now(0),
            items: 0
        }
    );
}

#[test]
fn metrics_the_version_is_kubectls_choice_the_first_it_reads_in_the_servers_order() {
    let first = |listed: &[&str]| Version::first_served(listed.iter().copied());
    assert_eq!(first(&["v1", "v1beta1"]), Some(Version::V1), "v1 preferred");
    assert_eq!(first(&["v1beta1"]), Some(Version::V1beta1));
    assert_eq!(first(&["v2alpha1", "v1beta1"]), Some(Version::V1beta1));
    // kubectl walks the server's list, not its own: a server that prefers
    // v1beta1 is read at v1beta1.
    assert_eq!(first(&["v1beta1", "v1"]), Some(Version::V1beta1));
    assert_eq!(first(&["v2"]), None);
    assert_eq!(first(&[]), None);
}
