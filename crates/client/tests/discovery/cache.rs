//! The discovery cache: fresh, stale and corrupt entries, poisoned or foreign entries, forgotten proxies, refetches, stale-while-revalidate.

use super::*;

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
