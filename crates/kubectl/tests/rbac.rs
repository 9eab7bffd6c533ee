//! RBAC read in the tab: the authorizer's matching, aggregation followed,
//! who can (with the chain that grants it), a subject's rules, and
//! `kubectl auth can-i --list`'s rows.

use kube_core::{ApiResource, DynamicObject, GroupVersionKind};
use kubeglass_kubectl::access::AccessQuery;
use kubeglass_kubectl::rbac::list::{RulesStatus, columns, has, rows};
use kubeglass_kubectl::rbac::who::{Identity, allows, allows_url, granted_to, subjects, who_can};
use kubeglass_kubectl::rbac::{Binding, Policy, Role, RoleKind, Rule, Selector};
use serde_json::{Value, json};

fn object(
    kind: &str,
    namespace: Option<&str>,
    name: &str,
    labels: Value,
    data: Value,
) -> DynamicObject {
    let gvk = GroupVersionKind::gvk("rbac.authorization.k8s.io", "v1", kind);
    let mut o = DynamicObject::new(name, &ApiResource::from_gvk(&gvk)).data(data);
    o.metadata.namespace = namespace.map(str::to_string);
    o.metadata.labels = serde_json::from_value(labels).expect("test data");
    o
}

fn cluster_role(policy: &mut Policy, name: &str, labels: Value, data: Value) {
    let o = object("ClusterRole", None, name, labels, data);
    policy.cluster_roles.insert(
        name.into(),
        Role::from_object(RoleKind::ClusterRole, &o).expect("test data"),
    );
}

fn role(policy: &mut Policy, ns: &str, name: &str, rules: Value) {
    let o = object("Role", Some(ns), name, json!({}), json!({"rules": rules}));
    policy.roles.insert(
        format!("{ns}/{name}"),
        Role::from_object(RoleKind::Role, &o).expect("test data"),
    );
}

fn bind(policy: &mut Policy, ns: Option<&str>, name: &str, role: (&str, &str), subjects: Value) {
    let kind = if ns.is_some() {
        "RoleBinding"
    } else {
        "ClusterRoleBinding"
    };
    let data = json!({"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role.0, "name": role.1},
        "subjects": subjects});
    let b = Binding::from_object(&object(kind, ns, name, json!({}), data)).expect("test data");
    match ns {
        Some(ns) => policy.role_bindings.insert(format!("{ns}/{name}"), b),
        None => policy.cluster_role_bindings.insert(name.into(), b),
    };
}

fn ask(verb: &str, group: &str, resource: &str, ns: Option<&str>) -> AccessQuery {
    AccessQuery {
        verb: verb.into(),
        group: group.into(),
        resource: resource.into(),
        namespace: ns.map(str::to_string),
        ..AccessQuery::default()
    }
}

/// The demo's shape: cluster-admin for system:masters, `view` aggregated
/// (its own rules empty, as before the controller fills them) and bound to
/// the viewer in demo-shop, a Role that lets a ServiceAccount delete pods
/// there, and another namespace's binding that must not count.
fn demo() -> Policy {
    let mut p = Policy::default();
    cluster_role(
        &mut p,
        "cluster-admin",
        json!({}),
        json!({"rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                         {"nonResourceURLs": ["*"], "verbs": ["*"]}]}),
    );
    cluster_role(
        &mut p,
        "view",
        json!({}),
        json!({"aggregationRule": {"clusterRoleSelectors": [
        {"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}}]}}),
    );
    cluster_role(
        &mut p,
        "view-pods",
        json!({"rbac.authorization.k8s.io/aggregate-to-view": "true"}),
        json!({"rules": [{"apiGroups": [""], "resources": ["pods", "pods/log"], "verbs": ["get", "list", "watch"]}]}),
    );
    role(
        &mut p,
        "demo-shop",
        "pod-reaper",
        json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"]}]),
    );
    role(
        &mut p,
        "other",
        "pod-reaper",
        json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"]}]),
    );
    bind(
        &mut p,
        None,
        "cluster-admin",
        ("ClusterRole", "cluster-admin"),
        json!([{"kind": "Group", "name": "system:masters", "apiGroup": "rbac.authorization.k8s.io"}]),
    );
    bind(
        &mut p,
        Some("demo-shop"),
        "viewer-can-view",
        ("ClusterRole", "view"),
        json!([{"kind": "User", "name": "viewer", "apiGroup": "rbac.authorization.k8s.io"}]),
    );
    bind(
        &mut p,
        Some("demo-shop"),
        "reaper",
        ("Role", "pod-reaper"),
        json!([{"kind": "ServiceAccount", "name": "janitor"}]),
    );
    bind(
        &mut p,
        Some("other"),
        "reaper",
        ("Role", "pod-reaper"),
        json!([{"kind": "User", "name": "elsewhere"}]),
    );
    p
}

#[test]
fn who_can_delete_pods_names_the_admin_binding_and_the_local_role_not_the_viewer() {
    let p = demo();
    let grants = who_can(&p, &ask("delete", "", "pods", Some("demo-shop")));
    let said: Vec<(String, String)> = grants
        .iter()
        .map(|g| (g.subject.words(), g.chain()))
        .collect();
    assert_eq!(
        said,
        vec![
            (
                "Group system:masters".to_string(),
                "ClusterRoleBinding cluster-admin → ClusterRole cluster-admin".to_string()
            ),
            (
                "ServiceAccount demo-shop/janitor".to_string(),
                "RoleBinding demo-shop/reaper → Role pod-reaper".to_string()
            ),
        ]
    );
    // Across all namespaces only cluster-wide bindings count.
    let all = who_can(&p, &ask("delete", "", "pods", None));
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].binding, "cluster-admin");
}

#[test]
fn an_aggregated_role_is_followed_and_the_chain_says_where_the_rule_came_from() {
    let p = demo();
    let grants = who_can(&p, &ask("list", "", "pods", Some("demo-shop")));
    let viewer = grants
        .iter()
        .find(|g| g.subject.name == "viewer")
        .expect("the viewer may list pods");
    assert_eq!(viewer.aggregated_from.as_deref(), Some("view-pods"));
    assert_eq!(
        viewer.chain(),
        "RoleBinding demo-shop/viewer-can-view → ClusterRole view (aggregated from ClusterRole view-pods)"
    );
    // Not in another namespace, and not a verb view lacks.
    assert!(
        who_can(&p, &ask("list", "", "pods", Some("other")))
            .iter()
            .all(|g| g.subject.name != "viewer")
    );
    assert!(
        who_can(&p, &ask("delete", "", "pods", Some("demo-shop")))
            .iter()
            .all(|g| g.subject.name != "viewer")
    );
}

#[test]
fn aggregation_that_loops_ends_and_a_missing_role_grants_nothing() {
    let mut p = Policy::default();
    cluster_role(
        &mut p,
        "a",
        json!({"pick": "a"}),
        json!({"aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"pick": "b"}}]},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]}),
    );
    cluster_role(
        &mut p,
        "b",
        json!({"pick": "b"}),
        json!({"aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"pick": "a"}}]},
        "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]}),
    );
    let a = &p.cluster_roles["a"];
    let from: Vec<Option<&str>> = p.rules_of(a).iter().map(|r| r.from).collect();
    assert_eq!(from, vec![None, Some("b")]);
    bind(
        &mut p,
        None,
        "gone",
        ("ClusterRole", "no-such-role"),
        json!([{"kind": "User", "name": "u"}]),
    );
    bind(
        &mut p,
        None,
        "role-in-crb",
        ("Role", "a"),
        json!([{"kind": "User", "name": "u"}]),
    );
    assert!(who_can(&p, &ask("get", "", "configmaps", None)).is_empty());
}

#[test]
fn the_authorizers_matching_of_subresources_names_groups_and_urls() {
    let rule = |v: Value| -> Rule { serde_json::from_value(v).expect("test data") };
    let logs = rule(json!({"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]}));
    let mut q = ask("get", "", "pods", Some("x"));
    assert!(!allows(&logs, &q), "pods/log is not pods");
    q.subresource = Some("log".into());
    assert!(allows(&logs, &q));
    let scale = rule(json!({"apiGroups": ["apps"], "resources": ["*/scale"], "verbs": ["update"]}));
    let mut s = ask("update", "apps", "deployments", None);
    assert!(!allows(&scale, &s), "*/scale is no deployment itself");
    s.subresource = Some("scale".into());
    assert!(allows(&scale, &s));
    s.group = "".into();
    assert!(!allows(&scale, &s), "another group");
    let named = rule(
        json!({"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["app"], "verbs": ["get"]}),
    );
    let mut n = ask("get", "", "configmaps", Some("x"));
    assert!(
        !allows(&named, &n),
        "a request without a name is not for one of the names"
    );
    n.name = Some("other".into());
    assert!(!allows(&named, &n));
    n.name = Some("app".into());
    assert!(allows(&named, &n));
    let urls = rule(json!({"nonResourceURLs": ["/healthz", "/api/*"], "verbs": ["get"]}));
    assert!(allows_url(&urls, "get", "/api/v1"));
    assert!(allows_url(&urls, "get", "/healthz"));
    assert!(!allows_url(&urls, "get", "/healthz/etcd"));
    assert!(!allows_url(&urls, "post", "/healthz"));
}

#[test]
fn label_selectors_of_aggregation_read_expressions() {
    let sel: Selector = serde_json::from_value(json!({"matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["a", "b"]},
        {"key": "legacy", "operator": "DoesNotExist"}]}))
    .expect("test data");
    let labels = |v: Value| serde_json::from_value(v).expect("test data");
    assert!(sel.matches(&labels(json!({"tier": "a"}))));
    assert!(!sel.matches(&labels(json!({"tier": "c"}))));
    assert!(!sel.matches(&labels(json!({"tier": "a", "legacy": "1"}))));
    assert!(
        Selector::default().matches(&labels(json!({"any": "role"}))),
        "an empty selector picks every role, as the controller reads it"
    );
}

#[test]
fn a_service_accounts_rules_come_through_its_name_and_its_groups() {
    let mut p = demo();
    cluster_role(
        &mut p,
        "sa-reader",
        json!({}),
        json!({"rules": [{"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["list"]}]}),
    );
    bind(
        &mut p,
        None,
        "all-sas",
        ("ClusterRole", "sa-reader"),
        json!([{"kind": "Group", "name": "system:serviceaccounts"}]),
    );
    let janitor = Identity::service_account("demo-shop", "janitor");
    let got: Vec<String> = granted_to(&p, &janitor).iter().map(|g| g.chain()).collect();
    assert_eq!(
        got,
        vec![
            "ClusterRoleBinding all-sas → ClusterRole sa-reader".to_string(),
            "RoleBinding demo-shop/reaper → Role pod-reaper".to_string(),
        ]
    );
    // The same name in another namespace is another account.
    assert!(
        granted_to(&p, &Identity::service_account("other", "janitor"))
            .iter()
            .all(|g| g.binding != "reaper")
    );
    let viewer = granted_to(&p, &Identity::user("viewer"));
    assert!(viewer.iter().all(|g| g.binding == "viewer-can-view"));
    assert_eq!(viewer.len(), 1, "view's one aggregated rule");
    let names: Vec<String> = subjects(&p).iter().map(|s| s.words()).collect();
    assert!(
        names.contains(&"ServiceAccount demo-shop/janitor".to_string()),
        "{names:?}"
    );
    assert!(names.contains(&"User viewer".to_string()));
}

#[test]
fn can_i_list_rows_break_rules_down_and_gather_verbs_as_kubectl_prints_them() {
    let status: RulesStatus = serde_json::from_value(json!({
        "resourceRules": [
            {"verbs": ["get", "list"], "apiGroups": ["", "apps"], "resources": ["pods", "deployments"]},
            {"verbs": ["watch"], "apiGroups": [""], "resources": ["pods", "pods/log"]},
            {"verbs": ["update"], "apiGroups": ["apps"], "resources": ["deployments/scale"]},
            {"verbs": ["update"], "apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["a", "b"]},
            {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
        "nonResourceRules": [
            {"verbs": ["get"], "nonResourceURLs": ["/healthz", "/api/*"]},
            {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}],
        "incomplete": false})).expect("test data");
    let got: Vec<String> = rows(&status)
        .iter()
        .map(|r| {
            format!(
                "{}|{}|{}|{}",
                r.resource,
                r.name.clone().unwrap_or_default(),
                r.url.clone().unwrap_or_default(),
                r.verbs.iter().cloned().collect::<Vec<_>>().join(" ")
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            "*.*|||*",
            "configmaps|a||update",
            "configmaps|b||update",
            "deployments|||get list",
            "deployments.apps|||get list",
            "deployments.apps/scale|||update",
            "pods|||get list watch",
            "pods.apps|||get list",
            "pods/log|||watch",
            "||/api/*|get",
            "||/healthz|get",
        ]
    );
    let r = rows(&status);
    let cols = columns(&r);
    assert_eq!(cols.first().map(String::as_str), Some("get"));
    assert_eq!(cols.last().map(String::as_str), Some("*"));
    assert!(has(&r[0], "deletecollection"), "* allows every column");
    assert!(!has(&r[1], "get"));
}

#[test]
fn a_typed_question_resolves_its_resource_and_says_what_is_wrong() {
    use kubeglass_kubectl::rbac::who::question;
    let resolve = |name: &str| -> Option<(String, String, bool)> {
        match name {
            "deploy" | "deployments" | "deployments.apps" => {
                Some(("apps".into(), "deployments".into(), true))
            }
            "pods" | "po" => Some(("".into(), "pods".into(), true)),
            "nodes" => Some(("".into(), "nodes".into(), false)),
            _ => None,
        }
    };
    let q = question(" delete ", "deploy", Some("shop"), &resolve).expect("a question");
    assert_eq!(
        (
            q.verb.as_str(),
            q.group.as_str(),
            q.resource.as_str(),
            q.namespace.as_deref()
        ),
        ("delete", "apps", "deployments", Some("shop"))
    );
    let logs = question("get", "po/log", Some("shop"), &resolve).expect("a question");
    assert_eq!(
        (logs.resource.as_str(), logs.subresource.as_deref()),
        ("pods", Some("log"))
    );
    let nodes = question("get", "nodes", Some("shop"), &resolve).expect("a question");
    assert_eq!(
        nodes.namespace, None,
        "a cluster-scoped resource is asked cluster-wide"
    );
    assert_eq!(
        question("get", "gadgets", None, &resolve).expect_err("gadgets are not served"),
        "the cluster serves no resource called \"gadgets\""
    );
    assert!(question("get it", "pods", None, &resolve).is_err());
    assert!(question("get", "pods/", None, &resolve).is_err());
    assert!(question("get", "", None, &resolve).is_err());
}

#[test]
fn an_empty_aggregation_selector_takes_every_roles_rules_cluster_admins_too() {
    let mut p = demo();
    cluster_role(
        &mut p,
        "sneaky",
        json!({}),
        json!({"aggregationRule": {"clusterRoleSelectors": [{}]}}),
    );
    bind(
        &mut p,
        None,
        "sneaky",
        ("ClusterRole", "sneaky"),
        json!([{"kind": "User", "name": "mallory"}]),
    );
    let grants = who_can(&p, &ask("delete", "", "secrets", Some("demo-shop")));
    let mallory = grants
        .iter()
        .find(|g| g.subject.name == "mallory")
        .expect("mallory may delete secrets through the empty selector");
    assert_eq!(mallory.aggregated_from.as_deref(), Some("cluster-admin"));
}
