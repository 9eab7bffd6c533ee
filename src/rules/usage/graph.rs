//! One object's usage over the tab's last hour as a graph: its line, and the lines of what it asked for and may use (a pod's requests and limits, a node's allocatable), on one scale, with the words beside it.

use std::collections::BTreeMap;

use kubeglass_kubectl::usage::quantity::{bytes, bytes_words, cpu_millis, cpu_words};
use kubeglass_kubectl::usage::{Point, Usage};
use serde_json::Value;

use super::{By, Capacity};

/// A graph `width` by `height` units (y down).
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// The usage line's points (empty with fewer than two).
    pub line: String,
    /// Each reference line: its name (`request`, `limit`, `allocatable`)
    /// and height.
    pub marks: Vec<(&'static str, f64)>,
    /// The latest figure and its share of each reference, in words:
    /// `401m · 80% of request 500m · 40% of limit 1000m`.
    pub words: String,
}

/// The graph of `by` over the `span` seconds up to the newest point, with
/// `refs` (name, value) drawn where they have a value; the scale's top is
/// the largest of the line and the references, and a tenth more.
pub fn graph(
    points: &[Point],
    by: By,
    refs: &[(&'static str, Option<f64>)],
    span: f64,
    width: f64,
    height: f64,
) -> Graph {
    let end = points.last().map_or(0.0, |p| p.at);
    let shown: Vec<&Point> = points.iter().filter(|p| p.at >= end - span).collect();
    let peak = shown.iter().map(|p| by.of(&p.usage)).fold(0.0, f64::max);
    let top = refs.iter().filter_map(|r| r.1).fold(peak, f64::max) * 1.1;
    let y = |v: f64| {
        if top > 0.0 {
            height - 1.0 - (height - 2.0) * v / top
        } else {
            height - 1.0
        }
    };
    let line = if shown.len() < 2 {
        String::new()
    } else {
        shown
            .iter()
            .map(|p| {
                format!(
                    "{:.1},{:.1}",
                    width * (1.0 - (end - p.at) / span),
                    y(by.of(&p.usage))
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let say = |v: f64| match by {
        By::Cpu => cpu_words(v),
        By::Memory => bytes_words(v),
    };
    let mut words = shown
        .last()
        .map_or_else(|| "no figures yet".to_string(), |p| say(by.of(&p.usage)));
    let latest = shown.last().map(|p| by.of(&p.usage));
    for (name, v) in refs {
        if let Some(v) = v {
            match latest {
                Some(now) if *v > 0.0 => {
                    words.push_str(&format!(" · {:.0}% of {name} {}", 100.0 * now / v, say(*v)))
                }
                _ => words.push_str(&format!(" · {name} {}", say(*v))),
            }
        }
    }
    let marks = refs
        .iter()
        .filter_map(|(name, v)| v.map(|v| (*name, y(v))))
        .collect();
    Graph { line, marks, words }
}

/// A pod's requests and limits, summed over its app containers: a part of
/// the requests counts when any container asks for it; a limit only when
/// every container has one (one without is unlimited, so the pod is).
pub fn pod_resources(pod: &Value) -> (Capacity, Capacity) {
    let containers = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let sum = |which: &str, key: &str, all: bool| {
        let read = |c: &Value| {
            let q = c.pointer(&format!("/resources/{which}/{key}"))?.as_str()?;
            if key == "cpu" {
                cpu_millis(q)
            } else {
                bytes(q)
            }
        };
        let values: Vec<Option<f64>> = containers.iter().map(read).collect();
        let any = values.iter().any(Option::is_some);
        let every = !values.is_empty() && values.iter().all(Option::is_some);
        (if all { every } else { any }).then(|| values.into_iter().flatten().sum())
    };
    (
        Capacity {
            cpu_millis: sum("requests", "cpu", false),
            memory_bytes: sum("requests", "memory", false),
        },
        Capacity {
            cpu_millis: sum("limits", "cpu", true),
            memory_bytes: sum("limits", "memory", true),
        },
    )
}

/// The part of `c` that `by` reads.
pub fn part(c: &Capacity, by: By) -> Option<f64> {
    match by {
        By::Cpu => c.cpu_millis,
        By::Memory => c.memory_bytes,
    }
}

/// Several pods' requests and limits together (a workload's): a part of
/// the requests when any pod asks for it; a limit only when every pod has
/// one.
pub fn pods_resources<'a>(pods: impl IntoIterator<Item = &'a Value>) -> (Capacity, Capacity) {
    let each: Vec<(Capacity, Capacity)> = pods.into_iter().map(pod_resources).collect();
    let sum = |parts: Vec<Option<f64>>, all: bool| {
        let present = if all {
            !parts.is_empty() && parts.iter().all(Option::is_some)
        } else {
            parts.iter().any(Option::is_some)
        };
        present.then(|| parts.into_iter().flatten().sum())
    };
    let requests = Capacity {
        cpu_millis: sum(each.iter().map(|(r, _)| r.cpu_millis).collect(), false),
        memory_bytes: sum(each.iter().map(|(r, _)| r.memory_bytes).collect(), false),
    };
    let limits = Capacity {
        cpu_millis: sum(each.iter().map(|(_, l)| l.cpu_millis).collect(), true),
        memory_bytes: sum(each.iter().map(|(_, l)| l.memory_bytes).collect(), true),
    };
    (requests, limits)
}

/// Several objects' series summed poll by poll (each poll stamps all
/// its points with one time): the polls that saw any of them, each with
/// the usage of those it saw (metrics-server leaves out a pod with nothing
/// to report, so a sum can dip when one is missing).
pub fn sum_points(series: &[Vec<Point>]) -> Vec<Point> {
    let mut by_poll: BTreeMap<i64, Point> = BTreeMap::new();
    for p in series.iter().flatten() {
        let slot = by_poll
            .entry((p.at * 1000.0).round() as i64)
            .or_insert(Point {
                at: p.at,
                usage: Usage::default(),
            });
        slot.usage = slot.usage + p.usage;
    }
    by_poll.into_values().collect()
}
