//! The map's reading of objects: kinds known by group and kind, and a pod
//! cut to what the map reads, with no environment variable's value;
//! an EndpointSlice joins its Service to its pods.

use kube_core::DynamicObject;
use kubeglass_kubectl::map::{Item, Kind};
use serde_json::{Value, json};

fn object(v: Value) -> DynamicObject {
    serde_json::from_value(v).expect("test data")
}

#[test]
fn kinds_are_known_by_group_and_kind() {
    assert_eq!(Kind::from_api("apps/v1", "Deployment"), Kind::Deployment);
    assert_eq!(Kind::from_api("v1", "Pod"), Kind::Pod);
    assert_eq!(Kind::from_api("example.com/v1", "Deployment"), Kind::Other);
    assert_eq!(
        Kind::from_resource("deployments.apps"),
        Some(Kind::Deployment)
    );
    assert_eq!(Kind::from_resource("pods"), Some(Kind::Pod));
    assert_eq!(Kind::from_resource("widgets.example.com"), None);
    // An EndpointSlice is read, never drawn: no object page offers its map.
    assert_eq!(Kind::from_resource("endpointslices.discovery.k8s.io"), None);
}

#[test]
fn a_pod_is_kept_with_what_the_map_reads_and_no_variable_s_value() {
    use kubeglass_kubectl::map::trim::trim_pod;
    let full = object(json!({
        "metadata": {"name": "p", "namespace": "shop", "uid": "u", "labels": {"app": "a"},
                     "annotations": {"note": "long"}, "managedFields": [{"manager": "kubectl"}]},
        "spec": {"nodeName": "n", "serviceAccountName": "sa", "volumes": [{"name": "s", "secret": {"secretName": "tls"}}],
                 "containers": [{"name": "c", "image": "i", "args": ["--password=plain-arg"],
                                 "env": [{"name": "PASSWORD", "value": "hunter2"},
                                         {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "api-token", "key": "t"}}}],
                                 "envFrom": [{"configMapRef": {"name": "flags"}}]}]},
        "status": {"phase": "Running", "podIP": "10.0.0.1", "conditions": [{"type": "Ready", "status": "True"}]}
    }));
    let before = Item::read(Kind::Pod, &full);
    let cut = trim_pod(full);
    let text = serde_json::to_string(&cut).expect("json");
    for gone in [
        "hunter2",
        "plain-arg",
        "long",
        "kubectl",
        "10.0.0.1",
        "\"image\"",
    ] {
        assert!(!text.contains(gone), "{gone} is cut: {text}");
    }
    // The map reads the same from what is kept.
    assert_eq!(Item::read(Kind::Pod, &cut), before);
}

#[test]
fn an_endpoint_slice_joins_its_service_to_the_pods_it_names_and_is_no_node() {
    use kubeglass_kubectl::map::graph::build;
    use kubeglass_kubectl::map::trim::trim_slice;
    let pod = |name: &str, uid: &str| {
        Item::read(
            Kind::Pod,
            &object(
                json!({"metadata": {"name": name, "namespace": "shop", "uid": uid, "labels": {"app": "db"}}}),
            ),
        )
    };
    // A Service without a selector: its endpoints are written by hand.
    let service = Item::read(
        Kind::Service,
        &object(
            json!({"metadata": {"name": "direct", "namespace": "shop", "uid": "s"}, "spec": {}}),
        ),
    );
    let slice = |ns: &str, service: &str, uids: &[&str]| {
        let endpoints: Vec<Value> = uids
            .iter()
            .map(|u| json!({"addresses": ["10.0.0.9"], "conditions": {"ready": true},
                            "targetRef": {"kind": "Pod", "namespace": ns, "name": "x", "uid": u}}))
            .chain([json!({"addresses": ["10.0.0.10"], "targetRef": {"kind": "Node", "name": "n", "uid": "a"}})])
            .collect();
        let full = object(json!({
            "metadata": {"name": format!("{service}-abc"), "namespace": ns, "uid": format!("slice-{service}"),
                         "labels": {"kubernetes.io/service-name": service}},
            "addressType": "IPv4", "ports": [{"port": 5432}], "endpoints": endpoints
        }));
        let cut = trim_slice(full);
        assert!(
            !serde_json::to_string(&cut)
                .expect("json")
                .contains("10.0.0"),
            "no address is kept"
        );
        Item::read(Kind::EndpointSlice, &cut)
    };
    let items = vec![
        pod("db-0", "u0"),
        pod("db-1", "u1"),
        service,
        // One pod named, one UID the map does not hold (a pod gone).
        slice("shop", "direct", &["u0", "gone"]),
        // A slice of a Service the map has not read yet.
        slice("shop", "unread", &["u1"]),
    ];
    let g = build(&items, &[], None);
    let edge = |a: &str, b: &str| g.edges.contains(&(g.index[a], g.index[b]));
    assert!(edge("Service/shop/direct", "Pod/shop/db-0"));
    assert!(!edge("Service/shop/direct", "Pod/shop/db-1"));
    assert!(edge("Service/shop/unread", "Pod/shop/db-1"));
    assert!(
        !g.get("Service/shop/unread").expect("named").seen,
        "named by a slice, not read"
    );
    assert!(
        g.nodes.iter().all(|n| n.kind != Kind::EndpointSlice),
        "a slice is no node"
    );
    assert_eq!(
        g.nodes.len(),
        5,
        "two pods, their ServiceAccount and two Services: {:?}",
        g.index.keys()
    );
}
