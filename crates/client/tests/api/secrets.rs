//! Secrets: read as metadata unless revealed, their data only through reveal, annotation values hidden in one-off metadata reads.

use super::*;

#[test]
fn secrets_are_read_as_metadata_unless_revealed() {
    use kubeglass_client::typed::SecretsApi;
    let server = FakeApiServer::new();
    let secrets = SecretsApi::new(RestClient::new(Rc::new(server.clone())), Some("shop"));
    let path = "/api/v1/namespaces/shop/secrets";
    server
        .expect_get(path)
        .header("accept", "as=PartialObjectMetadataList")
        .reply(Reply::json(
            200,
            json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
            "metadata": {}, "items": [{"metadata": {"name": "db-password", "namespace": "shop"}}]}),
        ));
    server
        .expect_get(&format!("{path}/db-password"))
        .header("accept", "as=PartialObjectMetadata;")
        .reply(Reply::json(
            200,
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"name": "db-password", "namespace": "shop"}}),
        ));
    server
        .expect_get(&format!("{path}/db-password"))
        .reply(Reply::json(
            200,
            json!({"kind": "Secret", "apiVersion": "v1",
            "metadata": {"name": "db-password"}, "data": {"password": "aHVudGVyMg=="}}),
        ));
    block_on(async {
        let list = secrets.list(&ListParams::default()).await.expect("list");
        assert_eq!(list.items[0].metadata.name.as_deref(), Some("db-password"));
        secrets.get("db-password").await.expect("metadata");
        let s = secrets.reveal("db-password").await.expect("reveal");
        assert_eq!(s.data.expect("data")["password"].0, b"hunter2");
    });
    server.verify();
}

#[test]
fn secret_data_is_read_only_through_reveal() {
    use k8s_openapi::api::core::v1::Secret;
    let server = FakeApiServer::new();
    let api: Api<Secret> = Api::namespaced(RestClient::new(Rc::new(server.clone())), "shop");
    let e = block_on(api.get("db")).expect_err("a plain GET of a Secret is refused");
    assert!(matches!(e, Error::SecretData(_)), "{e:?}");
    assert!(block_on(api.list(&ListParams::default())).is_err());
    assert!(block_on(api.watch(&WatchParams::default(), "0")).is_err());
    assert!(
        server.log().is_empty(),
        "refused before sending: {:?}",
        server.log()
    );
    // Metadata passes; a reveal passes.
    let meta = json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
        "metadata": {"name": "db", "namespace": "shop"}});
    server
        .expect_get("/api/v1/namespaces/shop/secrets/db")
        .header("accept", "as=PartialObjectMetadata")
        .reply(Reply::json(200, meta));
    block_on(api.get_metadata("db")).expect("metadata");
    server
        .expect_get("/api/v1/namespaces/shop/secrets/db")
        .reply(Reply::json(
            200,
            json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "db", "namespace": "shop"}, "data": {"password": "aHVudGVyMg=="}}),
        ));
    let s = block_on(api.reveal("db")).expect("revealed");
    assert!(s.data.is_some());
    server.verify();
}

// Every one-off read of Secret metadata hides the annotations' values (kapp
// and kubectl apply keep the Secret, data and all, in one): one object, a
// metadata list and a table page. Other kinds keep theirs.
#[test]
fn one_off_reads_of_secret_metadata_hide_annotation_values() {
    use k8s_openapi::api::core::v1::Secret;
    use kubeglass_client::rest::secrets::HIDDEN_VALUE;
    let copy = "{\"data\":{\"password\":\"aHVudGVyMg==\"}}";
    let meta = |name: &str| {
        json!({"name": name, "namespace": "shop",
               "annotations": {"kapp.k14s.io/original": copy, "team": "shop"}})
    };
    let server = FakeApiServer::new();
    let client = RestClient::new(Rc::new(server.clone()));
    let secrets: Api<Secret> = Api::namespaced(client.clone(), "shop");
    let path = "/api/v1/namespaces/shop/secrets";
    server.expect_get(&format!("{path}/db")).reply(Reply::json(
        200,
        json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta("db")}),
    ));
    server.expect_get(path).header("accept", "as=PartialObjectMetadataList").reply(Reply::json(
        200,
        json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1", "metadata": {},
               "items": [{"metadata": meta("db")}]}),
    ));
    let table = |metadata: serde_json::Value| {
        json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {},
               "columnDefinitions": [{"name": "Name", "type": "string"}],
               "rows": [{"cells": ["db"], "object": {"metadata": metadata}}]})
    };
    server
        .expect_get(path)
        .header("accept", "as=Table")
        .reply(Reply::json(200, table(meta("db"))));
    let hidden = |a: Option<&std::collections::BTreeMap<String, String>>| {
        let a = a.expect("annotations");
        assert_eq!(a.len(), 2, "every key stays: {a:?}");
        assert!(a.values().all(|v| v == HIDDEN_VALUE), "{a:?}");
    };
    let one = block_on(secrets.get_metadata("db")).expect("metadata");
    hidden(one.metadata.annotations.as_ref());
    let list = block_on(secrets.list_metadata(&ListParams::default())).expect("list");
    hidden(list.items[0].metadata.annotations.as_ref());
    let page = block_on(secrets.list_table_rows(&ListParams::default())).expect("table");
    hidden(page.rows[0].metadata.annotations.as_ref());
    server.verify();
    // A ConfigMap's annotations are its own business.
    let cms: Api<ConfigMap> = Api::namespaced(client, "shop");
    server
        .expect_get(CMS)
        .header("accept", "as=Table")
        .reply(Reply::json(200, table(meta("settings"))));
    let page = block_on(cms.list_table_rows(&ListParams::default())).expect("table");
    let a = page.rows[0]
        .metadata
        .annotations
        .as_ref()
        .expect("annotations");
    assert_eq!(a.get("team").map(String::as_str), Some("shop"));
    server.verify();
}
