//! Fetching discovery: aggregated and legacy documents, failed and stale group versions, preferred versions, the mapper, a write's live check.

use super::*;

#[test]
fn aggregated_discovery_finds_groups_versions_and_resources() {
    let d = aggregated();
    assert!(d.aggregated);
    assert_eq!(d.groups[0].name, "", "core first");
    assert_eq!(d.groups[0].preferred_version, "v1");
    let apps = d.groups.iter().find(|g| g.name == "apps").expect("apps");
    assert_eq!(apps.preferred_version, "v1");
    let deploy = d
        .resources_for("apps", "v1")
        .into_iter()
        .find(|r| r.plural == "deployments")
        .expect("deployments");
    assert_eq!(deploy.kind, "Deployment");
    assert_eq!(deploy.singular, "deployment");
    assert!(deploy.namespaced);
    assert!(deploy.short_names.contains(&"deploy".to_string()));
    assert!(deploy.categories.contains(&"all".to_string()));
    assert!(deploy.supports("watch") && deploy.supports("patch"));
    assert!(deploy.has_subresource("scale") && deploy.has_subresource("status"));
    let pods = d
        .resources_for("", "v1")
        .into_iter()
        .find(|r| r.plural == "pods")
        .expect("pods");
    assert!(pods.has_subresource("log"));
    let ns = d
        .resources_for("", "v1")
        .into_iter()
        .find(|r| r.plural == "namespaces")
        .expect("ns");
    assert!(!ns.namespaced);
    // The demo CRD with its short name and categories.
    let db = d
        .resources
        .iter()
        .find(|r| r.group == "demo.kubeglass.dev")
        .expect("the demo CRD");
    assert_eq!(
        (db.version.as_str(), db.kind.as_str(), db.plural.as_str()),
        ("v1alpha1", "Database", "databases")
    );
    assert_eq!(db.short_names, ["db"]);
    assert!(db.categories.contains(&"demo".to_string()));
    // Subresources are folded into their parents, never listed as resources.
    assert!(d.resources.iter().all(|r| !r.plural.contains('/')));
    assert!(d.preferred_resources().iter().all(|r| r.preferred));
}

#[test]
fn the_mapper_resolves_what_people_type() {
    let d = aggregated();
    let m = d.mapper();
    let q = |s: &str| m.resource_for(s).map(|r| r.qualified_name());
    assert_eq!(q("po").as_deref(), Some("pods"));
    assert_eq!(q("Pod").as_deref(), Some("pods"));
    assert_eq!(q("pods").as_deref(), Some("pods"));
    assert_eq!(q("deploy").as_deref(), Some("deployments.apps"));
    assert_eq!(q("deployments.apps").as_deref(), Some("deployments.apps"));
    assert_eq!(
        q("deployments.v1.apps").as_deref(),
        Some("deployments.apps")
    );
    assert_eq!(q("db").as_deref(), Some("databases.demo.kubeglass.dev"));
    assert_eq!(
        q("databases.demo.kubeglass.dev").as_deref(),
        Some("databases.demo.kubeglass.dev")
    );
    assert_eq!(
        q("crd").as_deref(),
        Some("customresourcedefinitions.apiextensions.k8s.io")
    );
    // `events` exists in core and events.k8s.io: core wins, as in kubectl.
    assert_eq!(q("events").as_deref(), Some("events"));
    assert_eq!(
        q("events.events.k8s.io").as_deref(),
        Some("events.events.k8s.io")
    );
    assert_eq!(q("nonsense"), None);
    assert_eq!(q(""), None);
    assert_eq!(
        m.resource_for_kind("apps", None, "StatefulSet")
            .map(|r| r.plural.as_str()),
        Some("statefulsets")
    );
    assert_eq!(m.kind_for("", "v1", "configmaps"), Some("ConfigMap"));
    let all: Vec<String> = m
        .category("all")
        .iter()
        .map(|r| r.qualified_name())
        .collect();
    for expected in [
        "pods",
        "services",
        "deployments.apps",
        "databases.demo.kubeglass.dev",
    ] {
        assert!(
            all.contains(&expected.to_string()),
            "{expected} in category all: {all:?}"
        );
    }
    assert!(!all.contains(&"configmaps".to_string()));
}

#[test]
fn legacy_discovery_when_the_server_has_no_aggregated_documents() {
    let server = FakeApiServer::new();
    server
        .expect_get("/api")
        .reply(Reply::json(200, fixture("legacy-api.json")));
    server
        .expect_get("/apis")
        .reply(Reply::json(200, fixture("legacy-apis.json")));
    server
        .expect_get("/api/v1")
        .reply(Reply::json(200, fixture("legacy-api-v1.json")));
    server
        .expect_get("/apis/apps/v1")
        .reply(Reply::json(200, fixture("legacy-apps-v1.json")));
    server
        .expect_get("/apis/demo.kubeglass.dev/v1alpha1")
        .reply(Reply::json(200, fixture("legacy-demo-v1alpha1.json")));
    let legacy = block_on(DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))).fetch())
        .expect("legacy discovery");
    server.verify();
    assert!(!legacy.aggregated);
    // The same facts as the aggregated documents give, for the groups both have.
    let agg = aggregated();
    for group in ["", "apps", "demo.kubeglass.dev"] {
        let mut a: Vec<_> = agg
            .resources
            .iter()
            .filter(|r| r.group == group)
            .cloned()
            .collect();
        let mut l: Vec<_> = legacy
            .resources
            .iter()
            .filter(|r| r.group == group)
            .cloned()
            .collect();
        for v in [&mut a, &mut l] {
            v.sort_by(|x, y| x.plural.cmp(&y.plural));
            for r in v.iter_mut() {
                r.subresources.sort_by(|x, y| x.name.cmp(&y.name));
                r.verbs.sort();
                for s in &mut r.subresources {
                    s.verbs.sort();
                }
            }
        }
        let names = |v: &[kubeglass_client::discovery::ResourceInfo]| {
            v.iter()
                .map(|r| {
                    (
                        r.plural.clone(),
                        r.kind.clone(),
                        r.namespaced,
                        r.short_names.clone(),
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&a), names(&l), "group {group:?}");
        let subs = |v: &[kubeglass_client::discovery::ResourceInfo]| {
            v.iter()
                .map(|r| {
                    r.subresources
                        .iter()
                        .map(|s| s.name.clone())
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(subs(&a), subs(&l), "subresources of group {group:?}");
    }
    assert_eq!(
        legacy
            .mapper()
            .resource_for("deploy")
            .map(|r| r.plural.as_str()),
        Some("deployments")
    );
}

#[test]
fn a_write_confirms_its_mapping_against_live_discovery() {
    let server = FakeApiServer::new();
    let client = DiscoveryClient::new(RestClient::new(Rc::new(server.clone())));
    let list = serde_json::json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
        {"name": "secrets", "singularName": "secret", "namespaced": true, "kind": "Secret", "verbs": ["get"]}
    ]});
    server
        .expect_get("/api/v1")
        .reply(Reply::json(200, list.clone()));
    let e = block_on(client.confirm("", "v1", "secrets", "Deployment", Some(true)))
        .expect_err("secrets are not Deployments");
    assert!(e.to_string().contains("is now Secret"), "{e}");
    server.expect_get("/api/v1").reply(Reply::json(200, list));
    block_on(client.confirm("", "v1", "secrets", "Secret", Some(true))).expect("confirmed");
    let e = block_on(client.confirm("apps/../..", "v1", "x", "X", None)).expect_err("malformed");
    assert!(e.to_string().contains("API group"), "{e}");
    server.verify();
}

// client-go ErrGroupDiscoveryFailed (legacy): a group version that answers
// 503 (an aggregated API whose backend is down) is reported on its own; every
// other group loads.
#[test]
fn a_group_version_that_fails_is_reported_and_the_rest_loads() {
    let server = FakeApiServer::new();
    server
        .expect_get("/api")
        .reply(Reply::json(200, fixture("legacy-api.json")));
    server
        .expect_get("/apis")
        .reply(Reply::json(200, fixture("legacy-apis.json")));
    server
        .expect_get("/api/v1")
        .reply(Reply::json(200, fixture("legacy-api-v1.json")));
    server
        .expect_get("/apis/apps/v1")
        .reply(Reply::json(200, fixture("legacy-apps-v1.json")));
    server
        .expect_get("/apis/demo.kubeglass.dev/v1alpha1")
        .reply(Reply::status(
            503,
            "ServiceUnavailable",
            "service unavailable",
        ));
    let d = block_on(DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))).fetch())
        .expect("discovery with one group down");
    server.verify();
    assert_eq!(d.failed.len(), 1, "{:?}", d.failed);
    assert_eq!(
        (d.failed[0].group.as_str(), d.failed[0].version.as_str()),
        ("demo.kubeglass.dev", "v1alpha1")
    );
    assert!(
        d.failed[0].reason.contains("service unavailable"),
        "{:?}",
        d.failed
    );
    assert!(
        d.mapper().resource_for("deploy").is_some(),
        "the other groups load"
    );
    assert!(d.mapper().resource_for("db").is_none());
}

// Aggregated discovery marks a group version whose APIService is down as
// Stale: reported as failed, its resources left out (client-go's
// StaleGroupVersionError).
#[test]
fn a_stale_aggregated_group_version_is_reported_and_left_out() {
    let server = FakeApiServer::new();
    let mut apis = fixture("aggregated-apis.json");
    let items = apis["items"].as_array_mut().expect("items");
    let demo = items
        .iter_mut()
        .find(|g| g["metadata"]["name"] == "demo.kubeglass.dev")
        .expect("the demo group");
    demo["versions"][0]["freshness"] = "Stale".into();
    server
        .expect_get("/api")
        .reply(Reply::json(200, fixture("aggregated-api.json")));
    server.expect_get("/apis").reply(Reply::json(200, apis));
    // The APIService says why, in its Available condition.
    server
        .expect_get("/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.demo.kubeglass.dev")
        .reply(Reply::json(
            200,
            serde_json::json!({"kind": "APIService", "status": {"conditions": [{
                "type": "Available", "status": "False", "reason": "ServiceNotFound",
                "message": "service/demo in \"default\" is not present"}]}}),
        ));
    let d = block_on(DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))).fetch())
        .expect("discovery");
    server.verify();
    assert_eq!(d.failed.len(), 1, "{:?}", d.failed);
    assert_eq!(d.failed[0].group, "demo.kubeglass.dev");
    assert!(
        d.failed[0].reason.contains("ServiceNotFound")
            && d.failed[0].reason.contains("is not present"),
        "{:?}",
        d.failed
    );
    assert!(d.mapper().resource_for("db").is_none());
    assert!(d.mapper().resource_for("po").is_some());
}

// client-go's convertAPIGroup (aggregated discovery): a stale version is
// not one of the group's versions, and the preferred version is the first
// version that is not stale, as the server orders them; the resources of
// that version are the preferred ones.
#[test]
fn the_preferred_version_is_the_first_that_is_not_stale() {
    let server = FakeApiServer::new();
    let mut apis = fixture("aggregated-apis.json");
    let items = apis["items"].as_array_mut().expect("items");
    let autoscaling = items
        .iter_mut()
        .find(|g| g["metadata"]["name"] == "autoscaling")
        .expect("autoscaling");
    assert_eq!(autoscaling["versions"][0]["version"], "v2");
    autoscaling["versions"][0]["freshness"] = "Stale".into();
    server
        .expect_get("/api")
        .reply(Reply::json(200, fixture("aggregated-api.json")));
    server.expect_get("/apis").reply(Reply::json(200, apis));
    server
        .expect_get("/apis/apiregistration.k8s.io/v1/apiservices/v2.autoscaling")
        .reply(Reply::status(404, "NotFound", "not found"));
    let d = block_on(DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))).fetch())
        .expect("discovery");
    server.verify();
    let group = d
        .groups
        .iter()
        .find(|g| g.name == "autoscaling")
        .expect("autoscaling");
    assert_eq!(group.versions, ["v1"]);
    assert_eq!(group.preferred_version, "v1");
    let hpa = d.mapper().resource_for("hpa").expect("hpa resolves");
    assert_eq!(hpa.version, "v1");
    assert!(hpa.preferred);
}

// One rule for "this is core Secrets": discovery's is_core_secrets is the
// Secret guard's is_secrets_path read from the resource's collection path.
#[test]
fn core_secrets_are_recognised_by_the_guards_rule_and_nothing_else_is() {
    let d = aggregated();
    let secrets = d.mapper().resource_for("secrets").expect("secrets");
    assert!(secrets.is_core_secrets());
    for other in ["configmaps", "pods", "serviceaccounts"] {
        assert!(
            !d.mapper()
                .resource_for(other)
                .expect(other)
                .is_core_secrets(),
            "{other}"
        );
    }
    // A CRD of another group that happens to be called secrets is not.
    let mut crd = secrets.clone();
    crd.group = "vault.example.com".into();
    assert!(!crd.is_core_secrets());
}
