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
    /// Each object's cells, by `namespace/name`.
    pub cells: HashMap<String, Rc<[String]>>,
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
        cols.extend(self.headers.iter().map(|(name, expression)| TableColumn {
            name: name.clone(),
            type_: "string".into(),
            format: CUSTOM_FORMAT.into(),
            description: format!("your column: {expression}"),
            priority: 0,
        }));
        cols
    }

    /// `row` with the custom cells after its first `before_len` cells (an
    /// object not read yet has empty ones); the same row when it holds
    /// them already.
    pub fn row(&self, row: Rc<TableRowObject>, before_len: usize) -> Rc<TableRowObject> {
        let key = kubeglass_client::cache::object_key(row.as_ref());
        let cells: Vec<Value> = match self.cells.get(&key) {
            Some(c) => c.iter().map(|s| Value::String(s.clone())).collect(),
            None => self
                .headers
                .iter()
                .map(|_| Value::String(String::new()))
                .collect(),
        };
        let now = &row.row.cells;
        if now.len() == before_len + cells.len() && now[before_len.min(now.len())..] == cells[..] {
            return row;
        }
        let mut new = (*row).clone();
        new.row.cells.truncate(before_len);
        new.row.cells.extend(cells);
        Rc::new(new)
    }
}

/// One object's cells for `columns`, as kubectl prints them.
pub fn object_cells(columns: &[Column], object: &DynamicObject) -> Rc<[String]> {
    let value = serde_json::to_value(object).unwrap_or(Value::Null);
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
        custom
            .cells
            .insert("shop/web".into(), object_cells(&columns, &object));
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
        let r = custom.row(row("web", vec![json!("web")]), 1);
        assert_eq!(
            r.row.cells,
            vec![json!("web"), json!("a:1,b:2"), json!("<none>")]
        );
        let again = custom.row(r.clone(), 1);
        assert!(
            Rc::ptr_eq(&r, &again),
            "a row that holds them is not copied"
        );
        let unknown = custom.row(row("other", vec![json!("other")]), 1);
        assert_eq!(
            unknown.row.cells,
            vec![json!("other"), json!(""), json!("")]
        );
        let off = CustomCells::default().row(r, 1);
        assert_eq!(
            off.row.cells,
            vec![json!("web")],
            "turned off, the cells go"
        );
    }
}
