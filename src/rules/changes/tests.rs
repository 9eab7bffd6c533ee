use serde_json::{Value, json};

use super::*;
use crate::rules::filter::literal_compile as compile;

fn web() -> Subject {
    Subject {
        resource: "deployments.apps".into(),
        kind: "Deployment".into(),
        namespace: Some("shop".into()),
        name: "web".into(),
    }
}

fn version(rv: &str, replicas: u64, ready: u64, entries: Value) -> Value {
    json!({
        "metadata": {"name": "web", "namespace": "shop", "resourceVersion": rv, "managedFields": entries},
        "spec": {"replicas": replicas},
        "status": {"readyReplicas": ready},
    })
}

fn entry(manager: &str, time: &str, sub: Option<&str>, fields: Value) -> Value {
    let mut e = json!({"manager": manager, "operation": "Update", "time": time, "fieldsType": "FieldsV1", "fieldsV1": fields});
    if let Some(s) = sub {
        e["subresource"] = json!(s);
    }
    e
}

#[test]
fn an_add_an_update_a_status_update_and_a_delete_are_four_rows() {
    let create = entry(
        "kubectl-create",
        "t1",
        None,
        json!({"f:spec": {"f:replicas": {}}}),
    );
    let v1 = version("1", 1, 0, json!([create]));
    // A plain update moves the field's ownership: create no longer owns it.
    let create = entry("kubectl-create", "t1", None, json!({"f:metadata": {}}));
    let scale = entry(
        "kubectl",
        "t2",
        Some("scale"),
        json!({"f:spec": {"f:replicas": {}}}),
    );
    let v2 = version("2", 3, 0, json!([create, scale]));
    let status = entry(
        "kube-controller-manager",
        "t3",
        Some("status"),
        json!({"f:status": {"f:readyReplicas": {}}}),
    );
    let v3 = version("3", 3, 3, json!([create, scale, status]));
    let mut t = Changes::new(100.0);
    assert!(t.observe(web(), None, Some(&v1), 101.0));
    assert!(
        !t.observe(web(), Some(&v1), Some(&v1), 101.5),
        "the same version is no change"
    );
    assert!(t.observe(web(), Some(&v1), Some(&v2), 102.0));
    assert!(t.observe(web(), Some(&v2), Some(&v3), 103.0));
    assert!(t.observe(web(), Some(&v3), None, 104.0));
    let rows: Vec<_> = t
        .entries()
        .map(|e| (e.op, e.by.join(", "), e.summary.clone(), e.status_only))
        .collect();
    assert_eq!(
        rows,
        [
            (Op::Added, "kubectl-create".into(), "created".into(), false),
            (
                Op::Updated,
                "kubectl (scale)".into(),
                "spec.replicas 1 → 3".into(),
                false
            ),
            (
                Op::Updated,
                "kube-controller-manager (status)".into(),
                "status.readyReplicas 0 → 3".into(),
                true
            ),
            (Op::Deleted, String::new(), "deleted".into(), false),
        ]
    );
    assert_eq!(
        t.get(1).map(|e| e.changes.len()),
        Some(1),
        "the update keeps its diff"
    );
    assert_eq!(t.get(9), None);
}

#[test]
fn a_new_resource_version_with_no_field_changed_is_status_only() {
    let mut t = Changes::new(0.0);
    // Listed objects carry no type; watched ones do: the same object.
    let mut typed = version("2", 1, 1, json!([]));
    typed["apiVersion"] = json!("apps/v1");
    typed["kind"] = json!("Deployment");
    t.observe(
        web(),
        Some(&version("1", 1, 1, json!([]))),
        Some(&typed),
        1.0,
    );
    let e = t.entries().next().expect("a row");
    assert!(e.status_only && e.changes.is_empty(), "{e:?}");
    assert_eq!(e.summary, "no field changed");
}

#[test]
fn a_warning_names_its_reason_count_component_and_a_cut_message() {
    let mut t = Changes::new(0.0);
    let event = json!({"reason": "BackOff", "count": 5, "message": "x".repeat(1000),
                       "source": {"component": "kubelet"}});
    t.warning(web(), &event, 1.0);
    let e = t.entries().next().expect("a row");
    assert_eq!(
        (e.op, e.by.clone()),
        (Op::Warning, vec!["kubelet".to_string()])
    );
    assert!(e.summary.starts_with("BackOff ×5: xxx"), "{}", e.summary);
    assert_eq!(
        e.summary.chars().count(),
        "BackOff ×5: ".chars().count() + 300 + 1
    );
}

#[test]
fn the_caps_drop_the_oldest_rows_and_count_them() {
    let mut t = Changes::with_caps(0.0, 3, usize::MAX);
    for i in 0..5u64 {
        let (a, b) = (
            version(&i.to_string(), i, 0, json!([])),
            version(&(i + 10).to_string(), i + 1, 0, json!([])),
        );
        t.observe(web(), Some(&a), Some(&b), i as f64);
    }
    assert_eq!(t.entries().map(|e| e.seq).collect::<Vec<_>>(), [2, 3, 4]);
    assert_eq!(t.namespaces().collect::<Vec<_>>(), ["shop"]);
    assert_eq!(t.kinds().collect::<Vec<_>>(), ["Deployment"]);
    // A kind and a namespace go from the menus with their last row.
    let mut one = Changes::with_caps(0.0, 1, usize::MAX);
    one.warning(web(), &json!({"reason": "R"}), 1.0);
    let node = Subject {
        resource: "nodes".into(),
        kind: "Node".into(),
        namespace: None,
        name: "n".into(),
    };
    one.warning(node, &json!({"reason": "R"}), 2.0);
    assert_eq!(one.kinds().collect::<Vec<_>>(), ["Node"]);
    assert_eq!(one.namespaces().count(), 0);
    assert_eq!((t.dropped, t.get(3).map(|e| e.seq)), (2, Some(3)));
    let mut small = Changes::with_caps(0.0, 100, 40);
    for i in 0..4u64 {
        let (a, b) = (
            version("1", i, 0, json!([])),
            version("2", i + 1, 0, json!([])),
        );
        small.observe(web(), Some(&a), Some(&b), 0.0);
    }
    let (rows, bytes) = small.held();
    assert!(
        rows < 4 && bytes <= 40 && small.dropped > 0,
        "{rows} rows, {bytes} B"
    );
}

/// A scale, a status update and a node's Warning.
fn three_rows() -> Changes {
    let mut t = Changes::new(0.0);
    let scale = json!([entry(
        "kubectl",
        "t2",
        Some("scale"),
        json!({"f:spec": {"f:replicas": {}}})
    )]);
    t.observe(
        web(),
        Some(&version("1", 1, 0, json!([]))),
        Some(&version("2", 3, 0, scale)),
        1.0,
    );
    t.observe(
        web(),
        Some(&version("2", 3, 0, json!([]))),
        Some(&version("3", 3, 3, json!([]))),
        2.0,
    );
    let node = Subject {
        resource: "nodes".into(),
        kind: "Node".into(),
        namespace: None,
        name: "n1".into(),
    };
    t.warning(
        node,
        &json!({"reason": "NodeNotReady", "message": "down"}),
        3.0,
    );
    t
}

#[test]
fn the_filter_reads_namespace_kind_manager_text_and_the_status_toggle() {
    let t = three_rows();
    assert_eq!(
        t.kinds().collect::<Vec<_>>(),
        ["Deployment", "Node"],
        "the menus' kinds"
    );
    assert_eq!(
        t.namespaces().collect::<Vec<_>>(),
        ["shop"],
        "a node has no namespace"
    );
    let shown = |f: ChangeFilter| -> Vec<u64> {
        let m = f.matcher(compile).expect("a filter");
        t.entries().filter(|e| m(e)).map(|e| e.seq).collect()
    };
    assert_eq!(
        shown(ChangeFilter::default()),
        [0, 2],
        "status-only folded away"
    );
    assert_eq!(
        shown(ChangeFilter {
            status_only: true,
            ..Default::default()
        }),
        [0, 1, 2]
    );
    assert_eq!(
        shown(ChangeFilter {
            namespace: "shop".into(),
            ..Default::default()
        }),
        [0]
    );
    assert_eq!(
        shown(ChangeFilter {
            kind: "Node".into(),
            ..Default::default()
        }),
        [2]
    );
    assert_eq!(
        shown(ChangeFilter {
            manager: "SCALE".into(),
            ..Default::default()
        }),
        [0]
    );
    assert_eq!(
        shown(ChangeFilter {
            text: "/replicas 1/".into(),
            ..Default::default()
        }),
        [0]
    );
    assert_eq!(
        shown(ChangeFilter {
            text: "n1 warning".into(),
            ..Default::default()
        }),
        [2]
    );
    let bad = ChangeFilter {
        text: "/a(/".into(),
        ..Default::default()
    };
    assert_eq!(
        bad.matcher(compile).err().as_deref(),
        Some("Unterminated group")
    );
}
