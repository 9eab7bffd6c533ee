//! The usage columns: cells, their words, and how rows take them.

use super::*;
use crate::rules::table::{Sort, TableModel};
use kubeglass_client::rest::table::TableRow;
use kubeglass_client::rest::table::TableRowObject;
use std::rc::Rc;

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

/// Millicores and bytes, exactly.
fn usage(cpu: f64, mem: f64) -> Quantities {
    Quantities {
        cpu: Quantity::from_nanos((cpu * 1e6) as i128),
        memory: Quantity::from_nanos((mem * 1e9) as i128),
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
    assert_eq!(
        text(3, Value::from(1_610_612_736.0)),
        "1536Mi",
        "never in Gi"
    );
    assert_eq!(
        text(3, Value::from(2_097_151.0)),
        "1Mi",
        "whole Mi, floored"
    );
    assert_eq!(text(1, Value::from(18.4)), "18%");
    assert_eq!(text(1, Value::from(18.9)), "18%", "cut, as kubectl does");
    // The cells hold kubectl's figures: millicores and bytes rounded up.
    let cells = UsageOf::Nodes.cells(
        Some(&Quantities {
            cpu: Quantity::from_nanos(12_345_678),
            memory: Quantity::from_nanos(2_097_151_500_000_000),
        }),
        Some(&Against {
            first: Capacity {
                cpu_millis: Some(40.0),
                memory_bytes: Some(0.0),
            },
            second: Capacity::default(),
        }),
    );
    let cols = UsageOf::Nodes.columns();
    let said: Vec<String> = (0..4)
        .map(|i| usage_text(&cols[i], cells.get(i)).expect("a usage column"))
        .collect();
    assert_eq!(said, ["13m", "32%", "2Mi", "0%"]);
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
