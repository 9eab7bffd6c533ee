//! Secret redaction: every informer of core Secrets is redacted, whoever asks.

use super::*;

// Secret redaction is the informer's, not the view's: an informer of core
// Secrets' metadata made with no transform at all (a view that forgot to ask)
// still never caches an annotation's value (`kubectl apply`'s and kapp's
// copies of the Secret among them),
// and one that asks for whole Secrets never sends the request (the Secret
// guard), so no data can reach its cache either.
#[test]
fn every_informer_of_core_secrets_is_redacted_whoever_asks() {
    use kubeglass_client::cache::ReflectorConfig;
    let path = "/api/v1/namespaces/ns/secrets";
    let server = FakeApiServer::new();
    let last_applied = "kubectl.kubernetes.io/last-applied-configuration";
    server
        .expect_get(path)
        .header("accept", "as=PartialObjectMetadataList")
        .reply(Reply::json(
            200,
            json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList",
                   "metadata": {"resourceVersion": "10"},
                   "items": [{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata",
                              "metadata": {"name": "db", "namespace": "ns", "resourceVersion": "5",
                                           "annotations": {
                                               last_applied: "{\"data\":{\"password\":\"aHVudGVyMg==\"}}",
                                               "kapp.k14s.io/original": "{\"data\":{\"password\":\"aHVudGVyMg==\"}}",
                                               "team": "shop"}}}]}),
        ));
    let (reply, _watch) = Reply::stream();
    server.expect_get(path).query("watch", "true").reply(reply);
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let mut options = InformerOptions::<
        kubeglass_client::kube_core::PartialObjectMeta<k8s_openapi::api::core::v1::Secret>,
    >::new(path);
    options.reflector = ReflectorConfig::new(path).metadata_only();
    options.transform = None;
    let informer = SharedInformer::new(
        RestClient::new(Rc::new(server.clone())),
        Rc::new(clock.clone()),
        options,
    );
    let mut pool = LocalPool::new();
    let i = informer.clone();
    pool.spawner()
        .spawn_local(async move { i.run().await })
        .expect("spawn");
    pool.run_until_stalled();
    let cached = informer.indexer().borrow().list();
    assert_eq!(cached.len(), 1);
    let annotations = cached[0].metadata.annotations.clone().unwrap_or_default();
    let hidden = kubeglass_client::rest::secrets::HIDDEN_VALUE;
    assert_eq!(
        annotations.get(last_applied).map(String::as_str),
        Some(hidden),
        "the Secret's copy in its annotation was cached: {annotations:?}"
    );
    assert_eq!(
        annotations.get("kapp.k14s.io/original").map(String::as_str),
        Some(hidden)
    );
    assert_eq!(annotations.get("team").map(String::as_str), Some(hidden));
    server.verify();

    // Whole Secrets: refused before any request, so the server sees none.
    let refusing = FakeApiServer::new();
    let whole = SharedInformer::new(
        RestClient::new(Rc::new(refusing.clone())),
        Rc::new(clock.clone()),
        InformerOptions::<k8s_openapi::api::core::v1::Secret>::new(path),
    );
    let w = whole.clone();
    pool.spawner()
        .spawn_local(async move { w.run().await })
        .expect("spawn");
    pool.run_until_stalled();
    assert!(refusing.log().is_empty(), "{:?}", refusing.log());
    assert!(whole.indexer().borrow().is_empty());
    let error = whole.snapshot().reflector.last_error.unwrap_or_default();
    assert!(error.contains("refused to fetch Secret data"), "{error}");
}
