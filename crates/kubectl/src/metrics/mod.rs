//! CPU and memory use from `metrics.k8s.io` (what `kubectl top` reads, at the version it would read), polled and shared per target.
//!
//! The metrics API serves PodMetrics and NodeMetrics from metrics-server,
//! an aggregated API behind the apiserver. It has no watch: figures are
//! samples that metrics-server takes every 15 s, so the only way to follow
//! them is to ask again. [`MetricsPolls`] does that the way
//! [`kubeglass_client::cache::InformerFactory`] shares watches: one poll per
//! [`Target`] however many views hold a [`PollRef`], started by the first
//! holder and stopped when the last lets go.
//!
//! - `quantity` reads resource quantities exactly, and writes them as
//!   `kubectl top` does and as short words;
//! - `decode` reads PodMetricsList and NodeMetricsList, skipping what is
//!   malformed;
//! - `history` keeps a bounded ring of [`Point`]s per object;
//! - `poll` runs the polls and shares them; each asks the group's
//!   discovery first which version to read ([`Version::first_served`],
//!   kubectl's choice).
//!
//! metrics-server leaves out an object it has no figures for (a pod that
//! just started, a node with no running pod: it drops zeros, and a CPU rate
//! needs two scrapes), so an object missing from a sample is normal: it
//! only gets no new point.
//!
//! # The polls and their rules
//!
//! This module reads `metrics.k8s.io` (PodMetrics and
//! NodeMetrics, what `kubectl top` reads). That API has no watch, so it is
//! polled: `MetricsPolls` keeps one poll per `Target` (pods in a namespace,
//! pods in all namespaces, nodes) the way `InformerFactory` keeps one watch,
//! and views hold a `PollRef`. The first hold starts the poll (its first GET
//! at once), every holder shares one GET per `POLL_EVERY` (15 s,
//! metrics-server's resolution), and the last hold to drop aborts it; a later
//! hold starts afresh. Its rules:
//!
//! - The version is kubectl's choice: before its first GET a poll reads the
//!   group's discovery document (`METRICS_GROUP`, one small `APIGroup`) and
//!   takes the first version it lists, in the server's order, that kubectl
//!   reads (`Version::first_served`, kubectl's
//!   SupportedMetricsAPIVersionAvailable: `v1` where it is served, else
//!   `v1beta1`; a group that lists neither is `NotServed`). It asks again
//!   only after a not-served answer. `PollRef::version` and
//!   `PollSnapshot::version` say which.
//! - `quantity` reads resource quantities exactly (`Quantity`: whole
//!   billionths in 128 bits, a finer value rounded up as apimachinery's
//!   ParseQuantity rounds it) and as `f64` for charts (`cpu_millis`,
//!   `bytes`). A pod's figures are its containers added exactly
//!   (`Quantities`, on `ObjectUsage`, beside the `f64` `Usage`), so what
//!   `kubectl top` prints comes out to the digit: `top_cpu` is MilliValue
//!   (a fraction of a millicore rounded up), `top_memory` is `Value` (bytes
//!   rounded up) in whole `Mi` with the rest dropped, `top_share` and
//!   `top_percent` kubectl's share of allocatable cut toward zero (0 of a
//!   zero allocatable). `cpu_words` and `bytes_words` are the app's own short
//!   words (`1.5Gi`), for its graphs and right-sizing.
//! - `decode` skips a malformed item (no name, an unreadable quantity) and
//!   keeps the others; a body that is not the list asked for is an error in
//!   words. A pod's usage is the sum of its containers.
//! - `PollState` says where a poll stands: a 404 or 503 is `NotServed` (the
//!   words say to install metrics-server), a 403 `Forbidden`; both are asked
//!   again only every `NOT_SERVED_EVERY` (a minute). Any other failure is
//!   `Failed`; the last good sample stays readable through failures.
//! - `history` keeps a ring of `HISTORY_POINTS` (an hour) per object, adds
//!   no point when metrics-server has not scraped since the last poll,
//!   forgets an object unseen for `KEY_TTL_SECS`, and holds at most
//!   `MAX_TOTAL_POINTS` per poll: over that, objects missing from the latest
//!   sample go first, then the oldest points of the longest series. An object
//!   missing from a sample is normal (metrics-server drops zeros and needs
//!   two scrapes for a rate): it just gets no new point.
//! - A namespace that is not a valid name sends nothing: the poll is
//!   `Failed`.
//!
//! Tested natively in `metrics/tests.rs` against the scripted fake server and
//! the fake clock (sharing, stopping and restarting, the slow retry while not
//! served, failures keeping the last sample, history bounds, subscriptions,
//! the version read), and `quantity`'s and `decode`'s own tests (apimachinery's
//! rounding, kubectl's words, a pod's containers added exactly).

mod decode;
mod fetch;
mod history;
mod poll;
pub mod quantity;
#[cfg(test)]
mod tests;

use std::time::Duration;

pub use decode::decode_list;
pub use fetch::Read;
pub use history::{KEY_TTL_SECS, MAX_TOTAL_POINTS};
pub use poll::{LINGER, MetricsPolls, NOT_SERVED_EVERY, PollRef, PollSnapshot, PollSubscription};

use kubeglass_client::names::{self, NameError};
use quantity::Quantity;

/// How often a target is polled: metrics-server's default resolution
/// (`--metric-resolution=15s`); asking more often returns the same sample.
pub const POLL_EVERY: Duration = Duration::from_secs(15);

/// Points kept per object: an hour at [`POLL_EVERY`].
pub const HISTORY_POINTS: usize = 240;

/// The API group's discovery document (an `APIGroup`: its versions in the
/// server's order).
pub const METRICS_GROUP: &str = "/apis/metrics.k8s.io";

/// A version of `metrics.k8s.io` that `kubectl top` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Version {
    /// `v1`, served by newer metrics-servers.
    V1,
    /// `v1beta1`, served by every metrics-server.
    V1beta1,
}

impl Version {
    /// kubectl's `supportedMetricsAPIVersions`.
    pub const SUPPORTED: [Version; 2] = [Version::V1, Version::V1beta1];

    /// The version's name (`v1`, `v1beta1`).
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V1 => "v1",
            Version::V1beta1 => "v1beta1",
        }
    }

    /// kubectl's `SupportedMetricsAPIVersionAvailable`: of the versions
    /// the server lists for the group, in the server's order (its preferred
    /// first, so `v1` before `v1beta1` when it serves both), the first that
    /// kubectl reads; `None` when it lists neither.
    pub fn first_served<'a>(listed: impl IntoIterator<Item = &'a str>) -> Option<Version> {
        listed
            .into_iter()
            .find_map(|v| Self::SUPPORTED.into_iter().find(|s| s.as_str() == v))
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// CPU and memory in use, as numbers to chart and compare.
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

/// CPU and memory in use exactly as the server sent them (a pod's
/// containers added as apimachinery adds quantities): what `kubectl top`
/// prints from ([`quantity::top_cpu`], [`quantity::top_memory`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Quantities {
    /// CPU, in cores.
    pub cpu: Quantity,
    /// Memory, in bytes.
    pub memory: Quantity,
}

impl Quantities {
    /// The sum, or `None` past what a quantity holds.
    pub fn checked_add(self, o: Quantities) -> Option<Quantities> {
        Some(Quantities {
            cpu: self.cpu.checked_add(o.cpu)?,
            memory: self.memory.checked_add(o.memory)?,
        })
    }

    /// As numbers: millicores and bytes.
    pub fn usage(self) -> Usage {
        Usage {
            cpu_millis: self.cpu.scaled_f64(6),
            memory_bytes: self.memory.scaled_f64(9),
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
    /// For a pod the sum of its containers; for a node its own figure
    /// (`quantities` as numbers).
    pub usage: Usage,
    /// The same, exactly.
    pub quantities: Quantities,
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
    /// The collection's path in `version`, its namespace checked by
    /// [`names::validate_namespace`] (a namespace comes from a URL or the
    /// cluster and must not steer the path elsewhere).
    pub fn try_path(&self, version: Version) -> Result<String, NameError> {
        let api = format!("{METRICS_GROUP}/{version}");
        Ok(match self {
            Target::Pods(None) => format!("{api}/pods"),
            Target::Pods(Some(ns)) => {
                names::validate_namespace(ns)?;
                format!("{api}/namespaces/{ns}/pods")
            }
            Target::Nodes => format!("{api}/nodes"),
        })
    }

    /// The collection's path: `/apis/metrics.k8s.io/{version}/pods`,
    /// `…/namespaces/{ns}/pods` or `…/nodes`. For a namespace that is not a
    /// valid name it is empty, and the poll sends nothing: its state is
    /// [`PollState::Failed`] (see [`Target::try_path`] for the reason).
    pub fn path(&self, version: Version) -> String {
        self.try_path(version).unwrap_or_default()
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
    /// 404 (the group is not served), 503 (its APIService is not
    /// available), or a group that lists no version kubectl reads: the
    /// words say which, and to install metrics-server.
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
