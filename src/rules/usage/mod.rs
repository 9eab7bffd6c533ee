//! Usage (CPU and memory from metrics.k8s.io), the rules: the tables' usage columns (`columns`), graphs (`graph`), right-sizing (`sizing`), and for the Top page (named after `kubectl top`, whose words it prints) pods and nodes ranked by CPU or memory from the latest sample in `kubectl top`'s words (`top`), a node's usage as a share of what it can allocate, a poll's state in words, and a usage line over the poll's points (the tab's last hour).

use kubeglass_client::kube_core::DynamicObject;
use kubeglass_kubectl::usage::quantity::{bytes, cpu_millis};
use kubeglass_kubectl::usage::{Point, PollState, Usage};

mod columns;
mod graph;
mod sizing;
mod top;
pub use columns::{
    Against, RESOURCES_ONLY, UsageCells, UsageOf, is_usage_column, resources_only, usage_text,
};
pub use graph::{graph, part, pod_resources, pods_resources, sum_points};
pub use sizing::{Part, PodSizing, Sizing, controller, fit_words, part_words, right_size};
pub use top::{TopRow, rank, share_of, top_state_words};

#[cfg(test)]
mod tests;

/// What ranks the rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum By {
    #[default]
    Cpu,
    Memory,
}

impl By {
    fn of(self, u: &Usage) -> f64 {
        match self {
            By::Cpu => u.cpu_millis,
            By::Memory => u.memory_bytes,
        }
    }
}

/// What a node can give its pods (`status.allocatable`), each part when
/// it reads.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Capacity {
    pub cpu_millis: Option<f64>,
    pub memory_bytes: Option<f64>,
}

impl Capacity {
    /// Reads a Node's `status.allocatable`.
    pub fn from_object(node: &DynamicObject) -> Self {
        Self::from_value(&node.data)
    }

    /// Reads `status.allocatable` of a Node as JSON.
    pub fn from_value(node: &serde_json::Value) -> Self {
        let read = |k: &str| {
            node.pointer(&format!("/status/allocatable/{k}"))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        Self {
            cpu_millis: read("cpu").as_deref().and_then(cpu_millis),
            memory_bytes: read("memory").as_deref().and_then(bytes),
        }
    }
}

/// What a poll's state says above its rows, when it says something: the
/// wait for the first sample, or why there is none (a cluster without
/// metrics-server says so, with what to install).
pub fn state_words(state: &PollState) -> Option<(&'static str, String)> {
    match state {
        PollState::Fresh { .. } => None,
        PollState::Waiting => Some((
            "waiting",
            "Waiting for the first sample (metrics-server scrapes every 15 s; a new pod has figures from its second scrape).".into(),
        )),
        PollState::NotServed(w) => Some(("not-served", w.clone())),
        PollState::Forbidden(w) => Some(("forbidden", w.clone())),
        PollState::Failed(w) => Some(("failed", w.clone())),
    }
}

/// The seconds a line spans: the points it has, at least a minute (a new
/// line is drawn across, not as a dot at the end of an empty hour) and
/// at most `max`.
pub fn span(points: &[Point], max: f64) -> f64 {
    match (points.first(), points.last()) {
        (Some(a), Some(b)) => (b.at - a.at).clamp(60.0, max),
        _ => 60.0,
    }
}

/// How long `span` seconds is, for a caption: `1 min`, `12 min`, `1 h`.
pub fn span_words(span: f64) -> String {
    if span >= 3600.0 {
        "1 h".to_string()
    } else {
        format!("{} min", (span / 60.0).round().max(1.0))
    }
}

/// An SVG polyline's points for `by` over the last `span` seconds before
/// `now`, `width` by `height` units (y down, a unit's margin), scaled to the
/// largest value shown; empty with fewer than two points.
pub fn usage_line(
    points: &[Point],
    by: By,
    now: f64,
    span: f64,
    width: f64,
    height: f64,
) -> String {
    let shown: Vec<&Point> = points.iter().filter(|p| p.at >= now - span).collect();
    if shown.len() < 2 {
        return String::new();
    }
    let peak = shown.iter().map(|p| by.of(&p.usage)).fold(0.0, f64::max);
    shown
        .iter()
        .map(|p| {
            let x = width * (1.0 - (now - p.at) / span);
            let v = by.of(&p.usage);
            let y = if peak > 0.0 {
                height - 1.0 - (height - 2.0) * v / peak
            } else {
                height - 1.0
            };
            format!("{x:.1},{y:.1}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}
