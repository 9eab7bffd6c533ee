//! kubectl's custom columns: the spec read as kubectl reads it, each
//! JSONPath feature evaluated, values printed as kubectl prints them, and
//! an expression that does not read says where.

use kubeglass_kubectl::columns::{NONE, Path, cell, parse_spec, print_value};
use serde_json::{Value, json};

fn pod() -> Value {
    json!({
        "metadata": {"name": "web-1", "labels": {"app": "web", "tier": "front"}},
        "spec": {"containers": [
            {"name": "app", "image": "web:2", "ports": [{"containerPort": 80}, {"containerPort": 443}]},
            {"name": "sidecar", "image": "proxy:1", "resources": {"limits": {"cpu": "500m"}}}
        ], "nodeName": "n1", "priority": 0},
        "status": {"phase": "Running", "containerStatuses": [
            {"name": "app", "ready": true, "restartCount": 3}, {"name": "sidecar", "ready": false, "restartCount": 0}]}
    })
}

fn cells(spec: &str) -> Vec<String> {
    let columns = parse_spec(spec).expect("a spec that reads");
    columns.iter().map(|c| cell(c, &pod())).collect()
}

#[test]
fn headers_and_paths_read_with_or_without_braces_and_the_leading_dot() {
    let columns =
        parse_spec("NAME:.metadata.name,IMAGE:{.spec.containers[*].image}, NODE:spec.nodeName")
            .expect("spec");
    let headers: Vec<&str> = columns.iter().map(|c| c.header.as_str()).collect();
    assert_eq!(headers, ["NAME", "IMAGE", "NODE"]);
    assert_eq!(
        cells("NAME:.metadata.name,IMAGE:{.spec.containers[*].image},NODE:spec.nodeName"),
        ["web-1", "web:2,proxy:1", "n1"]
    );
}

#[test]
fn every_jsonpath_step_kubectl_reads() {
    assert_eq!(
        cells("A:.spec.containers[0].name,B:.spec.containers[-1].name"),
        ["app", "sidecar"]
    );
    assert_eq!(
        cells("A:.spec.containers[0:1].name,B:.spec.containers[1:].image"),
        ["app", "proxy:1"]
    );
    assert_eq!(
        cells("A:.spec.containers[*].ports[*].containerPort"),
        ["80,443"]
    );
    assert_eq!(
        cells("A:.metadata.labels['app'],B:.metadata.labels.*"),
        ["web", "web,front"]
    );
    assert_eq!(cells("A:..image"), ["web:2,proxy:1"]);
    assert_eq!(
        cells("A:.spec.containers[?(@.name==\"sidecar\")].image"),
        ["proxy:1"]
    );
    assert_eq!(
        cells("A:.status.containerStatuses[?(@.restartCount > 1)].name"),
        ["app"]
    );
    assert_eq!(
        cells("A:.spec.containers[?(@.resources)].name"),
        ["sidecar"]
    );
    // A spec splits at every comma, as kubectl's does, so a union is for
    // an expression read alone.
    let union = Path::parse_relaxed(".spec.containers[0,1].name").expect("a union");
    let names: Vec<String> = union.eval(&pod()).into_iter().map(print_value).collect();
    assert_eq!(names, ["app", "sidecar"]);
    assert!(
        parse_spec("A:.spec.containers[0,1].name").is_err(),
        "kubectl splits it too"
    );
}

#[test]
fn missing_fields_are_none_and_values_print_as_kubectl_prints_them() {
    assert_eq!(
        cells("A:.spec.missing,B:.spec.containers[7].name"),
        [NONE, NONE]
    );
    assert_eq!(
        cells("A:.status.containerStatuses[*].ready,B:.spec.priority"),
        ["true,false", "0"]
    );
    assert_eq!(
        print_value(&json!({"b": 1, "a": [1, "x"]})),
        "map[a:[1 x] b:1]"
    );
    assert_eq!(print_value(&json!(0.5)), "0.5");
    // A number that is not an int64 is Go's float64, printed by %v.
    let float = |t: &str| print_value(&serde_json::from_str(t).expect("a number"));
    assert_eq!(float("2.0"), "2");
    assert_eq!(float("1e3"), "1000");
    assert_eq!(float("1500000.5"), "1.5000005e+06");
    assert_eq!(float("0.00001"), "1e-05");
    assert_eq!(float("18446744073709551615"), "1.8446744073709552e+19");
    assert_eq!(print_value(&Value::Null), "<nil>");
}

#[test]
fn escapes_and_quoted_keys_read_as_kubectl_reads_them() {
    let o =
        json!({"metadata": {"labels": {"app.kubernetes.io/name": "web", "a": {"b": "nested"}}}});
    let read = |e: &str| -> Vec<String> {
        Path::parse_relaxed(e)
            .expect("reads")
            .eval(&o)
            .into_iter()
            .map(print_value)
            .collect()
    };
    assert_eq!(read(".metadata.labels.app\\.kubernetes\\.io/name"), ["web"]);
    assert_eq!(
        read(".metadata.labels['app\\.kubernetes\\.io/name']"),
        ["web"]
    );
    assert_eq!(
        read(".metadata.labels['a.b']"),
        ["nested"],
        "kubectl reads ['a.b'] as .a.b"
    );
    let items = json!({"items": [{"x": null}, {"y": 1}]});
    let found = Path::parse_relaxed(".items[?(@.x)]")
        .expect("reads")
        .eval(&items)
        .len();
    assert_eq!(found, 1, "a key holding null exists, as kubectl reads it");
}

#[test]
fn a_spec_from_a_link_cannot_make_an_evaluation_explode() {
    assert!(
        parse_spec("X:..*")
            .expect_err("..*")
            .message
            .contains("..*")
    );
    assert!(
        parse_spec("X:..a..b..c")
            .expect_err("three ..")
            .message
            .contains("at most 2")
    );
    let wide = Value::Array((0..5000).map(|i| json!({"v": i})).collect());
    let all = Path::parse_relaxed("[*].v")
        .expect("reads")
        .eval(&wide)
        .len();
    assert_eq!(all, kubeglass_kubectl::columns::MAX_VALUES);
}

#[test]
fn a_spec_that_does_not_read_says_which_column_and_where() {
    let e = parse_spec("NAME:.metadata.name,IMAGE:.spec.containers[*.image").expect_err("unclosed");
    assert_eq!((e.column, e.at), (2, 16), "{e}");
    assert_eq!(
        e.to_string(),
        "column 2: this [ is never closed at character 17 of \".spec.containers[*.image\""
    );
    let e = parse_spec("NAME .metadata.name").expect_err("no colon");
    assert_eq!(e.message, "expected HEADER:JSONPATH");
    let e = parse_spec(":.a").expect_err("no header");
    assert_eq!(e.message, "the column has no header");
    let e = parse_spec("X:.items[abc]").expect_err("bad index");
    assert!(e.message.contains("\"abc\" is not a number"), "{e}");
    let e = parse_spec("X:.items[?(@.a ~ 1)]").expect_err("bad op");
    assert!(
        e.message.starts_with("expected ==, !=, <, <=, > or >="),
        "{e}"
    );
    let e = parse_spec("X:.a..").expect_err("nothing after ..");
    assert_eq!(e.message, "expected a field name");
}
