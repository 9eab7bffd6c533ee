//! The rows of a live resource table by key, kept sorted incrementally and filtered on demand.
//!
//! A change moves one row: two binary searches, no re-sort.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::rc::Rc;

use kubeglass_client::cache::object_key;
use kubeglass_client::rest::table::{TableColumn, TableRowObject};

use crate::rules::time::parse_time;

/// What a column sorts by.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    /// A number (integer and number columns, and counts like `3/3` by their first part).
    Num(f64),
    /// Text, compared case-insensitively.
    Text(String),
    /// Nothing (sorts last).
    Missing,
}

impl SortValue {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (SortValue::Num(a), SortValue::Num(b)) => a.total_cmp(b),
            (SortValue::Text(a), SortValue::Text(b)) => a.cmp(b),
            (SortValue::Missing, SortValue::Missing) => Ordering::Equal,
            (SortValue::Missing, _) => Ordering::Greater,
            (_, SortValue::Missing) => Ordering::Less,
            (SortValue::Num(_), SortValue::Text(_)) => Ordering::Less,
            (SortValue::Text(_), SortValue::Num(_)) => Ordering::Greater,
        }
    }
}

/// The sort order: a column (None = namespace/name) and direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sort {
    /// Column index, or None for the object key.
    pub column: Option<usize>,
    /// Largest first.
    pub descending: bool,
}

impl Sort {
    /// The sort after a click on column `column` (None: the namespace
    /// column, which sorts by key): the same column again flips the
    /// direction, another column sorts by it ascending.
    pub fn toggled(self, column: Option<usize>) -> Sort {
        if self.column == column {
            Sort {
                column,
                descending: !self.descending,
            }
        } else {
            Sort {
                column,
                descending: false,
            }
        }
    }

    /// The arrow a column's header shows: ▲, ▼ or nothing.
    pub fn arrow(self, column: Option<usize>) -> &'static str {
        match (self.column == column, self.descending) {
            (true, false) => " ▲",
            (true, true) => " ▼",
            _ => "",
        }
    }
}

/// True for the column kubectl calls `Age` (sorted by creation time).
pub fn is_age(c: &TableColumn) -> bool {
    c.name.eq_ignore_ascii_case("age")
}

fn sort_value(row: &TableRowObject, columns: &[TableColumn], column: Option<usize>) -> SortValue {
    let Some(i) = column else {
        return SortValue::Text(object_key(row).to_lowercase());
    };
    if columns.get(i).is_some_and(is_age) {
        // Oldest last when ascending by age: sort by negated creation time.
        return row
            .metadata
            .creation_timestamp
            .as_ref()
            .map(|t| SortValue::Num(-(t.0.as_second() as f64)))
            .unwrap_or(SortValue::Missing);
    }
    let numeric = columns
        .get(i)
        .is_some_and(|c| c.type_ == "integer" || c.type_ == "number");
    match row.row.cells.get(i) {
        None | Some(serde_json::Value::Null) => SortValue::Missing,
        Some(serde_json::Value::Number(n)) => SortValue::Num(n.as_f64().unwrap_or(0.0)),
        Some(serde_json::Value::String(s)) => {
            let lead: String = s
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            match lead.parse::<f64>() {
                Ok(v) if numeric || (!lead.is_empty() && s[lead.len()..].starts_with('/')) => {
                    SortValue::Num(v)
                }
                _ if columns.get(i).is_some_and(|c| c.type_ == "date") => parse_time(s)
                    .map(|t| SortValue::Num(-t))
                    .unwrap_or_else(|| SortValue::Text(s.to_lowercase())),
                _ => SortValue::Text(s.to_lowercase()),
            }
        }
        Some(other) => SortValue::Text(other.to_string()),
    }
}

/// Rows of one resource, kept in sort order.
#[derive(Default)]
pub struct TableModel {
    rows: HashMap<String, Rc<TableRowObject>>,
    keys: HashMap<String, SortValue>,
    order: Vec<String>,
    columns: Vec<TableColumn>,
    sort: Sort,
}

impl TableModel {
    /// An empty model sorted by name.
    pub fn new() -> Self {
        Self::default()
    }

    /// The columns rows are sorted and shown by.
    pub fn columns(&self) -> &[TableColumn] {
        &self.columns
    }

    /// Sets the columns (re-sorts if they changed).
    pub fn set_columns(&mut self, columns: Vec<TableColumn>) {
        if columns != self.columns {
            self.columns = columns;
            self.resort();
        }
    }

    /// Sorts by `sort` (a full sort: only when the person asks).
    pub fn set_sort(&mut self, sort: Sort) {
        if sort != self.sort {
            self.sort = sort;
            self.resort();
        }
    }

    fn resort(&mut self) {
        let (columns, sort) = (&self.columns, self.sort);
        self.keys = self
            .rows
            .iter()
            .map(|(k, r)| (k.clone(), sort_value(r, columns, sort.column)))
            .collect();
        let keys = &self.keys;
        self.order.sort_by(|a, b| compare(keys, sort, a, b));
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        let (keys, sort) = (&self.keys, self.sort);
        self.order
            .binary_search_by(|probe| compare(keys, sort, probe, key))
    }

    /// Adds or replaces a row, moving it to its sorted place.
    pub fn upsert(&mut self, row: Rc<TableRowObject>) {
        let key = object_key(row.as_ref());
        if self.rows.contains_key(&key) {
            self.remove(&key);
        }
        let value = sort_value(&row, &self.columns, self.sort.column);
        self.keys.insert(key.clone(), value);
        self.rows.insert(key.clone(), row);
        let at = self.position(&key).unwrap_or_else(|i| i);
        self.order.insert(at, key);
    }

    /// Sets `columns` and passes every row through `f` (the same row back
    /// when it is unchanged), then sorts once: many rows change at once, as
    /// a usage poll changes them, where one upsert each would move every
    /// key twice. True when anything changed.
    pub fn rewrite(
        &mut self,
        columns: Vec<TableColumn>,
        f: impl Fn(Rc<TableRowObject>) -> Rc<TableRowObject>,
    ) -> bool {
        let mut changed = columns != self.columns;
        self.columns = columns;
        for row in self.rows.values_mut() {
            changed |= pass(row, &f);
        }
        self.resort_if(changed)
    }

    /// As [`LiveModel::rewrite`], for the rows under `keys` only: a
    /// frame's few changes pass those rows through `f`, not every row.
    pub fn rewrite_keys(
        &mut self,
        columns: Vec<TableColumn>,
        keys: &[String],
        f: impl Fn(Rc<TableRowObject>) -> Rc<TableRowObject>,
    ) -> bool {
        let mut changed = columns != self.columns;
        self.columns = columns;
        for key in keys {
            if let Some(row) = self.rows.get_mut(key) {
                changed |= pass(row, &f);
            }
        }
        self.resort_if(changed)
    }

    /// Sorts once if anything changed; says whether it did.
    fn resort_if(&mut self, changed: bool) -> bool {
        if changed {
            self.resort();
        }
        changed
    }

    /// Removes a row.
    pub fn remove(&mut self, key: &str) {
        if !self.rows.contains_key(key) {
            return;
        }
        if let Ok(at) = self.position(key) {
            self.order.remove(at);
        } else if let Some(at) = self.order.iter().position(|k| k == key) {
            self.order.remove(at);
        }
        self.rows.remove(key);
        self.keys.remove(key);
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// The row under `key`.
    pub fn get(&self, key: &str) -> Option<Rc<TableRowObject>> {
        self.rows.get(key).cloned()
    }

    /// Keys in sort order.
    pub fn order(&self) -> &[String] {
        &self.order
    }

    /// Keys in sort order whose row `keep` accepts.
    pub fn filtered(&self, keep: impl Fn(&TableRowObject) -> bool) -> Vec<String> {
        self.order
            .iter()
            .filter(|k| self.rows.get(*k).is_some_and(|r| keep(r)))
            .cloned()
            .collect()
    }
}

fn compare(keys: &HashMap<String, SortValue>, sort: Sort, a: &str, b: &str) -> Ordering {
    let missing = SortValue::Missing;
    let va = keys.get(a).unwrap_or(&missing);
    let vb = keys.get(b).unwrap_or(&missing);
    let primary = match (va, vb) {
        // Missing values stay last in both directions.
        (SortValue::Missing, SortValue::Missing) => Ordering::Equal,
        (SortValue::Missing, _) => return Ordering::Greater,
        (_, SortValue::Missing) => return Ordering::Less,
        _ => {
            let o = va.cmp(vb);
            if sort.descending { o.reverse() } else { o }
        }
    };
    primary.then_with(|| a.cmp(b))
}

/// The text a row is searched by: its key and every cell.
pub fn row_text(row: &TableRowObject) -> String {
    let mut s = object_key(row);
    for c in &row.row.cells {
        s.push(' ');
        match c {
            serde_json::Value::String(v) => s.push_str(v),
            other => s.push_str(&other.to_string()),
        }
    }
    s
}

/// Puts `row` through `f`; true when it came back another row.
fn pass(
    row: &mut Rc<TableRowObject>,
    f: impl Fn(Rc<TableRowObject>) -> Rc<TableRowObject>,
) -> bool {
    let new = f(row.clone());
    let changed = !Rc::ptr_eq(&new, row);
    *row = new;
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(name: &str, restarts: i64, status: &str) -> Rc<TableRowObject> {
        Rc::new(
            serde_json::from_value(json!({
                "cells": [name, status, restarts],
                "object": {"metadata": {"name": name, "namespace": "ns", "resourceVersion": "1",
                                        "creationTimestamp": "2026-11-30T10:00:00Z"}}
            }))
            .expect("row"),
        )
    }

    fn columns() -> Vec<TableColumn> {
        serde_json::from_value(json!([
            {"name": "Name", "type": "string"},
            {"name": "Status", "type": "string"},
            {"name": "Restarts", "type": "integer"}
        ]))
        .expect("columns")
    }

    fn names(m: &TableModel) -> Vec<String> {
        m.order()
            .iter()
            .map(|k| k.trim_start_matches("ns/").to_string())
            .collect()
    }

    #[test]
    fn rows_stay_sorted_as_they_change() {
        let mut m = TableModel::new();
        m.set_columns(columns());
        m.set_sort(Sort {
            column: Some(2),
            descending: true,
        });
        m.upsert(row("a", 1, "Running"));
        m.upsert(row("b", 5, "Running"));
        m.upsert(row("c", 3, "Pending"));
        assert_eq!(names(&m), ["b", "c", "a"]);
        m.upsert(row("a", 9, "Running"));
        assert_eq!(names(&m), ["a", "b", "c"]);
        m.remove("ns/b");
        assert_eq!(names(&m), ["a", "c"]);
        m.set_sort(Sort {
            column: Some(1),
            descending: false,
        });
        assert_eq!(names(&m), ["c", "a"]);
        m.set_sort(Sort::default());
        assert_eq!(names(&m), ["a", "c"]);
        assert_eq!(m.filtered(|r| row_text(r).contains("Pending")), ["ns/c"]);
    }

    #[test]
    fn rewriting_some_keys_passes_only_those_rows_and_sorts_once() {
        let mut m = TableModel::new();
        m.set_columns(columns());
        m.set_sort(Sort {
            column: Some(2),
            descending: false,
        });
        for (n, r) in [("a", 1), ("b", 2), ("c", 3)] {
            m.upsert(row(n, r, "Running"));
        }
        let seen = std::cell::RefCell::new(Vec::new());
        let changed = m.rewrite_keys(
            columns(),
            &["ns/c".to_string(), "ns/gone".to_string()],
            |r| {
                seen.borrow_mut().push(r.row.cells[0].clone());
                row("c", 0, "Running")
            },
        );
        assert!(changed);
        assert_eq!(seen.borrow().len(), 1, "only c's row went through");
        assert_eq!(names(&m), ["c", "a", "b"], "sorted by the new cell");
        let b = m.get("ns/b").expect("b");
        assert!(
            !m.rewrite_keys(columns(), &["ns/b".to_string()], |_| b.clone()),
            "the same row: no change"
        );
    }

    #[test]
    fn clicking_a_header_sorts_by_it_then_flips() {
        let s = Sort::default().toggled(Some(2));
        assert_eq!((s.column, s.descending), (Some(2), false));
        assert_eq!(s.arrow(Some(2)), " ▲");
        let s = s.toggled(Some(2));
        assert!(s.descending);
        assert_eq!(s.arrow(Some(2)), " ▼");
        assert_eq!(s.arrow(Some(1)), "");
        let s = s.toggled(None);
        assert_eq!((s.column, s.descending), (None, false));
    }

    #[test]
    fn many_changes_match_a_full_sort() {
        let mut m = TableModel::new();
        m.set_columns(columns());
        m.set_sort(Sort {
            column: Some(2),
            descending: false,
        });
        let mut seed = 7u64;
        for _ in 0..5000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            let n = (seed >> 33) % 300;
            if seed.is_multiple_of(5) {
                m.remove(&format!("ns/r{n}"));
            } else {
                m.upsert(row(&format!("r{n}"), (seed >> 40) as i64 % 50, "Running"));
            }
        }
        let incremental = m.order().to_vec();
        m.resort();
        assert_eq!(incremental, m.order());
    }
}
