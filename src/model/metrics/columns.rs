//! CPU and memory columns for the pod and node tables: usage from the latest sample, and usage as a share of a pod's requests and limits or of a node's allocatable, as number cells appended to kubectl's own so they sort numerically with the rest.

use std::collections::HashMap;
use std::rc::Rc;

use kubeglass_client::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::metrics::Usage;
use kubeglass_client::metrics::quantity::{bytes_words, cpu_words};
use kubeglass_client::rest::table::{TableColumn, TableRowObject};
use serde_json::Value;

use super::Capacity;

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
    /// measure against), which sorts last.
    pub fn cells(self, usage: Option<&Usage>, against: Option<&Against>) -> Vec<Value> {
        let share = |used: Option<f64>, of: Option<f64>| match (used, of) {
            (Some(u), Some(o)) if o > 0.0 => Value::from(u / o * 100.0),
            _ => Value::Null,
        };
        let cpu = usage.map(|u| u.cpu_millis);
        let mem = usage.map(|u| u.memory_bytes);
        let num = |v: Option<f64>| v.map_or(Value::Null, Value::from);
        let first = against.map(|a| a.first).unwrap_or_default();
        let second = against.map(|a| a.second).unwrap_or_default();
        match self {
            UsageOf::Pods => vec![
                num(cpu),
                share(cpu, first.cpu_millis),
                share(cpu, second.cpu_millis),
                num(mem),
                share(mem, first.memory_bytes),
                share(mem, second.memory_bytes),
            ],
            UsageOf::Nodes => vec![
                num(cpu),
                share(cpu, first.cpu_millis),
                num(mem),
                share(mem, first.memory_bytes),
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

/// How a usage cell reads: `180m`, `320Mi`, `18%`; empty without a figure.
/// None for the server's own columns.
pub fn usage_text(column: &TableColumn, cell: Option<&Value>) -> Option<String> {
    if !is_usage_column(column) {
        return None;
    }
    let Some(v) = cell.and_then(Value::as_f64) else {
        return Some(String::new());
    };
    Some(match column.format.as_str() {
        CPU_FORMAT => cpu_words(v),
        MEMORY_FORMAT => bytes_words(v),
        _ => format!("{}%", v.round()),
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
    pub usage: HashMap<String, Usage>,
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

    /// `row` with its usage cells after its first `server_len` cells (the
    /// server's) while they are shown, and without them otherwise; the
    /// same row (not a copy) when that is what it holds already.
    pub fn row(&self, row: Rc<TableRowObject>, server_len: usize) -> Rc<TableRowObject> {
        if self.of.is_none() {
            return row;
        }
        let cells = match self.shown() {
            Some(of) => {
                let key = kubeglass_client::cache::object_key(row.as_ref());
                of.cells(self.usage.get(&key), self.against.get(&key))
            }
            None => Vec::new(),
        };
        let cells_now = &row.row.cells;
        let same = cells_now.len() == server_len + cells.len()
            && cells_now[server_len.min(cells_now.len())..] == cells[..];
        if same {
            return row;
        }
        let mut new = (*row).clone();
        new.row.cells.truncate(server_len);
        new.row.cells.extend(cells);
        Rc::new(new)
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
mod tests {
    use super::*;
    use crate::model::table::{Sort, TableModel};
    use kubeglass_client::rest::table::TableRow;

    fn row(ns: &str, name: &str) -> Rc<TableRowObject> {
        let mut r = TableRowObject {
            metadata: Default::default(),
            row: TableRow {
                cells: vec![Value::from(name), Value::from("Running")],
                object: None,
            },
        };
        r.metadata.namespace = Some(ns.into());
        r.metadata.name = Some(name.into());
        Rc::new(r)
    }

    fn server_columns() -> Vec<TableColumn> {
        ["Name", "Status"]
            .iter()
            .map(|n| TableColumn {
                name: (*n).into(),
                type_: "string".into(),
                format: if *n == "Name" {
                    "name".into()
                } else {
                    String::new()
                },
                description: String::new(),
                priority: 0,
            })
            .collect()
    }

    fn usage(cpu: f64, mem: f64) -> Usage {
        Usage {
            cpu_millis: cpu,
            memory_bytes: mem,
        }
    }

    fn pod_against(req_cpu: f64, lim_cpu: Option<f64>) -> Against {
        Against {
            first: Capacity {
                cpu_millis: Some(req_cpu),
                memory_bytes: Some(512.0 * 1024.0 * 1024.0),
            },
            second: Capacity {
                cpu_millis: lim_cpu,
                memory_bytes: None,
            },
        }
    }

    #[test]
    fn a_pods_cells_are_usage_and_its_share_of_requests_and_limits() {
        let cells = UsageOf::Pods.cells(
            Some(&usage(180.0, 256.0 * 1024.0 * 1024.0)),
            Some(&pod_against(1000.0, Some(2000.0))),
        );
        let n = |v: &Value| v.as_f64();
        assert_eq!(n(&cells[0]), Some(180.0));
        assert_eq!(n(&cells[1]), Some(18.0));
        assert_eq!(n(&cells[2]), Some(9.0));
        assert_eq!(n(&cells[3]), Some(256.0 * 1024.0 * 1024.0));
        assert_eq!(n(&cells[4]), Some(50.0));
        // No memory limit: no share of it.
        assert_eq!(cells[5], Value::Null);
        assert_eq!(cells.len(), UsageOf::Pods.columns().len());
    }

    #[test]
    fn no_sample_or_nothing_to_measure_against_is_null_not_zero() {
        let cells = UsageOf::Nodes.cells(None, None);
        assert!(cells.iter().all(Value::is_null), "{cells:?}");
        assert_eq!(cells.len(), UsageOf::Nodes.columns().len());
        // A zero request is no base for a share.
        let cells = UsageOf::Pods.cells(Some(&usage(5.0, 1.0)), Some(&pod_against(0.0, None)));
        assert_eq!(cells[1], Value::Null);
    }

    #[test]
    fn cells_read_like_kubectl_top() {
        let cols = UsageOf::Pods.columns();
        let text = |i: usize, v: Value| usage_text(&cols[i], Some(&v)).expect("a usage column");
        assert_eq!(text(0, Value::from(180.2)), "181m");
        assert_eq!(text(3, Value::from(335_544_320.0)), "320Mi");
        assert_eq!(text(1, Value::from(18.4)), "18%");
        assert_eq!(text(1, Value::Null), "");
        assert_eq!(
            usage_text(&server_columns()[1], Some(&Value::from(1))),
            None
        );
    }

    #[test]
    fn rows_gain_cells_only_with_a_sample_and_keep_their_identity_when_unchanged() {
        let server = server_columns();
        let mut cells = UsageCells::new(Some(UsageOf::Pods), true);
        let r = row("shop", "web-1");
        // No sample yet: no columns, the row as it came.
        assert_eq!(cells.columns(&server), server);
        assert!(Rc::ptr_eq(&cells.row(r.clone(), 2), &r));

        cells.sampled = true;
        cells.usage.insert("shop/web-1".into(), usage(400.0, 1.0));
        assert_eq!(cells.columns(&server).len(), 2 + 6);
        let with = cells.row(r.clone(), 2);
        assert_eq!(with.row.cells.len(), 8);
        assert_eq!(with.row.cells[2].as_f64(), Some(400.0));
        // Again with the same figures: the same row, not a copy.
        assert!(Rc::ptr_eq(&cells.row(with.clone(), 2), &with));
        // New figures replace the old cells, they are not appended.
        cells.usage.insert("shop/web-1".into(), usage(500.0, 1.0));
        let newer = cells.row(with.clone(), 2);
        assert_eq!(newer.row.cells.len(), 8);
        assert_eq!(newer.row.cells[2].as_f64(), Some(500.0));
        // Columns already holding ours are not doubled.
        assert_eq!(cells.columns(&cells.columns(&server)).len(), 8);

        // Off: the server's cells and columns only.
        cells.on = false;
        assert_eq!(cells.row(newer, 2).row.cells.len(), 2);
        assert_eq!(cells.columns(&cells.columns(&server)), server);
    }

    #[test]
    fn a_table_without_usage_columns_is_left_as_the_server_sends_it() {
        // Even a column that claims one of our formats (a CRD may name any).
        let mut server = server_columns();
        server[1].format = CPU_FORMAT.into();
        let cells = UsageCells::new(None, true);
        assert_eq!(cells.columns(&server), server);
        let r = row("shop", "web-1");
        assert!(Rc::ptr_eq(&cells.row(r.clone(), 1), &r));
    }

    #[test]
    fn the_cpu_column_sorts_by_number_not_by_text() {
        let mut cells = UsageCells::new(Some(UsageOf::Pods), true);
        cells.sampled = true;
        for (name, cpu) in [("a", 900.0), ("b", 1200.0), ("c", 95.0)] {
            cells.usage.insert(format!("shop/{name}"), usage(cpu, 1.0));
        }
        let mut model = TableModel::new();
        model.set_columns(cells.columns(&server_columns()));
        for name in ["a", "b", "c", "d"] {
            model.upsert(cells.row(row("shop", name), 2));
        }
        model.set_sort(Sort {
            column: Some(2),
            descending: true,
        });
        // "d" has no sample: last, in either direction.
        assert_eq!(model.order(), ["shop/b", "shop/a", "shop/c", "shop/d"]);
        model.set_sort(Sort {
            column: Some(2),
            descending: false,
        });
        assert_eq!(model.order(), ["shop/c", "shop/a", "shop/b", "shop/d"]);
    }

    #[test]
    fn a_poll_rewrites_every_rows_cells_and_their_order_at_once() {
        let server = server_columns();
        let mut cells = UsageCells::new(Some(UsageOf::Nodes), true);
        let mut model = TableModel::new();
        model.set_columns(cells.columns(&server));
        for name in ["a", "b"] {
            model.upsert(cells.row(row("", name), 2));
        }
        model.set_sort(Sort {
            column: Some(2),
            descending: true,
        });
        // Nothing sampled: nothing to rewrite.
        assert!(!model.rewrite(cells.columns(&server), |r| cells.row(r, 2)));

        cells.sampled = true;
        cells.usage.insert("a".into(), usage(100.0, 1.0));
        cells.usage.insert("b".into(), usage(200.0, 1.0));
        assert!(model.rewrite(cells.columns(&server), |r| cells.row(r, 2)));
        assert_eq!(model.columns().len(), 6);
        assert_eq!(model.order(), ["b", "a"]);
        cells.usage.insert("a".into(), usage(300.0, 1.0));
        assert!(model.rewrite(cells.columns(&server), |r| cells.row(r, 2)));
        assert_eq!(model.order(), ["a", "b"]);
        assert_eq!(
            model.get("a").expect("row a").row.cells[2].as_f64(),
            Some(300.0)
        );
        // The same figures again: nothing changes.
        assert!(!model.rewrite(cells.columns(&server), |r| cells.row(r, 2)));
    }
}
