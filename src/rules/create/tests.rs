use serde_json::json;

use super::*;

#[test]
fn documents_split_at_dashes_lists_expand_and_each_bad_one_fails_alone() {
    let text = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: flags
  namespace: shop
data:
  a: \"1\"
---
# a comment only
---
apiVersion: v1
kind: List
items:
- apiVersion: demo.kubeglass.dev/v1
  kind: Database
  metadata: {name: orders}
- apiVersion: v1
  kind: ConfigMap
  metadata: {generateName: x-}
---
kind: ConfigMap
metadata: {name: nope}
";
    let docs = documents(text).expect("it reads");
    assert_eq!(docs.len(), 4);
    let first = docs[0].as_ref().expect("a ConfigMap");
    assert_eq!(
        (first.number, first.first_line, first.namespace.as_deref()),
        (1, 1, Some("shop"))
    );
    assert_eq!(first.label(Some("shop")), "ConfigMap shop/flags");
    let db = docs[1].as_ref().expect("the List's first item");
    assert_eq!(
        (
            db.kind.as_str(),
            db.name.as_str(),
            db.namespace.as_deref(),
            db.first_line
        ),
        ("Database", "orders", None, 11)
    );
    let generated = docs[2].as_ref().expect_err("no name");
    assert_eq!(
        generated.message,
        "document 3: metadata.name is needed here (generateName is not supported)"
    );
    let typeless = docs[3].as_ref().expect_err("no apiVersion");
    assert_eq!(
        (typeless.line, typeless.message.as_str()),
        (Some(21), "document 4: an object needs apiVersion and kind")
    );
}

#[test]
fn text_that_does_not_read_fails_whole_with_its_place() {
    let e = documents("a: b\n---\nc: [d\n").expect_err("unclosed");
    assert!(e.line.is_some() && e.column.is_some(), "{e:?}");
}

#[test]
fn a_field_the_server_names_is_found_in_its_document() {
    let docs = documents("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: -1\n").expect("reads");
    let web = docs[1].as_ref().expect("a Deployment");
    assert_eq!(web.line_of("spec.replicas"), Some(10));
    // A Deployment without spec.selector: the server names a field the text
    // lacks, and it is placed at its parent's line.
    assert_eq!(web.line_of("spec.selector"), Some(9));
}

#[test]
fn a_create_review_lists_every_field_marks_the_servers_and_hides_secret_values() {
    let sent = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "shop"},
                      "spec": {"containers": [{"name": "c", "image": "i"}]}});
    let mut result = sent.clone();
    result["metadata"]["uid"] = json!("u-1");
    result["metadata"]["creationTimestamp"] = json!("2026-12-05T00:00:00Z");
    result["spec"]["containers"][0]["resources"] = json!({"limits": {"cpu": "500m"}});
    result["status"] = json!({"phase": "Pending"});
    let rows: Vec<(String, bool)> = review_create(&sent, &result, false)
        .into_iter()
        .map(|r| (r.change.path, r.by_server))
        .collect();
    assert_eq!(
        rows,
        [
            ("metadata.name".to_string(), false),
            ("metadata.namespace".into(), false),
            ("spec.containers[0].image".into(), false),
            ("spec.containers[0].name".into(), false),
            ("spec.containers[0].resources.limits.cpu".into(), true),
        ]
    );
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "c2VjcmV0"}});
    let shown = review_create(&secret, &secret, true);
    let value = shown
        .iter()
        .find(|r| r.change.path == "data.k")
        .and_then(|r| r.change.new.clone());
    assert_eq!(value, Some(json!(HIDDEN)));
}
