use std::collections::BTreeMap;

use kubeglass_kubectl::usage::{Point, PollState, Usage};

use super::sizing::Fit;
use super::*;

const MI: f64 = 1024.0 * 1024.0;

#[test]
fn allocatable_reads_from_a_node() {
    let node: DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}
    }))
    .expect("a node");
    assert_eq!(
        Capacity::from_object(&node),
        Capacity {
            cpu_millis: Some(4000.0),
            memory_bytes: Some(8.0 * 1024.0 * MI)
        }
    );
}

#[test]
fn only_a_fresh_poll_says_nothing() {
    assert_eq!(state_words(&PollState::Fresh { at: 1.0, items: 3 }), None);
    assert_eq!(
        state_words(&PollState::Waiting).map(|w| w.0),
        Some("waiting")
    );
    let words = "metrics.k8s.io is not served".to_string();
    assert_eq!(
        state_words(&PollState::NotServed(words.clone())),
        Some(("not-served", words))
    );
}

#[test]
fn the_usage_line_spans_the_window_and_scales_to_its_peak() {
    let p = |at: f64, cpu: f64| Point {
        at,
        usage: Usage {
            cpu_millis: cpu,
            memory_bytes: 0.0,
        },
    };
    let points = [
        p(0.0, 999.0),
        p(3000.0, 100.0),
        p(3300.0, 200.0),
        p(3600.0, 0.0),
    ];
    // The first point is older than the last 3,600 s... of a window ending at 3,601.
    let line = usage_line(&points, By::Cpu, 3601.0, 3600.0, 120.0, 24.0);
    assert_eq!(line, "100.0,12.0 110.0,1.0 120.0,23.0");
    assert_eq!(
        usage_line(&points[..1], By::Cpu, 1.0, 3600.0, 120.0, 24.0),
        ""
    );
    assert!(
        usage_line(&points, By::Memory, 3601.0, 3600.0, 120.0, 24.0).ends_with(",23.0"),
        "all zero lies flat at the bottom"
    );
}

#[test]
fn a_pods_requests_sum_what_is_asked_and_its_limits_only_when_every_container_has_one() {
    let pod = serde_json::json!({"spec": {"containers": [
        {"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"cpu": "1", "memory": "128Mi"}}},
        {"name": "b", "resources": {"requests": {"cpu": "250m"}, "limits": {"cpu": "500m"}}},
    ]}});
    let (req, lim) = pod_resources(&pod);
    assert_eq!(
        req,
        Capacity {
            cpu_millis: Some(500.0),
            memory_bytes: Some(64.0 * MI)
        }
    );
    assert_eq!(
        lim,
        Capacity {
            cpu_millis: Some(1500.0),
            memory_bytes: None
        },
        "b has no memory limit: none for the pod"
    );
    assert_eq!(
        pod_resources(&serde_json::json!({})),
        (Capacity::default(), Capacity::default())
    );
}

#[test]
fn the_usage_columns_cache_keeps_only_what_usage_is_measured_against() {
    use kubeglass_client::kube_core::DynamicObject;
    let pod: DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "shop", "uid": "u-1", "resourceVersion": "7",
                     "labels": {"app": "web"}, "annotations": {"big": "x".repeat(4096)},
                     "managedFields": [{"manager": "kubectl"}]},
        "spec": {"nodeName": "kwok-1", "containers": [
            {"name": "a", "image": "shop:1", "env": [{"name": "A", "value": "1"}],
             "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"cpu": "1"}}},
            {"name": "b", "image": "side:1"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    }))
    .expect("pod");
    let node: DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": "kwok-1", "resourceVersion": "3"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}, "capacity": {"cpu": "4"},
                   "images": (0..20).map(|i| serde_json::json!({"names": [format!("registry.example/image-{i}:1")], "sizeBytes": i})).collect::<Vec<_>>()}
    }))
    .expect("node");
    for whole in [pod, node] {
        let trimmed = resources_only(whole.clone());
        assert_eq!(pod_resources(&trimmed.data), pod_resources(&whole.data));
        assert_eq!(
            Capacity::from_object(&trimmed),
            Capacity::from_object(&whole)
        );
        assert_eq!(
            (
                &trimmed.metadata.name,
                &trimmed.metadata.namespace,
                &trimmed.metadata.uid
            ),
            (
                &whole.metadata.name,
                &whole.metadata.namespace,
                &whole.metadata.uid
            )
        );
        assert_eq!(
            trimmed.metadata.resource_version,
            whole.metadata.resource_version
        );
        let size = |o: &DynamicObject| serde_json::to_string(o).expect("json").len();
        assert!(
            size(&trimmed) * 3 < size(&whole),
            "{}",
            serde_json::to_string(&trimmed).expect("json")
        );
        let text = serde_json::to_string(&trimmed).expect("json");
        for gone in [
            "managedFields",
            "annotations",
            "env",
            "image",
            "conditions",
            "capacity",
        ] {
            assert!(!text.contains(gone), "{gone} kept: {text}");
        }
    }
    assert!(
        Capacity::from_object(&resources_only(
            serde_json::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "2"}}}))
            .expect("node")
        ))
        .cpu_millis
            == Some(2000.0)
    );
}

#[test]
fn a_graph_scales_to_its_references_and_says_the_shares() {
    let p = |at: f64, cpu: f64| Point {
        at,
        usage: Usage {
            cpu_millis: cpu,
            memory_bytes: 0.0,
        },
    };
    let points = [p(0.0, 100.0), p(15.0, 400.0)];
    let g = graph(
        &points,
        By::Cpu,
        &[("request", Some(500.0)), ("limit", None)],
        3600.0,
        120.0,
        24.0,
    );
    assert_eq!(g.words, "400m · 80% of request 500m");
    // The top of the scale is the request and a tenth: 550m.
    assert_eq!(g.marks.len(), 1);
    assert!((g.marks[0].1 - (23.0 - 22.0 * 500.0 / 550.0)).abs() < 1e-9);
    assert!(
        g.line
            .ends_with(&format!("120.0,{:.1}", 23.0 - 22.0 * 400.0 / 550.0)),
        "{}",
        g.line
    );
    let empty = graph(
        &[],
        By::Memory,
        &[("allocatable", Some(MI))],
        3600.0,
        120.0,
        24.0,
    );
    assert_eq!(
        (empty.line.as_str(), empty.words.as_str()),
        ("", "no figures yet · allocatable 1Mi")
    );
}

#[test]
fn a_line_spans_the_points_it_has_from_a_minute_to_an_hour() {
    let p = |at: f64| Point {
        at,
        usage: Usage::default(),
    };
    assert_eq!(span(&[], 3600.0), 60.0);
    assert_eq!(
        span(&[p(0.0), p(15.0)], 3600.0),
        60.0,
        "a new line fills a minute"
    );
    assert_eq!(span(&[p(0.0), p(600.0)], 3600.0), 600.0);
    assert_eq!(span(&[p(0.0), p(7200.0)], 3600.0), 3600.0);
    assert_eq!(
        (span_words(60.0), span_words(610.0), span_words(3600.0)),
        ("1 min".into(), "10 min".into(), "1 h".into())
    );
}

#[test]
fn a_workloads_usage_is_its_pods_summed_poll_by_poll() {
    let p = |at: f64, cpu: f64| Point {
        at,
        usage: Usage {
            cpu_millis: cpu,
            memory_bytes: 2.0 * cpu,
        },
    };
    let a = vec![p(0.0, 100.0), p(15.0, 110.0), p(30.0, 120.0)];
    // b started later, and was left out of the 30 s poll.
    let b = vec![p(15.0, 5.0)];
    let sum = sum_points(&[a, b]);
    let got: Vec<(f64, f64, f64)> = sum
        .iter()
        .map(|q| (q.at, q.usage.cpu_millis, q.usage.memory_bytes))
        .collect();
    assert_eq!(
        got,
        vec![
            (0.0, 100.0, 200.0),
            (15.0, 115.0, 230.0),
            (30.0, 120.0, 240.0)
        ]
    );
    assert!(sum_points(&[]).is_empty());
}

#[test]
fn a_workloads_limit_needs_every_pod_to_have_one() {
    let pod = |cpu_req: &str, cpu_lim: Option<&str>| {
        let mut r = serde_json::json!({"requests": {"cpu": cpu_req}});
        if let Some(l) = cpu_lim {
            r["limits"] = serde_json::json!({"cpu": l});
        }
        serde_json::json!({"spec": {"containers": [{"name": "c", "resources": r}]}})
    };
    let (req, lim) = pods_resources(&[pod("100m", Some("1")), pod("200m", Some("500m"))]);
    assert_eq!(
        (req.cpu_millis, lim.cpu_millis),
        (Some(300.0), Some(1500.0))
    );
    let (_, lim) = pods_resources(&[pod("100m", Some("1")), pod("200m", None)]);
    assert_eq!(lim.cpu_millis, None);
    assert_eq!(
        pods_resources(&[]),
        (Capacity::default(), Capacity::default())
    );
}

fn sizing_pod(ns: &str, name: &str, owner: (&str, &str), cpu_request: Option<f64>) -> PodSizing {
    PodSizing {
        key: format!("{ns}/{name}"),
        namespace: ns.into(),
        owner: Some((owner.0.into(), owner.1.into())),
        requests: Capacity {
            cpu_millis: cpu_request,
            memory_bytes: None,
        },
    }
}

#[test]
fn right_sizing_groups_pods_by_workload_and_says_who_asks_too_much_or_too_little() {
    let pods = vec![
        sizing_pod("shop", "web-a1-x", ("ReplicaSet", "web-a1"), Some(100.0)),
        sizing_pod("shop", "web-a1-y", ("ReplicaSet", "web-a1"), Some(100.0)),
        sizing_pod("shop", "cart-b2-z", ("ReplicaSet", "cart-b2"), Some(500.0)),
        sizing_pod("data", "pg-0", ("StatefulSet", "pg"), Some(200.0)),
        sizing_pod("data", "orphan", ("ReplicaSet", "alone"), None),
    ];
    let mut deployments = BTreeMap::new();
    deployments.insert("shop/web-a1".to_string(), "web".to_string());
    deployments.insert("shop/cart-b2".to_string(), "cart".to_string());
    let p = |at: f64, cpu: f64| Point {
        at,
        usage: Usage {
            cpu_millis: cpu,
            memory_bytes: 0.0,
        },
    };
    let points_of = |key: &str| match key {
        "shop/web-a1-x" => vec![p(0.0, 400.0), p(15.0, 400.0)],
        "shop/web-a1-y" => vec![p(0.0, 10.0), p(15.0, 10.0)],
        "shop/cart-b2-z" => vec![p(0.0, 5.0), p(15.0, 7.0)],
        "data/pg-0" => vec![p(0.0, 150.0), p(15.0, 170.0)],
        _ => Vec::new(),
    };
    let sized = right_size(&pods, &deployments, &points_of);
    let seen: Vec<(&str, &str, usize, Fit)> = sized
        .iter()
        .map(|s| (s.kind.as_str(), s.name.as_str(), s.pods, s.cpu.fit))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("Deployment", "web", 2, Fit::Under),
            ("Deployment", "cart", 1, Fit::Over),
            ("ReplicaSet", "alone", 1, Fit::NoRequest),
            ("StatefulSet", "pg", 1, Fit::Fits),
        ]
    );
    let web = &sized[0];
    assert_eq!(
        (web.cpu.requested, web.cpu.average, web.cpu.peak),
        (Some(200.0), Some(410.0), Some(410.0))
    );
    assert_eq!(web.memory.fit, Fit::NoRequest);
    // Each of web's pods is far from its own request, one each way.
    let far: Vec<(&str, f64)> = web
        .outliers
        .iter()
        .map(|o| (o.pod.as_str(), o.share))
        .collect();
    assert_eq!(far, vec![("shop/web-a1-x", 4.0), ("shop/web-a1-y", 0.1)]);
    assert!(sized[3].outliers.is_empty());
}

#[test]
fn a_workload_with_no_figures_yet_says_so() {
    let pods = vec![sizing_pod(
        "shop",
        "new-1",
        ("StatefulSet", "new"),
        Some(100.0),
    )];
    let sized = right_size(&pods, &BTreeMap::new(), &|_| Vec::new());
    assert_eq!(
        (sized[0].cpu.fit, sized[0].cpu.average),
        (Fit::NoData, None)
    );
}
