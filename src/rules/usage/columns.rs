//! CPU and memory columns for the pod and node tables: usage from the latest sample, and usage as a share of a pod's requests and limits or of a node's allocatable, as number cells appended to kubectl's own so they sort numerically with the rest, and read as `kubectl top` prints them.

use std::collections::HashMap;

use kubeglass_client::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::rest::table::TableColumn;
use kubeglass_kubectl::usage::Quantities;
use kubeglass_kubectl::usage::quantity::{Quantity, top_cpu, top_memory, top_percent};
use serde_json::Value;

use super::{By, Capacity, share_of};

/// A column format this app adds: millicores.
pub const CPU_FORMAT: &str = "kubeglass-cpu-millis";
/// A column format this app adds: bytes.
pub const MEMORY_FORMAT: &str = "kubeglass-memory-bytes";
/// A column format this app adds: a percentage.
pub const PERCENT_FORMAT: &str = "kubeglass-percent";

/// Which table the columns are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsageOf {
    /// Usage, and its share of the pod's requests and of its limits.
    Pods,
    /// Usage, and its share of the node's allocatable.
    Nodes,
}

/// What usage is measured against: a pod's requests and limits, or a
/// node's allocatable (and no second).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Against {
    pub first: Capacity,
    pub second: Capacity,
}

impl UsageOf {
    /// The columns appended to kubectl's (numbers, shown at every width).
    pub fn columns(self) -> Vec<TableColumn> {
        let col = |name: &str, format: &str, description: &str| TableColumn {
            name: name.into(),
            type_: "number".into(),
            format: format.into(),
            description: description.into(),
            priority: 0,
        };
        match self {
            UsageOf::Pods => vec![
                col("CPU", CPU_FORMAT, "CPU in use (metrics.k8s.io)"),
                col(
                    "%CPU/R",
                    PERCENT_FORMAT,
                    "CPU in use as a share of the pod's requests",
                ),
                col(
                    "%CPU/L",
                    PERCENT_FORMAT,
                    "CPU in use as a share of the pod's limits",
                ),
                col(
                    "MEM",
                    MEMORY_FORMAT,
                    "Memory in use, the working set (metrics.k8s.io)",
                ),
                col(
                    "%MEM/R",
                    PERCENT_FORMAT,
                    "Memory in use as a share of the pod's requests",
                ),
                col(
                    "%MEM/L",
                    PERCENT_FORMAT,
                    "Memory in use as a share of the pod's limits",
                ),
            ],
            UsageOf::Nodes => vec![
                col("CPU", CPU_FORMAT, "CPU in use (metrics.k8s.io)"),
                col(
                    "%CPU",
                    PERCENT_FORMAT,
                    "CPU in use as a share of allocatable",
                ),
                col(
                    "MEM",
                    MEMORY_FORMAT,
                    "Memory in use, the working set (metrics.k8s.io)",
                ),
                col(
                    "%MEM",
                    PERCENT_FORMAT,
                    "Memory in use as a share of allocatable",
                ),
            ],
        }
    }

    /// The cells of one row, in [`UsageOf::columns`]' order: numbers, or
    /// null where there is no figure (no sample for it yet, or nothing to
    /// measure against), which sorts last. The figures are the ones
    /// `kubectl top` prints (whole millicores rounded up, whole bytes
    /// rounded up), and the shares its shares, not yet cut to a whole
    /// number (see [`share_of`]); a pod's share of a zero request is null.
    pub fn cells(self, usage: Option<&Quantities>, against: Option<&Against>) -> Vec<Value> {
        // A node's zero allocatable is 0% (kubectl's); a pod's zero
        // request is no base for a share (the app's own columns).
        let nodes = self == UsageOf::Nodes;
        let share = |used: Option<Quantity>, of: Option<f64>, by: By| match (used, of) {
            (Some(u), Some(o)) if nodes || o > 0.0 => Value::from(share_of(u, o, by)),
            _ => Value::Null,
        };
        let cpu = usage.map(|u| u.cpu);
        let mem = usage.map(|u| u.memory);
        let num = |v: Option<i128>| v.map_or(Value::Null, |v| Value::from(v as f64));
        let first = against.map(|a| a.first).unwrap_or_default();
        let second = against.map(|a| a.second).unwrap_or_default();
        let (cpu_figure, mem_figure) = (
            num(cpu.map(Quantity::milli_value)),
            num(mem.map(Quantity::value)),
        );
        match self {
            UsageOf::Pods => vec![
                cpu_figure,
                share(cpu, first.cpu_millis, By::Cpu),
                share(cpu, second.cpu_millis, By::Cpu),
                mem_figure,
                share(mem, first.memory_bytes, By::Memory),
                share(mem, second.memory_bytes, By::Memory),
            ],
            UsageOf::Nodes => vec![
                cpu_figure,
                share(cpu, first.cpu_millis, By::Cpu),
                mem_figure,
                share(mem, first.memory_bytes, By::Memory),
            ],
        }
    }
}

/// True for a column this app adds.
pub fn is_usage_column(c: &TableColumn) -> bool {
    matches!(
        c.format.as_str(),
        CPU_FORMAT | MEMORY_FORMAT | PERCENT_FORMAT
    )
}

/// How a usage cell reads, as `kubectl top` prints it: `180m`, `320Mi`
/// (never `Gi`), `18%` (cut, not rounded); empty without a figure. None
/// for the server's own columns.
pub fn usage_text(column: &TableColumn, cell: Option<&Value>) -> Option<String> {
    if !is_usage_column(column) {
        return None;
    }
    let Some(v) = cell.and_then(Value::as_f64) else {
        return Some(String::new());
    };
    // A figure cell holds a whole number (see `UsageOf::cells`).
    let whole = |scale: i128| Quantity::from_nanos(v.max(0.0).ceil() as i128 * scale);
    Some(match column.format.as_str() {
        CPU_FORMAT => top_cpu(whole(1_000_000)),
        MEMORY_FORMAT => top_memory(whole(1_000_000_000)),
        _ => top_percent(v),
    })
}

/// The figures the columns are drawn from: the latest sample, and what each
/// object's usage is measured against, both by the informers' keys.
#[derive(Default)]
pub struct UsageCells {
    /// Which table; None for a table without usage columns (it is left as
    /// the server sends it, whatever its columns are called).
    pub of: Option<UsageOf>,
    /// Whether the person wants the columns (the toggle).
    pub on: bool,
    pub usage: HashMap<String, Quantities>,
    pub against: HashMap<String, Against>,
    /// Whether there is anything to show: a sample has arrived.
    pub sampled: bool,
}

impl UsageCells {
    /// The columns of the table `of` (on or off, no sample yet).
    pub fn new(of: Option<UsageOf>, on: bool) -> Self {
        Self {
            of,
            on,
            ..Default::default()
        }
    }

    /// The usage columns' kind while they are shown.
    fn shown(&self) -> Option<UsageOf> {
        self.of.filter(|_| self.on && self.sampled)
    }

    /// `server`'s columns, and this app's after them while they are shown.
    pub fn columns(&self, server: &[TableColumn]) -> Vec<TableColumn> {
        if self.of.is_none() {
            return server.to_vec();
        }
        let mut cols: Vec<TableColumn> = server
            .iter()
            .filter(|c| !is_usage_column(c))
            .cloned()
            .collect();
        if let Some(of) = self.shown() {
            cols.extend(of.columns());
        }
        cols
    }

    /// The usage cells of the row under `key` while they are shown (none
    /// otherwise), for a caller that puts them after the server's itself.
    pub fn tail(&self, key: &str) -> Vec<serde_json::Value> {
        match self.shown() {
            Some(of) => of.cells(self.usage.get(key), self.against.get(key)),
            None => Vec::new(),
        }
    }

    /// `row` with its usage cells after its first `server_len` cells (the
    /// server's) while they are shown, and without them otherwise; the
    /// same row (not a copy) when that is what it holds already. (The
    /// table puts them there with the person's own columns' cells through
    /// `custom_columns::with_tail`; this is that for usage alone.)
    #[cfg(test)]
    pub fn row(
        &self,
        row: std::rc::Rc<kubeglass_client::rest::table::TableRowObject>,
        server_len: usize,
    ) -> std::rc::Rc<kubeglass_client::rest::table::TableRowObject> {
        if self.of.is_none() {
            return row;
        }
        let cells = self.tail(&kubeglass_client::cache::object_key(row.as_ref()));
        crate::rules::custom_columns::with_tail(row, server_len, cells)
    }
}

/// The name the usage columns' trimmed informers are shared under.
pub const RESOURCES_ONLY: &str = "resources only";

/// A pod or node cut to what usage is measured against — each container's
/// `resources` ([`pod_resources`](super::pod_resources)) and `status.allocatable`
/// ([`Capacity::from_value`](super::Capacity::from_value)) — with its name, namespace, UID and
/// resourceVersion: the usage columns' informer caches this, not the whole
/// object (a kwok pod is ~25 KB as a JSON value, its resources a few hundred
/// bytes).
pub fn resources_only(mut o: DynamicObject) -> DynamicObject {
    let meta = std::mem::take(&mut o.metadata);
    o.metadata = ObjectMeta {
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resource_version: meta.resource_version,
        ..ObjectMeta::default()
    };
    let mut kept = serde_json::Map::new();
    if let Some(containers) = o
        .data
        .pointer_mut("/spec/containers")
        .and_then(Value::as_array_mut)
    {
        let resources: Vec<Value> = containers
            .iter_mut()
            .map(|c| {
                let r = c
                    .get_mut("resources")
                    .map(Value::take)
                    .unwrap_or(Value::Null);
                serde_json::json!({ "resources": r })
            })
            .collect();
        kept.insert(
            "spec".into(),
            serde_json::json!({ "containers": resources }),
        );
    }
    if let Some(allocatable) = o.data.pointer_mut("/status/allocatable").map(Value::take) {
        kept.insert(
            "status".into(),
            serde_json::json!({ "allocatable": allocatable }),
        );
    }
    o.data = Value::Object(kept);
    o
}

#[cfg(test)]
mod tests;
