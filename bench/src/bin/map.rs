//! The relationship map natively: reading pods, joining the namespace's
//! graph, a Deployment's neighbourhood, the first layout and the update
//! after one pod changes, at 1,000, 10,000 and 50,000 pods. Prints the
//! median of 5 runs of each; asserts nothing about time.
//!
//! The namespace: Deployments of 50 pods each (a ReplicaSet each, a
//! Service selecting each), pods spread over 100 nodes, each pod naming a
//! ConfigMap and a Secret, and a NetworkPolicy over every pod.

use std::time::Instant;

use kubeglass_kubectl::map::graph::{build, near};
use kubeglass_kubectl::map::layout::{Layout, place};
use kubeglass_kubectl::map::{Item, Kind};
use serde_json::{Value, json};

fn item(kind: Kind, v: Value) -> Item {
    Item::read(kind, &serde_json::from_value(v).expect("bench data"))
}

fn pod(i: usize, set: usize) -> Value {
    json!({
        "metadata": {"name": format!("web-{set}-{i:06}"), "namespace": "bench", "uid": format!("pod-{i}"),
                     "labels": {"app": format!("web-{set}"), "pod-template-hash": "7d9"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("web-{set}-7d9"),
                                          "uid": format!("rs-{set}"), "controller": true}]},
        "spec": {"nodeName": format!("node-{}", i % 100), "serviceAccountName": "web",
                 "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": format!("web-{set}")}}],
                                 "env": [{"name": "T", "valueFrom": {"secretKeyRef": {"name": "token", "key": "t"}}}]}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    })
}

fn namespace(pods: usize) -> (Vec<Value>, Vec<Item>) {
    let sets = pods.div_ceil(50);
    let mut items = vec![item(
        Kind::NetworkPolicy,
        json!({"metadata": {"name": "all", "namespace": "bench", "uid": "np"}, "spec": {"podSelector": {}}}),
    )];
    for s in 0..sets {
        items.push(item(Kind::Deployment, json!({"metadata": {"name": format!("web-{s}"), "namespace": "bench", "uid": format!("d-{s}")}})));
        items.push(item(Kind::ReplicaSet, json!({"metadata": {"name": format!("web-{s}-7d9"), "namespace": "bench", "uid": format!("rs-{s}"),
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": format!("web-{s}"), "uid": format!("d-{s}"), "controller": true}]}})));
        items.push(item(Kind::Service, json!({"metadata": {"name": format!("web-{s}"), "namespace": "bench", "uid": format!("svc-{s}")},
            "spec": {"selector": {"app": format!("web-{s}")}}})));
    }
    let raw: Vec<Value> = (0..pods).map(|i| pod(i, i / 50)).collect();
    (raw, items)
}

fn median(mut runs: Vec<f64>) -> f64 {
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

fn time<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut out = None;
    let runs = (0..5)
        .map(|_| {
            let t = Instant::now();
            out = Some(f());
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    (median(runs), out.expect("ran"))
}

fn main() {
    println!(
        "| pods | read the pods | join the namespace | nodes, edges | first layout | one pod changes: join + layout | a Deployment's neighbourhood (depth 3) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for pods in [1_000, 10_000, 50_000] {
        let (raw, mut items) = namespace(pods);
        let (read_ms, pods_read) = time(|| {
            raw.iter()
                .map(|v| item(Kind::Pod, v.clone()))
                .collect::<Vec<_>>()
        });
        items.extend(pods_read);
        let (join_ms, g) = time(|| build(&items, &[], None));
        let (layout_ms, layout) = time(|| place(&Layout::default(), &g));
        // One pod goes Pending: the page joins again and places with the layout it has.
        let changed = items.len() - 1;
        items[changed].health = kubeglass_kubectl::map::Health::Waiting;
        let (update_ms, _) = time(|| place(&layout, &build(&items, &[], None)));
        let (near_ms, n) = time(|| near(&g, "Deployment/bench/web-0", 3).expect("in the map"));
        println!(
            "| {pods} | {read_ms:.1} ms | {join_ms:.1} ms | {}, {} | {layout_ms:.1} ms | {update_ms:.1} ms | {near_ms:.1} ms ({} nodes) |",
            g.nodes.len(),
            g.edges.len(),
            n.nodes.len()
        );
    }
}
