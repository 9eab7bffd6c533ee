//! Discovery, the RESTMapper and the discovery cache, against discovery
//! documents recorded from the real kube-apiserver v1.37.2 of `hack/`
//! (tests/fixtures/, with the demo CRD installed) served by the scripted fake.

use std::rc::Rc;
use std::time::Duration;

use futures::executor::block_on;
use kubeglass_client::discovery::{
    CachedDiscovery, DISCOVERY_TTL, Discovery, DiscoveryClient, KeyValueStore, MemoryStore,
};
use kubeglass_client::rest::RestClient;
use kubeglass_client::testing::{FakeApiServer, FakeClock, Reply};

fn fixture(name: &str) -> serde_json::Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("json")
}

fn expect_aggregated(server: &FakeApiServer) {
    server
        .expect_get("/api")
        .header("accept", "as=APIGroupDiscoveryList")
        .reply(Reply::json(200, fixture("aggregated-api.json")));
    server
        .expect_get("/apis")
        .header("accept", "g=apidiscovery.k8s.io;v=v2")
        .reply(Reply::json(200, fixture("aggregated-apis.json")));
}

fn aggregated() -> Discovery {
    let server = FakeApiServer::new();
    expect_aggregated(&server);
    let d = block_on(DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))).fetch())
        .expect("discovery");
    server.verify();
    d
}

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
fn the_cache_serves_fresh_entries_refetches_stale_ones_and_drops_corrupt_ones() {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let store = MemoryStore::default();
    let cache = CachedDiscovery::new(
        DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))),
        Rc::new(store.clone()),
        Rc::new(clock.clone()),
    );
    assert!(cache.cached().is_none());
    expect_aggregated(&server);
    block_on(cache.get()).expect("first fetch");
    assert_eq!(server.log().len(), 2);
    clock.advance(DISCOVERY_TTL - Duration::from_secs(1));
    block_on(cache.get()).expect("cached");
    assert_eq!(
        server.log().len(),
        2,
        "served from the cache within 10 minutes"
    );
    assert_eq!(
        cache.cached().map(|(_, age)| age),
        Some(DISCOVERY_TTL - Duration::from_secs(1))
    );
    clock.advance(Duration::from_secs(1));
    expect_aggregated(&server);
    block_on(cache.get()).expect("refetched");
    assert_eq!(server.log().len(), 4, "refetched once stale");

    store.save(&cache.key(), "{corrupt");
    assert!(cache.cached().is_none());
    assert!(
        store.load(&cache.key()).is_none(),
        "the corrupt entry is dropped"
    );
    server.verify();
}

/// A discovery entry that maps `deployments.apps` (and `deploy`) to core
/// `secrets`, as a page that once ran on the same origin could have left it.
fn poisoned_entry(scope: &str, plural: &str) -> String {
    serde_json::json!({
        "scope": scope,
        "fetched_at_ms": 1_700_000_000_000u64,
        "discovery": {
            "groups": [{"name": "", "versions": ["v1"], "preferred_version": "v1"},
                       {"name": "apps", "versions": ["v1"], "preferred_version": "v1"}],
            "resources": [{
                "group": "", "version": "v1", "kind": "Deployment", "plural": plural,
                "singular": "deployment", "short_names": ["deploy"], "categories": [],
                "namespaced": true, "verbs": ["get", "list", "watch", "delete"],
                "subresources": [], "preferred": true
            }],
            "aggregated": true
        }
    })
    .to_string()
}

#[test]
fn a_poisoned_or_foreign_discovery_entry_is_ignored_and_refetched() {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let store = MemoryStore::default();
    // The first version's key, shared by every server on the origin.
    store.save("kubeglass.discovery.v1", &poisoned_entry("", "secrets"));
    let cache = CachedDiscovery::new(
        DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))),
        Rc::new(store.clone()),
        Rc::new(clock.clone()),
    )
    .with_scope("http://127.0.0.1:8001/0123abcd");
    assert!(
        store.load("kubeglass.discovery.v1").is_none(),
        "the shared key of the first version is removed, never read"
    );
    assert!(
        !cache.key().contains("0123abcd") && cache.key().ends_with(cache.scope()),
        "the key names the scope by its digest: {}",
        cache.key()
    );

    // Another proxy's entry copied under this scope's key.
    store.save(
        &cache.key(),
        &poisoned_entry("http://127.0.0.1:8001/other", "secrets"),
    );
    assert!(cache.cached().is_none(), "another scope's entry is foreign");
    assert!(store.load(&cache.key()).is_none(), "and dropped");

    // An entry of this scope whose plural would make another path.
    store.save(
        &cache.key(),
        &poisoned_entry(cache.scope(), "secrets/../../configmaps"),
    );
    assert!(cache.cached().is_none(), "malformed names are refused");

    // Nothing usable cached: resolving fetches the real tree.
    expect_aggregated(&server);
    let d = block_on(cache.resolve("deployments.apps"))
        .expect("resolve")
        .expect("found");
    assert_eq!(
        (d.group.as_str(), d.plural.as_str()),
        ("apps", "deployments")
    );
    server.verify();
}

#[test]
fn storing_discovery_forgets_the_entries_of_proxies_that_are_gone() {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let store = MemoryStore::default();
    let dead = "kubeglass.discovery.v2 0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f";
    store.save(
        dead,
        &poisoned_entry("http://127.0.0.1:8001/deadbeef", "deployments"),
    );
    store.save("kubeglass.wide", "1");
    let cache = CachedDiscovery::new(
        DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))),
        Rc::new(store.clone()),
        Rc::new(clock.clone()),
    )
    .with_scope("http://127.0.0.1:8001/0123abcd");
    expect_aggregated(&server);
    block_on(cache.refresh()).expect("refresh");
    server.verify();
    let mut keys = store.keys();
    keys.sort();
    assert_eq!(keys, [cache.key(), "kubeglass.wide".to_string()]);
    // The token in the base URL is in no key and no value.
    for k in store.keys() {
        let v = store.load(&k).unwrap_or_default();
        assert!(
            !k.contains("0123abcd") && !v.contains("0123abcd"),
            "the token was stored under {k}"
        );
    }
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

#[test]
fn an_unknown_name_refetches_once_so_a_new_crd_is_found() {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let cache = CachedDiscovery::new(
        DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))),
        Rc::new(MemoryStore::default()),
        Rc::new(clock.clone()),
    );
    // The cache was filled before the CRD "widgets" existed.
    expect_aggregated(&server);
    block_on(cache.get()).expect("fill");
    let mut apis = fixture("aggregated-apis.json");
    let items = apis["items"].as_array_mut().expect("items");
    let mut widget_group = items.last().expect("demo group").clone();
    widget_group["metadata"]["name"] = "widgets.example.com".into();
    let res = &mut widget_group["versions"][0]["resources"][0];
    res["resource"] = "widgets".into();
    res["singularResource"] = "widget".into();
    res["shortNames"] = serde_json::json!(["wdg"]);
    res["responseKind"] = serde_json::json!({"group": "widgets.example.com", "version": "v1alpha1", "kind": "Widget"});
    items.push(widget_group);
    server
        .expect_get("/api")
        .reply(Reply::json(200, fixture("aggregated-api.json")));
    server.expect_get("/apis").reply(Reply::json(200, apis));
    let found = block_on(cache.resolve("wdg")).expect("resolve");
    assert_eq!(found.map(|r| r.kind), Some("Widget".to_string()));
    // Known names do not refetch.
    assert!(block_on(cache.resolve("po")).expect("resolve").is_some());
    server.verify();
}

#[test]
fn stale_while_revalidate_serves_the_old_tree_and_says_so() {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let cache = CachedDiscovery::new(
        DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))),
        Rc::new(MemoryStore::default()),
        Rc::new(clock.clone()),
    );
    expect_aggregated(&server);
    let (_, stale) = block_on(cache.get_stale_while_revalidate()).expect("first");
    assert!(!stale, "just fetched");
    clock.advance(DISCOVERY_TTL);
    let (d, stale) = block_on(cache.get_stale_while_revalidate()).expect("cached");
    assert!(
        stale,
        "older than 10 minutes: the caller refreshes in the background"
    );
    assert!(d.mapper().resource_for("po").is_some());
    assert_eq!(server.log().len(), 2, "no request for the stale answer");
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

// A version the server no longer serves is gone from the cache after the
// next refresh: the stored tree is replaced, never merged with the old one.
#[test]
fn a_version_the_server_drops_is_gone_from_the_cache_after_a_refresh() {
    let server = FakeApiServer::new();
    expect_aggregated(&server);
    let mut apis = fixture("aggregated-apis.json");
    let items = apis["items"].as_array_mut().expect("items");
    let autoscaling = items
        .iter_mut()
        .find(|g| g["metadata"]["name"] == "autoscaling")
        .expect("autoscaling");
    autoscaling["versions"]
        .as_array_mut()
        .expect("versions")
        .retain(|v| v["version"] != "v2");
    server
        .expect_get("/api")
        .reply(Reply::json(200, fixture("aggregated-api.json")));
    server.expect_get("/apis").reply(Reply::json(200, apis));
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let store: Rc<dyn KeyValueStore> = Rc::new(MemoryStore::default());
    let cache = CachedDiscovery::new(
        DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))),
        store,
        Rc::new(clock.clone()),
    );
    let before = block_on(cache.get()).expect("first");
    assert!(
        before
            .resources
            .iter()
            .any(|r| r.group == "autoscaling" && r.version == "v2")
    );
    clock.advance(DISCOVERY_TTL + Duration::from_secs(1));
    block_on(cache.get()).expect("refreshed");
    let (after, _) = cache.cached().expect("stored");
    let group = after
        .groups
        .iter()
        .find(|g| g.name == "autoscaling")
        .expect("group");
    assert_eq!(group.versions, ["v1"]);
    assert_eq!(group.preferred_version, "v1");
    assert!(
        !after
            .resources
            .iter()
            .any(|r| r.group == "autoscaling" && r.version == "v2")
    );
    server.verify();
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
