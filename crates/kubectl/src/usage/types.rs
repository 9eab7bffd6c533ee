//! The words every part of the usage room shares: the versions of
//! `metrics.k8s.io`, what is polled (`Target`), an object's figures
//! (`ObjectUsage`, `Usage`, `Quantities`), a poll's state and a ring's
//! points, and the poll's constants. The ground floor: it imports nothing
//! of the room but `quantity`.

use std::time::Duration;

use super::quantity::Quantity;
use kubeglass_client::names::{self, NameError};

/// How often a target is polled: metrics-server's default resolution
/// (`--metric-resolution=15s`); asking more often returns the same sample.
pub const POLL_EVERY: Duration = Duration::from_secs(15);

/// Points kept per object: an hour at [`POLL_EVERY`].
pub const RING_POINTS: usize = 240;

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
