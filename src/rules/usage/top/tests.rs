//! Top's rows and words against `kubectl top`'s: its figures to the digit, every listed node, and what an empty sample says.

use std::collections::BTreeMap;

use kubeglass_kubectl::usage::quantity::Quantity;
use kubeglass_kubectl::usage::{ObjectUsage, PollState, Quantities, Target};

use super::*;
use crate::rules::filter::{Filter, literal_compile};

const MI: f64 = 1024.0 * 1024.0;

/// A pod using `cpu` (a quantity, as metrics-server sends it) and `mem`.
fn pod(ns: &str, name: &str, cpu: &str, mem: &str) -> ObjectUsage {
    let quantities = Quantities {
        cpu: Quantity::parse(cpu).expect(cpu),
        memory: Quantity::parse(mem).expect(mem),
    };
    ObjectUsage {
        namespace: Some(ns.into()),
        name: name.into(),
        usage: quantities.usage(),
        quantities,
        containers: Vec::new(),
        timestamp: "2026-12-01T10:00:00Z".into(),
        window_secs: 15.0,
    }
}

fn node(name: &str, cpu: &str, mem: &str) -> ObjectUsage {
    ObjectUsage {
        namespace: None,
        ..pod("", name, cpu, mem)
    }
}

fn all() -> crate::rules::filter::Test {
    Filter::parse("")
        .test(literal_compile)
        .unwrap_or_else(|_| Box::new(|_| true))
}

fn allocatable(cpu: Option<f64>, mem: Option<f64>) -> Capacity {
    Capacity {
        cpu_millis: cpu,
        memory_bytes: mem,
    }
}

#[test]
fn pods_rank_by_cpu_or_memory_largest_first_and_the_filter_counts() {
    let sample = vec![
        pod("shop", "cart-1", "5m", "24Mi"),
        pod("shop", "frontend-1", "400m", "320Mi"),
        pod("data", "postgres-0", "150m", "600Mi"),
        pod("shop", "frontend-2", "400m", "320Mi"),
    ];
    let (rows, total) = rank(&sample, By::Cpu, &all(), 10, None);
    let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "shop/frontend-1",
            "shop/frontend-2",
            "data/postgres-0",
            "shop/cart-1"
        ]
    );
    assert_eq!(total, 4);
    assert_eq!(
        (rows[0].cpu.as_str(), rows[0].memory.as_str()),
        ("400m", "320Mi")
    );
    assert_eq!(
        (rows[0].cpu_share.clone(), rows[0].memory_share.clone()),
        (None, None)
    );
    assert_eq!(rows[0].bar, 1.0);
    assert!((rows[3].bar - 5.0 / 400.0).abs() < 1e-9);
    let (rows, _) = rank(&sample, By::Memory, &all(), 2, None);
    let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(
        keys,
        ["data/postgres-0", "shop/frontend-1"],
        "memory first, and only the limit"
    );
    let front = Filter::parse("FRONT")
        .test(literal_compile)
        .unwrap_or_else(|_| Box::new(|_| false));
    let (rows, total) = rank(&sample, By::Cpu, &front, 1, None);
    assert_eq!(
        (rows.len(), total),
        (1, 2),
        "one shown of the two that pass"
    );
}

#[test]
fn rows_print_cpu_and_memory_as_kubectl_top_does() {
    let sample = vec![
        pod("shop", "web-1", "12345678n", "734003200"),
        pod("shop", "web-2", "1", "1610612736"),
        pod("shop", "web-3", "0", "2097151.5"),
        pod("shop", "web-4", "1n", "1048575"),
    ];
    let (rows, _) = rank(&sample, By::Cpu, &all(), 10, None);
    let said: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| (r.name.as_str(), r.cpu.as_str(), r.memory.as_str()))
        .collect();
    assert_eq!(
        said,
        [
            ("web-2", "1000m", "1536Mi"),
            ("web-1", "13m", "700Mi"),
            ("web-4", "1m", "0Mi"),
            ("web-3", "0m", "2Mi"),
        ],
        "millicores rounded up; bytes rounded up, then whole Mi floored, never Gi"
    );
}

#[test]
fn a_nodes_shares_are_of_allocatable_cut_to_a_whole_percent() {
    let sample = vec![
        node("n1", "445m", "440Mi"),
        node("n2", "999m", "1Mi"),
        node("n3", "10m", "1Mi"),
        node("gone", "5m", "1Mi"),
    ];
    let mut nodes = BTreeMap::new();
    nodes.insert(
        "n1".to_string(),
        allocatable(Some(4000.0), Some(8192.0 * MI)),
    );
    nodes.insert("n2".to_string(), allocatable(Some(1000.0), Some(0.0)));
    nodes.insert("n3".to_string(), allocatable(None, Some(2.0 * MI)));
    let (rows, _) = rank(&sample, By::Cpu, &all(), 10, Some(&nodes));
    let shares: Vec<(&str, Option<&str>, Option<&str>)> = rows
        .iter()
        .map(|r| {
            (
                r.name.as_str(),
                r.cpu_share.as_deref(),
                r.memory_share.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        shares,
        [
            // 99.9% is 99%, as kubectl prints it: cut, not rounded.
            ("n2", Some("99%"), Some("0%")),
            // 445m of 4 cores: 11.125%; 440Mi of 8Gi: 5.37%.
            ("n1", Some("11%"), Some("5%")),
            // No CPU allocatable: no share (kubectl prints none); a zero
            // one is 0%.
            ("n3", None, Some("50%")),
            // Metrics for a node the list does not have: no shares.
            ("gone", None, None),
        ]
    );
}

#[test]
fn every_listed_node_is_a_row_and_one_without_figures_says_unknown() {
    let sample = vec![node("n2", "200m", "100Mi"), node("n1", "100m", "50Mi")];
    let mut nodes = BTreeMap::new();
    for name in ["n1", "n2", "n3", "a0"] {
        nodes.insert(
            name.to_string(),
            allocatable(Some(1000.0), Some(1000.0 * MI)),
        );
    }
    let (rows, total) = rank(&sample, By::Cpu, &all(), 10, Some(&nodes));
    let said: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.cpu.clone(),
                r.cpu_share.clone().unwrap_or_default(),
                r.memory.clone(),
                r.memory_share.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let unknown = |n: &str| {
        vec![n.to_string()]
            .into_iter()
            .chain(vec![UNKNOWN.to_string(); 4])
            .collect::<Vec<_>>()
    };
    assert_eq!(
        said,
        [
            vec![
                "n2".into(),
                "200m".into(),
                "20%".into(),
                "100Mi".into(),
                "10%".into()
            ],
            vec![
                "n1".into(),
                "100m".into(),
                "10%".into(),
                "50Mi".into(),
                "5%".into()
            ],
            unknown("a0"),
            unknown("n3"),
        ],
        "the nodes with figures ranked, then the others by name"
    );
    assert_eq!(total, 4);
    assert_eq!((rows[2].usage, rows[2].bar), (None, 0.0));
    // The filter and the limit count them too.
    let only = Filter::parse("n3")
        .test(literal_compile)
        .unwrap_or_else(|_| Box::new(|_| false));
    let (rows, total) = rank(&sample, By::Cpu, &only, 10, Some(&nodes));
    assert_eq!((rows.len(), total, rows[0].cpu.as_str()), (1, 1, UNKNOWN));
    let (rows, total) = rank(&sample, By::Cpu, &all(), 3, Some(&nodes));
    assert_eq!((rows.len(), total), (3, 4));
    // An empty sample lists nothing, as kubectl top node lists nothing.
    let (rows, total) = rank(&[], By::Cpu, &all(), 10, Some(&nodes));
    assert_eq!((rows.len(), total), (0, 0));
}

fn fresh_and_empty(at: f64) -> PollState {
    PollState::Fresh { at, items: 0 }
}

#[test]
fn an_empty_node_sample_says_metrics_not_available_yet() {
    assert_eq!(
        top_state_words(&fresh_and_empty(0.0), &Target::Nodes, None),
        Some(("empty", "metrics not available yet".to_string()))
    );
    assert_eq!(
        top_state_words(
            &PollState::Fresh { at: 0.0, items: 2 },
            &Target::Nodes,
            None
        ),
        None,
        "a sample with figures says nothing"
    );
    assert_eq!(
        top_state_words(&PollState::Waiting, &Target::Nodes, None).map(|w| w.0),
        Some("waiting")
    );
}

#[test]
fn an_empty_pod_sample_names_the_pods_older_than_two_minutes_in_kubectls_words() {
    let at = 1_000_000.0;
    let shop = Target::Pods(Some("shop".into()));
    let pods = |ages: &[(&str, f64)]| -> BTreeMap<String, Option<f64>> {
        ages.iter()
            .map(|(k, age)| (format!("shop/{k}"), Some(at - age)))
            .collect()
    };
    let say = |p: &BTreeMap<String, Option<f64>>| {
        top_state_words(&fresh_and_empty(at), &shop, Some(p)).map(|w| w.1)
    };
    // Younger than two minutes: their figures are on their way.
    assert_eq!(
        say(&pods(&[("new-a", 30.0), ("new-b", 120.0)])).as_deref(),
        Some("metrics not available yet")
    );
    // One older: kubectl names it, with its age.
    assert_eq!(
        say(&pods(&[("new", 30.0), ("web-1", 303.0)])).as_deref(),
        Some("Metrics not available for pod shop/web-1, age: 5m3s")
    );
    // Several: the first in kubectl's words, two more, the rest counted.
    let many = pods(&[
        ("a", 121.0),
        ("b", 3605.0),
        ("c", 600.0),
        ("d", 600.0),
        ("e", 600.0),
        ("f", 10.0),
    ]);
    assert_eq!(
        say(&many).as_deref(),
        Some(
            "Metrics not available for pod shop/a, age: 2m1s; nor for pod shop/b, age: 1h0m5s; \
             nor for pod shop/c, age: 10m0s; nor for 2 more pods older than 2 minutes"
        )
    );
    // No pods at all; the pod list not in yet.
    assert_eq!(
        say(&BTreeMap::new()).as_deref(),
        Some("No resources found in shop namespace.")
    );
    assert_eq!(
        top_state_words(
            &fresh_and_empty(at),
            &Target::Pods(None),
            Some(&BTreeMap::new())
        ),
        Some(("empty", "No resources found".to_string()))
    );
    assert_eq!(
        top_state_words(&fresh_and_empty(at), &shop, None),
        Some(("empty", "metrics not available yet".to_string()))
    );
}
