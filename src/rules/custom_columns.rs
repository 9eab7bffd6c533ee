//! A table's columns of your own: kubectl's `custom-columns`
//! (`kubeglass_kubectl::columns`) as text cells appended to each Table row
//! after the server's (and the usage columns), so they sort and filter as
//! the server's do.

use std::collections::HashMap;
use std::rc::Rc;

use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::rest::table::{TableColumn, TableRowObject};
use kubeglass_kubectl::columns::{Column, cell};
use serde_json::Value;

/// The format that marks a column as one of the person's own.
pub const CUSTOM_FORMAT: &str = "kubeglass-custom";

/// Is `c` one of the person's own columns?
pub fn is_custom_column(c: &TableColumn) -> bool {
    c.format == CUSTOM_FORMAT
}

/// The custom columns a table shows, and each object's cells by key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CustomCells {
    /// Each column's header and expression, in order.
    pub headers: Vec<(String, String)>,
    /// Each object's cells, by `namespace/name` (set through
    /// [`CustomCells::set`] and [`CustomCells::remove`], which keep `counts`).
    cells: HashMap<String, Rc<[String]>>,
    /// Which columns hold numbers only (they then sort as numbers):
    /// see [`CustomCells::refresh_numeric`].
    pub numeric: Vec<bool>,
    /// Per column: how many cells hold a value, and how many of those are
    /// not numbers, kept as cells come and go so that a frame's few
    /// changes do not read every row again.
    counts: Vec<(usize, usize)>,
}

impl CustomCells {
    /// `before` (the server's columns and any usage columns) with the
    /// custom columns after them.
    pub fn columns(&self, before: &[TableColumn]) -> Vec<TableColumn> {
        let mut cols: Vec<TableColumn> = before
            .iter()
            .filter(|c| !is_custom_column(c))
            .cloned()
            .collect();
        cols.extend(
            self.headers
                .iter()
                .enumerate()
                .map(|(i, (name, expression))| TableColumn {
                    name: name.clone(),
                    type_: if self.numeric.get(i).copied().unwrap_or(false) {
                        "number"
                    } else {
                        "string"
                    }
                    .into(),
                    format: CUSTOM_FORMAT.into(),
                    description: format!("your column: {expression}"),
                    priority: 0,
                }),
        );
        cols
    }

    /// The columns `headers` (header, expression), with no cells yet.
    pub fn with_headers(headers: Vec<(String, String)>) -> Self {
        Self {
            counts: vec![(0, 0); headers.len()],
            headers,
            ..Self::default()
        }
    }

    /// The cells of the object under `key`.
    pub fn set(&mut self, key: String, cells: Rc<[String]>) {
        self.count(&cells, true);
        if let Some(old) = self.cells.insert(key, cells) {
            self.count(&old, false);
        }
    }

    /// The object under `key` is gone.
    pub fn remove(&mut self, key: &str) {
        if let Some(old) = self.cells.remove(key) {
            self.count(&old, false);
        }
    }

    fn count(&mut self, cells: &[String], add: bool) {
        if self.counts.len() < self.headers.len() {
            self.counts.resize(self.headers.len(), (0, 0));
        }
        for (v, (values, others)) in cells.iter().zip(self.counts.iter_mut()) {
            if v.is_empty() || v.as_str() == kubeglass_kubectl::columns::NONE {
                continue;
            }
            let other = v.parse::<f64>().is_err();
            if add {
                *values += 1;
                *others += usize::from(other);
            } else {
                *values -= 1;
                *others -= usize::from(other);
            }
        }
    }

    /// Marks each column numeric when every cell that has a value (not
    /// `<none>`) reads as a number and one does: `RESTARTS` then sorts 9
    /// before 10. From the counts kept as cells came and went, so it reads
    /// no row.
    pub fn refresh_numeric(&mut self) {
        self.numeric = (0..self.headers.len())
            .map(|i| {
                let (values, others) = self.counts.get(i).copied().unwrap_or((0, 0));
                values > 0 && others == 0
            })
            .collect();
    }

    /// The custom cells of the row under `key` (empty ones for an object
    /// not read yet).
    pub fn tail(&self, key: &str) -> Vec<Value> {
        match self.cells.get(key) {
            Some(c) => c.iter().map(|s| Value::String(s.clone())).collect(),
            None => self
                .headers
                .iter()
                .map(|_| Value::String(String::new()))
                .collect(),
        }
    }
}

/// `row` with `tail` after its first `n` cells (the server's): the same row,
/// not a copy, when it holds them already, else one copy. The usage
/// columns' cells and the person's own go through here together, so a row
/// is copied at most once per change.
pub fn with_tail(row: Rc<TableRowObject>, n: usize, tail: Vec<Value>) -> Rc<TableRowObject> {
    let now = &row.row.cells;
    if now.len() == n + tail.len() && now[n.min(now.len())..] == tail[..] {
        return row;
    }
    let mut new = (*row).clone();
    new.row.cells.truncate(n);
    new.row.cells.extend(tail);
    Rc::new(new)
}

/// `row` with the usage columns' cells and then the person's own after its
/// first `n` cells (the server's), through [`with_tail`].
pub fn with_cells(
    row: Rc<TableRowObject>,
    n: usize,
    usage: &crate::rules::usage::UsageCells,
    custom: &CustomCells,
) -> Rc<TableRowObject> {
    let key = kubeglass_client::cache::object_key(row.as_ref());
    let tail = [usage.tail(&key), custom.tail(&key)].concat();
    with_tail(row, n, tail)
}

/// One object's cells for `columns`, as kubectl prints them. A list's
/// items come without `apiVersion` and `kind` (a watch's with them), so
/// both are set from the resource, as kubectl's decoding sets them.
pub fn object_cells(
    columns: &[Column],
    (api_version, kind): (&str, &str),
    object: &DynamicObject,
) -> Rc<[String]> {
    let mut value = serde_json::to_value(object).unwrap_or(Value::Null);
    if let Some(o) = value.as_object_mut() {
        o.insert("apiVersion".into(), Value::String(api_version.into()));
        o.insert("kind".into(), Value::String(kind.into()));
    }
    columns.iter().map(|c| cell(c, &value)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass_kubectl::columns::parse_spec;
    use serde_json::json;

    fn row(name: &str, cells: Vec<Value>) -> Rc<TableRowObject> {
        Rc::new(
            serde_json::from_value(json!({
                "cells": cells, "object": {"metadata": {"name": name, "namespace": "shop"}}
            }))
            .expect("a row"),
        )
    }

    #[test]
    fn custom_cells_follow_the_others_and_replace_themselves() {
        let object: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"containers": [{"image": "a:1"}, {"image": "b:2"}]}
        }))
        .expect("a pod");
        let columns =
            parse_spec("IMAGE:.spec.containers[*].image,NODE:.spec.nodeName").expect("spec");
        let mut custom = CustomCells {
            headers: columns
                .iter()
                .map(|c| (c.header.clone(), c.expression.clone()))
                .collect(),
            ..Default::default()
        };
        custom.set(
            "shop/web".into(),
            object_cells(&columns, ("v1", "Pod"), &object),
        );
        let server = vec![TableColumn {
            name: "Name".into(),
            type_: "string".into(),
            format: "name".into(),
            description: String::new(),
            priority: 0,
        }];
        let cols = custom.columns(&custom.columns(&server));
        let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["Name", "IMAGE", "NODE"],
            "applied twice, the columns are there once"
        );
        let r = with_tail(row("web", vec![json!("web")]), 1, custom.tail("shop/web"));
        assert_eq!(
            r.row.cells,
            vec![json!("web"), json!("a:1,b:2"), json!("<none>")]
        );
        let again = with_tail(r.clone(), 1, custom.tail("shop/web"));
        assert!(
            Rc::ptr_eq(&r, &again),
            "a row that holds them is not copied"
        );
        let unknown = with_tail(
            row("other", vec![json!("other")]),
            1,
            custom.tail("shop/other"),
        );
        assert_eq!(
            unknown.row.cells,
            vec![json!("other"), json!(""), json!("")]
        );
        let off = with_tail(r, 1, CustomCells::default().tail("shop/web"));
        assert_eq!(
            off.row.cells,
            vec![json!("web")],
            "turned off, the cells go"
        );
    }

    #[test]
    fn a_column_of_numbers_only_sorts_as_numbers() {
        let columns = parse_spec("RESTARTS:.r,NODE:.n").expect("spec");
        let mut custom = CustomCells {
            headers: columns
                .iter()
                .map(|c| (c.header.clone(), c.expression.clone()))
                .collect(),
            ..Default::default()
        };
        let cells =
            |a: &str, b: &str| -> Rc<[String]> { Rc::from(vec![a.to_string(), b.to_string()]) };
        custom.set("shop/web".into(), cells("a:1", "<none>"));
        custom.refresh_numeric();
        assert_eq!(custom.numeric, [false, false]);
        custom.remove("shop/web");
        custom.set("shop/a".into(), cells("10", "<none>"));
        custom.set("shop/b".into(), cells("9", "<none>"));
        custom.refresh_numeric();
        assert_eq!(
            custom.numeric,
            [true, false],
            "numbers sort as numbers; no value is not a number"
        );
        assert_eq!(custom.columns(&[])[0].type_, "number");
        // Kept as cells change: a value that is not a number, then gone.
        custom.set("shop/b".into(), cells("nine", "<none>"));
        custom.refresh_numeric();
        assert_eq!(custom.numeric, [false, false]);
        custom.set("shop/b".into(), cells("9", "<none>"));
        custom.refresh_numeric();
        assert_eq!(custom.numeric, [true, false]);
        custom.set("shop/c".into(), cells("x", "<none>"));
        custom.remove("shop/c");
        custom.refresh_numeric();
        assert_eq!(custom.numeric, [true, false]);
        custom.remove("shop/a");
        custom.remove("shop/b");
        custom.refresh_numeric();
        assert_eq!(custom.numeric, [false, false], "no value, no numbers");
    }
}
