//! The map's reading of objects: kinds known by group and kind, and a pod
//! cut to what the map reads, with no environment variable's value.

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
