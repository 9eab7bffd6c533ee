//! PodMetricsList and NodeMetricsList read into [`ObjectUsage`]s; a malformed item is skipped, a body that is not a list is an error.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::quantity::Quantity;
use super::types::{ObjectUsage, Quantities, Target};

/// Why an answer is not a metrics list (not retryable until the server
/// answers differently: the poll reports it and asks again next time).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The body is not JSON.
    #[error("the metrics answer is not JSON: {0}")]
    Json(String),
    /// The body is JSON but not the list asked for.
    #[error("the metrics answer is not a {expected}: {found}")]
    NotAList {
        /// `PodMetricsList` or `NodeMetricsList`.
        expected: &'static str,
        /// What came instead, in a few words.
        found: String,
    },
}

/// One item as sent; only what the figures need.
#[derive(Deserialize)]
struct Item {
    metadata: Meta,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    window: Option<String>,
    /// PodMetrics only.
    #[serde(default)]
    containers: Option<Vec<Container>>,
    /// NodeMetrics only.
    #[serde(default)]
    usage: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
struct Meta {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: Option<String>,
}

#[derive(Deserialize)]
struct Container {
    name: String,
    #[serde(default)]
    usage: BTreeMap<String, String>,
}

/// The list kind a target answers with.
fn list_kind(target: &Target) -> &'static str {
    match target {
        Target::Pods(_) => "PodMetricsList",
        Target::Nodes => "NodeMetricsList",
    }
}

/// Reads the answer to a GET of `target`'s path.
///
/// It is a list when its `kind` is the one asked for, or when it has no
/// `kind` and an `items` array; `items` absent or `null` in a list of the
/// right kind is an empty sample. An item is skipped when it has no name,
/// a pod no namespace or `containers`, a node no `usage`, or when a
/// quantity is unreadable or negative: one odd object must not hide the
/// others. A missing `cpu` or `memory` reads as zero; a missing or
/// unreadable `timestamp` or `window` as `""` or 0.
pub fn decode_list(body: &[u8], target: &Target) -> Result<Vec<ObjectUsage>, DecodeError> {
    let expected = list_kind(target);
    let not_a_list = |found: String| DecodeError::NotAList { expected, found };
    let value: Value =
        serde_json::from_slice(body).map_err(|e| DecodeError::Json(e.to_string()))?;
    let Value::Object(mut map) = value else {
        return Err(not_a_list(json_type(&value).into()));
    };
    let kind = map.get("kind").and_then(Value::as_str).map(str::to_string);
    let items = match (kind.as_deref(), map.remove("items")) {
        (_, Some(Value::Array(items))) if kind.as_deref().is_none_or(|k| k == expected) => items,
        (Some(k), None | Some(Value::Null)) if k == expected => Vec::new(),
        (Some(k), _) if k != expected => return Err(not_a_list(format!("a {k}"))),
        (_, Some(other)) => {
            return Err(not_a_list(format!("its items are {}", json_type(&other))));
        }
        (_, None) => return Err(not_a_list("an object without items".into())),
    };
    Ok(items
        .into_iter()
        .filter_map(|v| Item::deserialize(v).ok())
        .filter_map(|item| object_usage(item, target))
        .collect())
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// One item's figures, or `None` if it is malformed (see [`decode_list`]).
fn object_usage(item: Item, target: &Target) -> Option<ObjectUsage> {
    if item.metadata.name.is_empty() {
        return None;
    }
    let (namespace, quantities, containers) = match target {
        Target::Pods(_) => {
            let ns = item.metadata.namespace.filter(|n| !n.is_empty())?;
            let each = item
                .containers?
                .into_iter()
                .map(|c| Some((c.name, usage_of(&c.usage)?)))
                .collect::<Option<Vec<_>>>()?;
            // Added exactly, as kubectl adds the containers' quantities.
            let sum = each
                .iter()
                .try_fold(Quantities::default(), |sum, (_, q)| sum.checked_add(*q))?;
            let containers = each.into_iter().map(|(n, q)| (n, q.usage())).collect();
            (Some(ns), sum, containers)
        }
        Target::Nodes => (None, usage_of(&item.usage?)?, Vec::new()),
    };
    Some(ObjectUsage {
        namespace,
        name: item.metadata.name,
        usage: quantities.usage(),
        quantities,
        containers,
        timestamp: item.timestamp.unwrap_or_default(),
        window_secs: item
            .window
            .as_deref()
            .and_then(go_duration_secs)
            .unwrap_or(0.0),
    })
}

/// `cpu` and `memory` of a usage map; `None` if either is unreadable or negative.
fn usage_of(map: &BTreeMap<String, String>) -> Option<Quantities> {
    let read = |key: &str| match map.get(key) {
        Some(q) => Quantity::parse(q).filter(|v| *v >= Quantity::ZERO),
        None => Some(Quantity::ZERO),
    };
    Some(Quantities {
        cpu: read("cpu")?,
        memory: read("memory")?,
    })
}

/// A Go `time.Duration` as its `String` writes it ("15.123s", "1m0s",
/// "1h2m3.5s", "500ms", "0s"; apimachinery's `metav1.Duration` sends
/// that), in seconds.
pub fn go_duration_secs(s: &str) -> Option<f64> {
    let (negative, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(0.0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, tail) = rest.split_at(n);
        if !number.bytes().any(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: f64 = number.parse().ok()?;
        let u = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, next) = tail.split_at(u);
        let scale = match unit {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += v * scale;
        rest = next;
    }
    Some(if negative { -total } else { total })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pods(items: Value) -> Vec<u8> {
        json!({"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1",
               "metadata": {}, "items": items})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn usage_go_durations_read_as_seconds() {
        for (s, want) in [
            ("15.123s", 15.123),
            ("1m0s", 60.0),
            ("1h2m3.5s", 3723.5),
            ("500ms", 0.5),
            ("0s", 0.0),
            ("0", 0.0),
            ("20µs", 0.00002),
            ("-1s", -1.0),
        ] {
            let got = go_duration_secs(s).expect(s);
            assert!((got - want).abs() < 1e-9, "{s}: {got}");
        }
        for s in ["", "s", "15", "1.2.3s", "1d", "1m0", "abc", "-"] {
            assert_eq!(go_duration_secs(s), None, "{s:?}");
        }
    }

    #[test]
    fn usage_pod_list_decodes_with_container_sums() {
        let body = pods(json!([{
        "metadata": {"name": "web-1", "namespace": "shop"},
        "timestamp": "2024-05-01T10:00:00Z", "window": "15.123s",
        "containers": [
            {"name": "app", "usage": {"cpu": "250m", "memory": "100Mi"}},
            {"name": "sidecar", "usage": {"cpu": "1500000n", "memory": "327680Ki"}}
        ]}]));
        let got = decode_list(&body, &Target::Pods(Some("shop".into()))).expect("a list");
        assert_eq!(got.len(), 1);
        let p = &got[0];
        assert_eq!(p.key(), "shop/web-1");
        assert_eq!(p.timestamp, "2024-05-01T10:00:00Z");
        assert!((p.window_secs - 15.123).abs() < 1e-9);
        assert_eq!(p.containers.len(), 2);
        assert_eq!(p.containers[1].0, "sidecar");
        assert!((p.usage.cpu_millis - 251.5).abs() < 1e-9);
        assert_eq!(p.usage.memory_bytes, 100.0 * 1048576.0 + 335_544_320.0);
    }

    #[test]
    fn usage_a_pods_containers_are_added_exactly_as_kubectl_adds_them() {
        // As f64 millicores 0.33 + 0.56 + 0.11 is 1.0000000000000002,
        // which kubectl's rounding up would print as 2m; kubectl says 1m.
        let body = pods(json!([{
        "metadata": {"name": "web-1", "namespace": "shop"},
        "containers": [
            {"name": "a", "usage": {"cpu": "330000n", "memory": "1048575"}},
            {"name": "b", "usage": {"cpu": "560000n", "memory": "0.5"}},
            {"name": "c", "usage": {"cpu": "110000n", "memory": "0.5"}}
        ]}]));
        let got = decode_list(&body, &Target::Pods(None)).expect("a list");
        let q = got[0].quantities;
        assert_eq!(q.cpu.nanos(), 1_000_000);
        assert_eq!(super::super::quantity::top_cpu(q.cpu), "1m");
        assert_eq!(super::super::quantity::top_memory(q.memory), "1Mi");
        assert_eq!(got[0].usage.cpu_millis, 1.0);
        assert_eq!(got[0].usage.memory_bytes, 1_048_576.0);
    }

    #[test]
    fn usage_node_list_decodes() {
        let body = json!({"kind": "NodeMetricsList", "items": [
            {"metadata": {"name": "kwok-node-0"}, "timestamp": "t", "window": "1m0s",
             "usage": {"cpu": "2", "memory": "1Gi"}}]})
        .to_string();
        let got = decode_list(body.as_bytes(), &Target::Nodes).expect("a list");
        assert_eq!(got[0].key(), "kwok-node-0");
        assert_eq!(got[0].namespace, None);
        assert!(got[0].containers.is_empty());
        assert_eq!(got[0].usage.cpu_millis, 2000.0);
        assert_eq!(got[0].usage.memory_bytes, 1_073_741_824.0);
        assert_eq!(got[0].window_secs, 60.0);
    }

    #[test]
    fn usage_malformed_items_are_skipped_not_fatal() {
        let good = json!({"metadata": {"name": "ok", "namespace": "a"},
                          "containers": [{"name": "c", "usage": {"cpu": "1m"}}]});
        let body = pods(json!([
            good,
            {"metadata": {"namespace": "a"}, "containers": []},
            {"metadata": {"name": "no-ns"}, "containers": []},
            {"metadata": {"name": "no-containers", "namespace": "a"}},
            {"metadata": {"name": "bad-cpu", "namespace": "a"},
             "containers": [{"name": "c", "usage": {"cpu": "lots"}}]},
            {"metadata": {"name": "negative", "namespace": "a"},
             "containers": [{"name": "c", "usage": {"memory": "-1Mi"}}]},
            {"metadata": {"name": "number", "namespace": "a"},
             "containers": [{"name": "c", "usage": {"cpu": 5}}]},
            "not an object",
            {"metadata": {"name": "odd-window", "namespace": "a"}, "window": "soon",
             "containers": []}
        ]));
        let got = decode_list(&body, &Target::Pods(None)).expect("a list");
        let keys: Vec<String> = got.iter().map(ObjectUsage::key).collect();
        assert_eq!(keys, ["a/ok", "a/odd-window"]);
        assert_eq!(got[0].usage.memory_bytes, 0.0, "a missing memory is zero");
        assert_eq!(got[1].window_secs, 0.0);
        let node = json!({"kind": "NodeMetricsList", "items": [{"metadata": {"name": "n"}}]});
        let got = decode_list(node.to_string().as_bytes(), &Target::Nodes).expect("a list");
        assert!(got.is_empty(), "a node without usage is skipped");
    }

    #[test]
    fn usage_a_body_that_is_not_a_list_is_an_error_with_words() {
        let t = Target::Pods(None);
        let cases: [(&[u8], &str); 6] = [
            (b"<html>proxy error</html>", "not JSON"),
            (b"[1, 2]", "not a PodMetricsList: an array"),
            (br#"{"kind": "Status"}"#, "not a PodMetricsList: a Status"),
            (
                br#"{"kind": "NodeMetricsList", "items": []}"#,
                "a NodeMetricsList",
            ),
            (br#"{"items": {"a": 1}}"#, "its items are an object"),
            (br#"{"metadata": {}}"#, "an object without items"),
        ];
        for (body, words) in cases {
            let e = decode_list(body, &t).expect_err("not a list");
            assert!(e.to_string().contains(words), "{e}");
        }
        let empty = br#"{"kind": "PodMetricsList", "items": null}"#;
        assert_eq!(decode_list(empty, &t), Ok(Vec::new()));
        assert_eq!(decode_list(br#"{"items": []}"#, &t), Ok(Vec::new()));
    }
}
