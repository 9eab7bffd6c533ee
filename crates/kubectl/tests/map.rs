//! The relationship map: each relation read from the objects' JSON, pods
//! that repeat folded into one node, a neighbourhood that stops at hubs,
//! a layout that keeps what stays, and the keys that move through it.

use kube_core::DynamicObject;
use kubeglass_kubectl::map::graph::{GROUP_OVER, Graph, Link, build, near};
use kubeglass_kubectl::map::layout::{Layout, Step, place, step};
use kubeglass_kubectl::map::{EventMark, Health, Item, Kind, event_mark};
use serde_json::{Value, json};

fn object(v: Value) -> DynamicObject {
    serde_json::from_value(v).expect("test data")
}

fn owner(kind: &str, api: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": api, "kind": kind, "name": name, "uid": uid, "controller": true})
}

fn pod(
    name: &str,
    ns: &str,
    owner_ref: Option<Value>,
    labels: Value,
    node: &str,
    phase: &str,
) -> Item {
    Item::read(
        Kind::Pod,
        &object(json!({
            "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}"), "labels": labels,
                         "ownerReferences": owner_ref.into_iter().collect::<Vec<_>>()},
            "spec": {"nodeName": node, "containers": [{"name": "web", "envFrom": [{"configMapRef": {"name": "feature-flags"}}],
                      "env": [{"name": "T", "valueFrom": {"secretKeyRef": {"name": "api-token", "key": "t"}}}]}],
                     "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]},
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": if phase == "Running" { "True" } else { "False" }}]}
        })),
    )
}

fn simple(kind: Kind, name: &str, ns: Option<&str>, owner_ref: Option<Value>, rest: Value) -> Item {
    // Services, HPAs and Deployments share names: the UID is the kind's and the name's.
    let uid = if matches!(kind, Kind::Deployment | Kind::ReplicaSet) {
        format!("uid-{name}")
    } else {
        format!("uid-{kind:?}-{name}")
    };
    let mut v = json!({"metadata": {"name": name, "uid": uid,
                                    "ownerReferences": owner_ref.into_iter().collect::<Vec<_>>()}});
    if let Some(ns) = ns {
        v["metadata"]["namespace"] = json!(ns);
    }
    if let (Some(o), Some(r)) = (v.as_object_mut(), rest.as_object()) {
        o.extend(r.clone());
    }
    Item::read(kind, &object(v))
}

/// The demo's frontend: a Deployment, its ReplicaSet and `pods` pods, a
/// Service selecting them, an Ingress in front, an HPA on it, a claim
/// bound to a volume of a class.
fn shop(pods: usize) -> Vec<Item> {
    let mut items = vec![
        simple(Kind::Deployment, "frontend", Some("shop"), None, json!({})),
        simple(
            Kind::ReplicaSet,
            "frontend-7d9",
            Some("shop"),
            Some(owner("Deployment", "apps/v1", "frontend", "uid-frontend")),
            json!({}),
        ),
        simple(
            Kind::Service,
            "frontend",
            Some("shop"),
            None,
            json!({"spec": {"selector": {"app": "frontend"}}}),
        ),
        simple(
            Kind::Service,
            "external",
            Some("shop"),
            None,
            json!({"spec": {}}),
        ),
        simple(
            Kind::Ingress,
            "web",
            Some("shop"),
            None,
            json!({"spec": {"rules": [{"http": {"paths": [{"backend": {"service": {"name": "frontend", "port": {"number": 80}}}}]}}]}}),
        ),
        simple(
            Kind::Hpa,
            "frontend",
            Some("shop"),
            None,
            json!({"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "frontend"}}}),
        ),
        simple(
            Kind::Claim,
            "data",
            Some("shop"),
            None,
            json!({"spec": {"volumeName": "pv-1"}, "status": {"phase": "Bound"}}),
        ),
        simple(
            Kind::Volume,
            "pv-1",
            None,
            None,
            json!({"spec": {"storageClassName": "fast"}}),
        ),
    ];
    for i in 0..pods {
        let rs = owner("ReplicaSet", "apps/v1", "frontend-7d9", "uid-frontend-7d9");
        let phase = if i == 0 { "Pending" } else { "Running" };
        items.push(pod(
            &format!("frontend-7d9-{i}"),
            "shop",
            Some(rs),
            json!({"app": "frontend"}),
            &format!("node-{}", i % 2),
            phase,
        ));
    }
    items
}

fn has_edge(g: &Graph, from: &str, to: &str) -> bool {
    match (g.index.get(from), g.index.get(to)) {
        (Some(a), Some(b)) => g.edges.contains(&(*a, *b)),
        _ => false,
    }
}

#[test]
fn every_relation_the_objects_state_is_an_edge() {
    let items = shop(3);
    let g = build(&items, &[], None);
    for (from, to) in [
        ("Deployment/shop/frontend", "ReplicaSet/shop/frontend-7d9"),
        ("ReplicaSet/shop/frontend-7d9", "Pod/shop/frontend-7d9-1"),
        ("Service/shop/frontend", "Pod/shop/frontend-7d9-2"),
        ("Ingress/shop/web", "Service/shop/frontend"),
        (
            "HorizontalPodAutoscaler/shop/frontend",
            "Deployment/shop/frontend",
        ),
        ("Pod/shop/frontend-7d9-0", "ConfigMap/shop/feature-flags"),
        ("Pod/shop/frontend-7d9-0", "Secret/shop/api-token"),
        ("Pod/shop/frontend-7d9-0", "PersistentVolumeClaim/shop/data"),
        ("Pod/shop/frontend-7d9-0", "ServiceAccount/shop/default"),
        ("Pod/shop/frontend-7d9-1", "Node/node-1"),
        ("PersistentVolumeClaim/shop/data", "PersistentVolume/pv-1"),
        ("PersistentVolume/pv-1", "StorageClass/fast"),
    ] {
        assert!(has_edge(&g, from, to), "{from} → {to}");
    }
    // A Service without a selector selects nothing.
    let external = g.index["Service/shop/external"];
    assert!(!g.edges.iter().any(|(a, _)| *a == external));
    // A Secret is a name another object gives: never read, so not seen.
    let secret = g.get("Secret/shop/api-token").expect("named");
    assert!(!secret.seen);
    assert_eq!(
        secret.link,
        Link::Object {
            kind: Kind::Secret,
            namespace: Some("shop".into()),
            name: "api-token".into()
        }
    );
    assert!(g.get("Deployment/shop/frontend").expect("read").seen);
    assert_eq!(
        g.get("Pod/shop/frontend-7d9-0").expect("pod").main_health(),
        Health::Waiting
    );
    assert_eq!(
        g.get("Pod/shop/frontend-7d9-1").expect("pod").main_health(),
        Health::Good
    );
}

#[test]
fn pods_that_repeat_are_one_node_with_their_count_and_colours() {
    let items = shop(GROUP_OVER);
    let g = build(&items, &[], None);
    assert!(
        g.get("Pod/shop/frontend-7d9-4").is_some(),
        "{GROUP_OVER} pods are drawn one by one"
    );
    let items = shop(GROUP_OVER + 3);
    let g = build(&items, &[], None);
    assert!(g.get("Pod/shop/frontend-7d9-4").is_none());
    let group = g
        .get("group/ReplicaSet/shop/frontend-7d9")
        .expect("the ReplicaSet's pods as one");
    assert_eq!(group.count, 8);
    assert_eq!(group.health[Health::Good as usize], 7);
    assert_eq!(group.health[Health::Waiting as usize], 1);
    assert_eq!(
        group.link,
        Link::Object {
            kind: Kind::ReplicaSet,
            namespace: Some("shop".into()),
            name: "frontend-7d9".into()
        }
    );
    assert!(has_edge(
        &g,
        "ReplicaSet/shop/frontend-7d9",
        "group/ReplicaSet/shop/frontend-7d9"
    ));
    assert!(has_edge(
        &g,
        "Service/shop/frontend",
        "group/ReplicaSet/shop/frontend-7d9"
    ));
    assert!(has_edge(
        &g,
        "group/ReplicaSet/shop/frontend-7d9",
        "Node/node-0"
    ));
    assert!(has_edge(
        &g,
        "group/ReplicaSet/shop/frontend-7d9",
        "Node/node-1"
    ));
    // The pod a map is of is kept apart from its siblings.
    let g = build(&items, &[], Some("Pod/shop/frontend-7d9-4"));
    assert!(g.get("Pod/shop/frontend-7d9-4").is_some());
    assert_eq!(
        g.get("group/ReplicaSet/shop/frontend-7d9")
            .expect("group")
            .count,
        7
    );
}

#[test]
fn pods_without_a_controller_group_by_their_labels() {
    let mut items = Vec::new();
    for i in 0..20 {
        items.push(pod(
            &format!("p-{i}"),
            "bench",
            None,
            json!({"app": "bench", "bucket": (i % 2).to_string()}),
            "n",
            "Running",
        ));
    }
    let g = build(&items, &[], None);
    let groups: Vec<_> = g.nodes.iter().filter(|n| n.group).collect();
    assert_eq!(
        groups.len(),
        2,
        "{:?}",
        g.nodes.iter().map(|n| &n.id).collect::<Vec<_>>()
    );
    assert!(groups.iter().all(|n| n.count == 10));
    assert_eq!(
        groups[0].link,
        Link::Pods {
            namespace: Some("bench".into()),
            labels: "app=bench,bucket=0".into()
        }
    );
    // A key with a '/' (as the apiserver's topology labels have) stays whole.
    let zoned: Vec<Item> = (0..6)
        .map(|i| {
            pod(
                &format!("z-{i}"),
                "bench",
                None,
                json!({"app": "bench", "topology.kubernetes.io/zone": "zone-b"}),
                "n",
                "Running",
            )
        })
        .collect();
    let g = build(&zoned, &[], None);
    let group = g
        .nodes
        .iter()
        .find(|n| n.group)
        .expect("six pods of one label set");
    assert_eq!(
        group.link,
        Link::Pods {
            namespace: Some("bench".into()),
            labels: "app=bench,topology.kubernetes.io/zone=zone-b".into()
        }
    );
}

#[test]
fn a_network_policy_selects_pods_of_its_own_namespace() {
    let mut items = shop(2);
    items.push(pod(
        "other",
        "elsewhere",
        None,
        json!({"app": "frontend"}),
        "n",
        "Running",
    ));
    items.push(simple(
        Kind::NetworkPolicy,
        "all",
        Some("shop"),
        None,
        json!({"spec": {"podSelector": {}}}),
    ));
    items.push(simple(Kind::NetworkPolicy, "fe", Some("elsewhere"), None,
                      json!({"spec": {"podSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["frontend"]}]}}})));
    let g = build(&items, &[], None);
    assert!(has_edge(
        &g,
        "NetworkPolicy/shop/all",
        "Pod/shop/frontend-7d9-0"
    ));
    assert!(!has_edge(
        &g,
        "NetworkPolicy/shop/all",
        "Pod/elsewhere/other"
    ));
    assert!(has_edge(
        &g,
        "NetworkPolicy/elsewhere/fe",
        "Pod/elsewhere/other"
    ));
    assert!(!has_edge(
        &g,
        "NetworkPolicy/elsewhere/fe",
        "Pod/shop/frontend-7d9-0"
    ));
    // The Service of one namespace does not select the other's pods.
    assert!(!has_edge(
        &g,
        "Service/shop/frontend",
        "Pod/elsewhere/other"
    ));
}

#[test]
fn warning_events_count_on_their_object() {
    let items = shop(2);
    let warn = object(
        json!({"metadata": {"name": "e1", "namespace": "shop"}, "type": "Warning", "count": 3,
                             "involvedObject": {"kind": "Pod", "name": "frontend-7d9-1", "uid": "uid-frontend-7d9-1"}}),
    );
    let normal = object(
        json!({"metadata": {"name": "e2", "namespace": "shop"}, "type": "Normal",
                               "involvedObject": {"kind": "Pod", "name": "frontend-7d9-1", "uid": "uid-frontend-7d9-1"}}),
    );
    let marks: Vec<EventMark> = [warn, normal].iter().filter_map(event_mark).collect();
    assert_eq!(marks.len(), 2);
    let g = build(&items, &marks, None);
    assert_eq!(g.get("Pod/shop/frontend-7d9-1").expect("pod").warnings, 3);
    assert_eq!(g.get("Pod/shop/frontend-7d9-0").expect("pod").warnings, 0);
}

#[test]
fn a_neighbourhood_reaches_its_depth_and_stops_at_hubs() {
    let mut items = shop(3);
    // Another workload's pod on the same node, using the same ConfigMap.
    items.push(simple(
        Kind::Pod,
        "cart-1",
        Some("shop"),
        None,
        json!({"spec": {"nodeName": "node-1",
        "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "feature-flags"}}]}]}}),
    ));
    let g = build(&items, &[], None);
    let ids = |g: &Graph| g.nodes.iter().map(|n| n.id.clone()).collect::<Vec<_>>();
    let n = near(&g, "Deployment/shop/frontend", 3).expect("in the map");
    let got = ids(&n);
    for want in [
        "ReplicaSet/shop/frontend-7d9",
        "Pod/shop/frontend-7d9-2",
        "Service/shop/frontend",
        "ConfigMap/shop/feature-flags",
        "Node/node-1",
        "HorizontalPodAutoscaler/shop/frontend",
    ] {
        assert!(got.iter().any(|i| i == want), "{want} in {got:?}");
    }
    // Past a hub (the node, the ConfigMap) nothing spreads; the Ingress is 4 away.
    assert!(!got.iter().any(|i| i == "Pod/shop/cart-1"), "{got:?}");
    assert!(!got.iter().any(|i| i == "Ingress/shop/web"), "{got:?}");
    let four = ids(&near(&g, "Deployment/shop/frontend", 4).expect("map"));
    assert!(four.iter().any(|i| i == "Ingress/shop/web"));
    assert!(
        !four.iter().any(|i| i == "Pod/shop/cart-1"),
        "not through the node or the ConfigMap: {four:?}"
    );
    let one = near(&g, "Deployment/shop/frontend", 1).expect("map");
    assert_eq!(
        one.nodes.len(),
        3,
        "itself, its ReplicaSet and its HPA: {:?}",
        ids(&one)
    );
    // The map of a hub spreads from it.
    let node = near(&g, "Node/node-1", 1).expect("map");
    assert!(ids(&node).iter().any(|i| i == "Pod/shop/cart-1"));
    assert!(near(&g, "Deployment/shop/none", 2).is_none());
    // Edges only between what is kept.
    assert!(
        one.edges
            .iter()
            .all(|(a, b)| *a < one.nodes.len() && *b < one.nodes.len())
    );
}

#[test]
fn the_layout_keeps_every_node_that_stays_where_it_was() {
    let g = build(&shop(3), &[], None);
    let first = place(&Layout::default(), &g);
    let before = first.places();
    assert_eq!(before.len(), g.nodes.len(), "every node is placed");
    // Columns: the Ingress left of the Service, pods right of their ReplicaSet.
    assert!(before["Ingress/shop/web"].x < before["Service/shop/frontend"].x);
    assert!(before["ReplicaSet/shop/frontend-7d9"].x < before["Pod/shop/frontend-7d9-0"].x);
    // Siblings are next to each other.
    let slots: Vec<usize> = (0..3)
        .map(|i| before[&format!("Pod/shop/frontend-7d9-{i}")].slot)
        .collect();
    assert_eq!(
        slots.iter().max().copied().unwrap_or(0) - slots.iter().min().copied().unwrap_or(0),
        2
    );
    // A pod more, one a fresh layout would put between the others: every
    // node that was there keeps its place.
    let mut items = shop(3);
    let rs = owner("ReplicaSet", "apps/v1", "frontend-7d9", "uid-frontend-7d9");
    items.push(pod(
        "frontend-7d9-00",
        "shop",
        Some(rs),
        json!({"app": "frontend"}),
        "node-0",
        "Running",
    ));
    let last = items.len() - 1;
    items.swap(0, last);
    let g2 = build(&items, &[], None);
    let second = place(&first, &g2);
    let after = second.places();
    for (id, p) in &before {
        assert_eq!(after.get(id), Some(p), "{id} moved");
    }
    assert!(after.contains_key("Pod/shop/frontend-7d9-00"));
    // One goes: a hole, the others stay.
    let g3 = build(&shop(2), &[], None);
    let third = place(&second, &g3).places();
    assert!(!third.contains_key("Pod/shop/frontend-7d9-2"));
    assert_eq!(
        third["Pod/shop/frontend-7d9-1"],
        after["Pod/shop/frontend-7d9-1"]
    );
}

#[test]
fn arrow_keys_move_through_columns_and_along_edges() {
    let g = build(&shop(3), &[], None);
    let layout = place(&Layout::default(), &g);
    let places = layout.places();
    let first_pod = (0..3)
        .map(|i| format!("Pod/shop/frontend-7d9-{i}"))
        .min_by_key(|id| places[id].slot)
        .expect("pods");
    let below = step(&layout, &g, &first_pod, Step::Down).expect("a pod below");
    assert_eq!(places[&below].slot, places[&first_pod].slot + 1);
    assert_eq!(
        step(&layout, &g, &below, Step::Up).as_deref(),
        Some(first_pod.as_str())
    );
    // Left from a pod: its ReplicaSet (a neighbour) before anything nearer.
    assert_eq!(
        step(&layout, &g, &below, Step::Left).as_deref(),
        Some("ReplicaSet/shop/frontend-7d9")
    );
    let right = step(&layout, &g, &below, Step::Right).expect("what the pod uses");
    assert_eq!(places[&right].column, 4);
    assert!(step(&layout, &g, "Ingress/shop/web", Step::Left).is_none());
    assert!(step(&layout, &g, "nothing", Step::Up).is_none());
}
