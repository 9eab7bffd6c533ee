//! Objects and their relations, read from untyped JSON, one idea a file: the overview's rows (`rows`), what an object's fields say (`fields`: owners, labels, conditions, creation, field selectors, a typed replica count), what a kind owns (`owned`), which actions a kind has (`actions`) and which ports a port-forward may reach (`ports`).
//!
//! Deployments, nodes and namespaces are read as untyped objects: whole
//! objects watch over WebSocket (holding none of the browser's six
//! connections), and the typed `Deployment` would drag the whole `PodSpec`
//! deserializer into the wasm.

mod actions;
mod fields;
mod owned;
mod ports;
mod rows;

pub use actions::*;
pub use fields::*;
pub use owned::*;
pub use ports::*;
pub use rows::*;

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass_client::discovery::{Discovery, ResourceInfo};
    use kubeglass_client::kube_core::DynamicObject;
    use kubeglass_client::rest::table::TableRowObject;
    use serde_json::Value;

    use serde_json::json;

    #[test]
    fn a_key_is_its_namespace_and_name_or_only_a_name() {
        assert_eq!(split_key("shop/a"), (Some("shop".into()), "a".into()));
        assert_eq!(split_key("node-1"), (None, "node-1".into()));
    }

    fn object(v: Value) -> DynamicObject {
        serde_json::from_value(v).expect("an object")
    }

    #[test]
    fn overview_rows_read_their_fields_and_defaults() {
        let d = DeploymentRow::from_object(&object(json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {}, "status": {"readyReplicas": 1}})));
        assert_eq!((d.key.as_str(), d.desired, d.ready), ("shop/web", 1, 1));
        let n = NodeRow::from_object(&object(json!({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "True"}]}})));
        assert_eq!((n.ready.as_str(), n.cordoned), ("True", true));
        let n = NodeRow::from_object(&object(
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}}),
        ));
        assert_eq!((n.ready.as_str(), n.cordoned), ("Unknown", false));
    }

    fn pod(name: &str, ns: &str, deleting: bool) -> TableRowObject {
        let mut meta = json!({"name": name, "namespace": ns, "resourceVersion": "1"});
        if deleting {
            meta["deletionTimestamp"] = json!("2026-11-30T10:00:00Z");
        }
        serde_json::from_value(json!({"cells": [name], "object": {"metadata": meta}})).expect("row")
    }

    #[test]
    fn pod_counts_follow_changes_and_skip_pods_being_deleted() {
        let mut c = PodCounts::default();
        c.apply("a/p1".into(), Some(&pod("p1", "a", false)));
        c.apply("a/p2".into(), Some(&pod("p2", "a", false)));
        c.apply("b/p3".into(), Some(&pod("p3", "b", false)));
        assert_eq!(
            (c.total(), c.in_namespace("a"), c.in_namespace("b")),
            (3, 2, 1)
        );
        c.apply("a/p1".into(), Some(&pod("p1", "a", true)));
        assert_eq!((c.total(), c.in_namespace("a")), (2, 1), "being deleted");
        c.apply("b/p3".into(), None);
        c.apply("b/never".into(), None);
        assert_eq!((c.total(), c.in_namespace("b")), (1, 0));
    }

    fn info(group: &str, plural: &str) -> ResourceInfo {
        serde_json::from_value(json!({"group": group, "version": "v1", "plural": plural,
            "singular": "", "kind": "K", "namespaced": true, "verbs": ["delete", "patch"],
            "short_names": [], "categories": [], "subresources": [], "preferred": true}))
        .expect("resource info")
    }

    #[test]
    fn an_api_version_and_kind_map_to_their_resource_with_or_without_a_version() {
        let mut i = info("apps", "deployments");
        i.kind = "Deployment".into();
        let d: Discovery = serde_json::from_value(json!({
            "groups": [], "resources": [i], "aggregated": true
        }))
        .expect("discovery");
        let name = |v: &str, k: &str| resource_of(&d, v, k).map(|r| r.qualified_name());
        assert_eq!(
            name("apps/v1", "Deployment").as_deref(),
            Some("deployments.apps")
        );
        assert_eq!(
            name("apps/", "Deployment").as_deref(),
            Some("deployments.apps"),
            "no version: any"
        );
        assert_eq!(
            name("apps/v2", "Deployment"),
            None,
            "a version the server does not serve"
        );
        assert_eq!(name("v1", "Deployment"), None, "another group");
    }

    #[test]
    fn replicas_are_a_whole_number_from_zero() {
        assert_eq!(parse_replicas("shop/web", " 3 "), Ok(3));
        assert_eq!(parse_replicas("shop/web", "0"), Ok(0));
        for bad in ["-1", "2.5", "three", "", "2147483648"] {
            assert_eq!(
                parse_replicas("shop/web", bad),
                Err(format!("shop/web: “{bad}” is not a number of replicas"))
            );
        }
    }

    #[test]
    fn children_and_actions_depend_on_the_kind() {
        let c = |g, p| children_of(&info(g, p));
        assert_eq!(
            c("apps", "deployments").map(|c| c.resource),
            Some("replicasets.apps")
        );
        assert_eq!(c("batch", "jobs").map(|c| c.resource), Some("pods"));
        assert_eq!(c("", "nodes").map(|c| c.on_node), Some(true));
        assert_eq!(c("", "configmaps"), None);
        let a = KindActions::of(&info("apps", "deployments"));
        assert!(a.delete && a.patch && a.restart && !a.cordon && !a.scale);
        let a = KindActions::of(&info("", "nodes"));
        assert!(a.cordon && !a.restart);
    }

    #[test]
    fn field_selector_values_cannot_add_terms() {
        assert_eq!(field_value("web-1"), "web-1");
        assert_eq!(field_value("x,metadata.name!=x"), "x\\,metadata.name!\\=x");
        assert_eq!(field_value("a\\b"), "a\\\\b");
    }

    #[test]
    fn owners_conditions_and_type_meta_read_from_json() {
        let v = json!({"metadata": {"name": "rs-1", "creationTimestamp": "2026-11-30T10:00:00Z",
            "labels": {"app": "web", "n": 1},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u"}]},
            "status": {"conditions": [{"type": "Available", "status": "True", "lastTransitionTime": "bad"}]}});
        assert_eq!(
            owners(&v),
            [OwnerRef {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                name: "web".into()
            }]
        );
        assert_eq!(split_api_version("apps/v1"), ("apps", "v1"));
        assert_eq!(split_api_version("v1"), ("", "v1"));
        let c = conditions(&v);
        assert_eq!((c[0].type_.as_str(), c[0].since), ("Available", None));
        assert_eq!(created(&v), Some(1_796_032_800.0));
        assert_eq!(
            string_map(&v, "labels"),
            [("app".into(), "web".into()), ("n".into(), String::new())]
        );
        let o = object(json!({"metadata": {"name": "x"}, "data": {"a": "1"}}));
        let typed = with_type_meta(&o, "v1", "ConfigMap");
        assert_eq!(
            (typed["apiVersion"].as_str(), typed["kind"].as_str()),
            (Some("v1"), Some("ConfigMap"))
        );
        assert_eq!(typed["data"]["a"], "1");
    }
}
