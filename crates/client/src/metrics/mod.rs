//! CPU and memory use from `metrics.k8s.io/v1beta1` (what `kubectl top` reads), polled and shared per target.
//!
//! The metrics API serves PodMetrics and NodeMetrics from metrics-server,
//! an aggregated API behind the apiserver. It has no watch: figures are
//! samples that metrics-server takes every 15 s, so the only way to follow
//! them is to ask again. [`MetricsPolls`] does that the way
//! [`crate::cache::InformerFactory`] shares watches: one poll per
//! [`Target`] however many views hold a [`PollRef`], started by the first
//! holder and stopped when the last lets go.
//!
//! - `quantity` reads resource quantities and writes them as short words;
//! - `decode` reads PodMetricsList and NodeMetricsList, skipping what is
//!   malformed;
//! - `history` keeps a bounded ring of [`Point`]s per object;
//! - `poll` runs the polls and shares them.
//!
//! metrics-server leaves out an object it has no figures for (a pod that
//! just started, a node with no running pod: it drops zeros, and a CPU rate
//! needs two scrapes), so an object missing from a sample is normal: it
//! only gets no new point.

mod decode;
mod history;
mod poll;
pub mod quantity;
#[cfg(all(test, feature = "testing"))]
mod tests;

use std::time::Duration;

pub use decode::decode_list;
pub use history::{KEY_TTL_SECS, MAX_TOTAL_POINTS};
pub use poll::{
    LINGER, MetricsPolls, NOT_SERVED_EVERY, PollRef, PollSnapshot, PollSubscription, Read,
};

use crate::names::{self, NameError};

/// How often a target is polled: metrics-server's default resolution
/// (`--metric-resolution=15s`); asking more often returns the same sample.
pub const POLL_EVERY: Duration = Duration::from_secs(15);

/// Points kept per object: an hour at [`POLL_EVERY`].
pub const HISTORY_POINTS: usize = 240;

/// The API group's path.
pub const METRICS_API: &str = "/apis/metrics.k8s.io/v1beta1";

/// CPU and memory in use.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Usage {
    /// Millicores (1000 is one core).
    pub cpu_millis: f64,
    /// Bytes (metrics-server reports the working set).
    pub memory_bytes: f64,
}

impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(self, o: Usage) -> Usage {
        Usage {
            cpu_millis: self.cpu_millis + o.cpu_millis,
            memory_bytes: self.memory_bytes + o.memory_bytes,
        }
    }
}

/// One pod's or node's figures in one sample.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectUsage {
    /// The pod's namespace; `None` for a node.
    pub namespace: Option<String>,
    /// The pod's or node's name.
    pub name: String,
    /// For a pod the sum of its containers; for a node its own figure.
    pub usage: Usage,
    /// Per container, in the server's order; empty for nodes.
    pub containers: Vec<(String, Usage)>,
    /// When metrics-server took the sample (RFC 3339, as sent; `""` if none).
    pub timestamp: String,
    /// The span the CPU rate was measured over, in seconds (0 if not sent).
    pub window_secs: f64,
}

impl ObjectUsage {
    /// The object's key: `namespace/name` for a pod, `name` for a node
    /// (the informers' key, so rows and figures meet).
    pub fn key(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{ns}/{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// What one poll reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// PodMetrics in one namespace, or in all (`None`).
    Pods(Option<String>),
    /// NodeMetrics.
    Nodes,
}

impl Target {
    /// The collection's path, its namespace checked by
    /// [`names::validate_namespace`] (a namespace comes from a URL or the
    /// cluster and must not steer the path elsewhere).
    pub fn try_path(&self) -> Result<String, NameError> {
        Ok(match self {
            Target::Pods(None) => format!("{METRICS_API}/pods"),
            Target::Pods(Some(ns)) => {
                names::validate_namespace(ns)?;
                format!("{METRICS_API}/namespaces/{ns}/pods")
            }
            Target::Nodes => format!("{METRICS_API}/nodes"),
        })
    }

    /// The collection's path: `/apis/metrics.k8s.io/v1beta1/pods`,
    /// `…/namespaces/{ns}/pods` or `…/nodes`. For a namespace that is not a
    /// valid name it is empty, and the poll sends nothing: its state is
    /// [`PollState::Failed`] (see [`Target::try_path`] for the reason).
    pub fn path(&self) -> String {
        self.try_path().unwrap_or_default()
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Pods(Some(ns)) => write!(f, "pods in {ns}"),
            Target::Pods(None) => f.write_str("pods in all namespaces"),
            Target::Nodes => f.write_str("nodes"),
        }
    }
}

/// Where a poll stands.
#[derive(Clone, Debug, PartialEq)]
pub enum PollState {
    /// No answer yet.
    Waiting,
    /// The last poll was good: `at` is the clock's time in seconds since
    /// the epoch, `items` the objects it named.
    Fresh {
        /// When the answer came (clock seconds).
        at: f64,
        /// Objects in the sample.
        items: usize,
    },
    /// 404 (the group is not served) or 503 (its APIService is not
    /// available): the words say which, and to install metrics-server.
    /// Polled every [`NOT_SERVED_EVERY`] until it answers.
    NotServed(String),
    /// 403, with the server's message. Polled every [`NOT_SERVED_EVERY`].
    Forbidden(String),
    /// Anything else (no answer, another status, a body that is not a
    /// metrics list, a namespace that is not a name), in readable words.
    Failed(String),
}

/// One object's figures at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// When the poll's answer came (clock seconds, as in [`PollState::Fresh`]).
    pub at: f64,
    /// The figures.
    pub usage: Usage,
}
