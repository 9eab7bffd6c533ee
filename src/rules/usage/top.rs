//! The Top page's tables as `kubectl top` prints them: CPU and memory in its words (`13m`, `700Mi`, a node's `11%` of allocatable, cut to a whole number), every listed node without figures as `<unknown>`, and what an empty sample says.
//!
//! kubectl's rules (pkg/metricsutil/metrics_printer.go, pkg/cmd/top):
//! CPU is the quantity's `MilliValue` (a fraction of a millicore rounded
//! up), memory its `Value` (bytes, rounded up) in whole mebibytes (the rest
//! dropped), a node's share `int64(used.MilliValue() /
//! allocatable.MilliValue() * 100)` (0 of a zero allocatable); the figures
//! come from [`Quantities`], exact, so the words are kubectl's to the digit.
//! Where kubectl lists nodes by name the page ranks them by CPU or memory,
//! the nodes without figures last.

use std::collections::BTreeMap;

use kubeglass_kubectl::usage::quantity::{Quantity, top_cpu, top_memory, top_percent, top_share};
use kubeglass_kubectl::usage::{ObjectUsage, PollState, Quantities, Target, Usage};

use super::{By, Capacity, state_words};
use crate::rules::filter::Test;
use crate::rules::time::Seconds;

#[cfg(test)]
mod tests;

/// What kubectl prints for a node it lists without figures, in each column.
pub const UNKNOWN: &str = "<unknown>";

/// How long a pod may run before an empty sample is news about it:
/// kubectl's `metricsCreationDelay` (metrics-server has a pod's figures
/// from its second scrape, 15 s apart, and some slack).
pub const METRICS_DELAY: Seconds = 120.0;

/// One row of the Top page.
#[derive(Clone, Debug, PartialEq)]
pub struct TopRow {
    /// `namespace/name` for a pod, the name for a node.
    pub key: String,
    pub namespace: Option<String>,
    pub name: String,
    /// The figures as numbers; None for a node listed without them.
    pub usage: Option<Usage>,
    /// As `kubectl top` prints them: `400m`, `320Mi`, or [`UNKNOWN`].
    pub cpu: String,
    pub memory: String,
    /// A node's shares of its allocatable as kubectl prints them (`11%`,
    /// or [`UNKNOWN`]); None for a pod, and for a node whose allocatable
    /// is not known (kubectl prints nothing there either).
    pub cpu_share: Option<String>,
    pub memory_share: Option<String>,
    /// The ranked value as a fraction of the first row's (for a bar).
    pub bar: f64,
    /// When metrics-server took the figures (RFC 3339, as sent; `""` if
    /// none): two reads of one sample say the same.
    pub timestamp: String,
}

/// The share of `used` in `available` (a capacity's millicores or bytes)
/// as kubectl computes it, before it is cut: a capacity is read as `f64`,
/// exact for the whole millicores and bytes nodes report.
pub fn share_of(used: Quantity, available: f64, by: By) -> f64 {
    let available_milli = match by {
        By::Cpu => available.ceil(),
        By::Memory => (available * 1000.0).ceil(),
    };
    top_share(used.milli_value(), available_milli as i128)
}

/// The objects of `sample` that pass `keep` (on their key), largest `by`
/// first (ties by key), at most `limit`; and how many passed in all.
///
/// `nodes` is given for the node table: the nodes listed, with what each
/// can allocate. Each node's shares are of it, and a listed node the
/// sample has no figures for is a row of [`UNKNOWN`]s after the others
/// (kubectl's `printMissingMetricsNodeLine`) — once there is a sample: an
/// empty one lists nothing, as kubectl lists nothing then.
pub fn rank(
    sample: &[ObjectUsage],
    by: By,
    keep: &Test,
    limit: usize,
    nodes: Option<&BTreeMap<String, Capacity>>,
) -> (Vec<TopRow>, usize) {
    let mut passed: Vec<&ObjectUsage> = sample.iter().filter(|o| keep(&o.key())).collect();
    passed.sort_by(|a, b| {
        by.of(&b.usage)
            .total_cmp(&by.of(&a.usage))
            .then_with(|| a.key().cmp(&b.key()))
    });
    let top = passed.first().map_or(0.0, |o| by.of(&o.usage));
    let mut rows: Vec<TopRow> = passed
        .into_iter()
        .map(|o| {
            let allocatable = nodes.map(|n| n.get(&o.name).copied().unwrap_or_default());
            TopRow {
                bar: if top > 0.0 {
                    by.of(&o.usage) / top
                } else {
                    0.0
                },
                ..row(o, allocatable)
            }
        })
        .collect();
    if let Some(nodes) = nodes.filter(|_| !sample.is_empty()) {
        let measured: std::collections::HashSet<&str> =
            sample.iter().map(|o| o.name.as_str()).collect();
        rows.extend(
            nodes
                .keys()
                .filter(|name| !measured.contains(name.as_str()) && keep(name))
                .map(|name| unknown(name)),
        );
    }
    let total = rows.len();
    rows.truncate(limit);
    (rows, total)
}

/// A row with figures; `allocatable` for a node.
fn row(o: &ObjectUsage, allocatable: Option<Capacity>) -> TopRow {
    let Quantities { cpu, memory } = o.quantities;
    let share = |used: Quantity, of: Option<f64>, by: By| {
        of.map(|available| top_percent(share_of(used, available, by)))
    };
    TopRow {
        key: o.key(),
        namespace: o.namespace.clone(),
        name: o.name.clone(),
        usage: Some(o.usage),
        cpu: top_cpu(cpu),
        memory: top_memory(memory),
        cpu_share: allocatable.and_then(|a| share(cpu, a.cpu_millis, By::Cpu)),
        memory_share: allocatable.and_then(|a| share(memory, a.memory_bytes, By::Memory)),
        bar: 0.0,
        timestamp: o.timestamp.clone(),
    }
}

/// A node listed without figures.
fn unknown(name: &str) -> TopRow {
    TopRow {
        key: name.to_string(),
        namespace: None,
        name: name.to_string(),
        usage: None,
        cpu: UNKNOWN.into(),
        memory: UNKNOWN.into(),
        cpu_share: Some(UNKNOWN.into()),
        memory_share: Some(UNKNOWN.into()),
        bar: 0.0,
        timestamp: String::new(),
    }
}

/// What a Top table's poll says above its rows: [`state_words`], and for a
/// good but empty sample (kind `empty`) what `kubectl top` says of one.
///
/// For nodes that is `metrics not available yet`. For pods kubectl looks
/// at the pods themselves (`verifyEmptyMetrics`): one running longer than
/// [`METRICS_DELAY`] should have figures, so it is named — `Metrics not
/// available for pod shop/web-1, age: 5m3s`, kubectl's words, followed
/// here by the next few such pods (kubectl stops at the first) — else
/// `metrics not available yet`, and with no pods at all `No resources
/// found in shop namespace.` `pods` maps each pod's key, in the scope
/// polled, to its creation time; None while the list is not in. Ages are
/// at `at`, when the sample came, in whole seconds (kubectl prints its own
/// clock's nanoseconds, which no two reads share). kubectl's `-A` looks
/// only at its context's namespace; here it is the scope shown.
pub fn top_state_words(
    state: &PollState,
    target: &Target,
    pods: Option<&BTreeMap<String, Option<Seconds>>>,
) -> Option<(&'static str, String)> {
    let PollState::Fresh { at, items: 0 } = state else {
        return state_words(state);
    };
    const YET: &str = "metrics not available yet";
    let words = match (target, pods) {
        (Target::Nodes, _) | (_, None) => YET.to_string(),
        (Target::Pods(ns), Some(pods)) if pods.is_empty() => match ns {
            Some(ns) => format!("No resources found in {ns} namespace."),
            None => "No resources found".to_string(),
        },
        (Target::Pods(_), Some(pods)) => not_available(pods, *at).unwrap_or_else(|| YET.into()),
    };
    Some(("empty", words))
}

/// The pods older than [`METRICS_DELAY`] at `at` (in the list's order),
/// the first in kubectl's words and the next two after it, the rest
/// counted; None if there are none.
fn not_available(pods: &BTreeMap<String, Option<Seconds>>, at: Seconds) -> Option<String> {
    let mut old = pods.iter().filter_map(|(key, created)| {
        let age = at - (*created)?;
        (age > METRICS_DELAY).then(|| (key, go_duration(age)))
    });
    let (key, age) = old.next()?;
    let mut words = format!("Metrics not available for pod {key}, age: {age}");
    let rest: Vec<(&String, String)> = old.collect();
    for (key, age) in rest.iter().take(2) {
        words.push_str(&format!("; nor for pod {key}, age: {age}"));
    }
    if rest.len() > 2 {
        words.push_str(&format!(
            "; nor for {} more pods older than 2 minutes",
            rest.len() - 2
        ));
    }
    Some(words)
}

/// Whole seconds as Go's `Duration.String` writes them: `45s`, `2m5s`,
/// `1h0m5s`.
fn go_duration(seconds: Seconds) -> String {
    let s = seconds.max(0.0) as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, m, s) => format!("{h}h{m}m{s}s"),
    }
}
