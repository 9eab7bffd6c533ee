//! What a table cell shows (kubectl's text, ages from the one clock), its status colour, and the row filter (text or `/regex/`).

use crate::rules::filter::{Filter, Test};
use kubeglass_client::rest::table::{TableColumn, TableRowObject};

use crate::rules::table::{TableModel, is_age, row_text};
use crate::rules::time::{Seconds, age, parse_time};
use crate::rules::usage::usage_text;

/// The text of cell `i` (in `column`) of `row` at `now`: ages and dates
/// are shown as kubectl's short ages, from the row's creation time where
/// the column is `Age` (the server's own text is frozen at list time).
pub fn cell_text(row: &TableRowObject, i: usize, column: &TableColumn, now: Seconds) -> String {
    if let Some(t) = usage_text(column, row.row.cells.get(i)) {
        return t;
    }
    if is_age(column)
        && let Some(t) = &row.metadata.creation_timestamp
    {
        return age(now, t.0.as_second() as f64);
    }
    let text = row.row.cell_text(i).into_owned();
    if column.type_ == "date"
        && let Some(t) = parse_time(&text)
    {
        return age(now, t);
    }
    text
}

/// The colour class of a status-like cell (`Status`, `Phase`, `Ready`,
/// `State` columns): `status-ok`, `status-warn`, `status-bad`, or none.
pub fn cell_class(column: &TableColumn, text: &str) -> &'static str {
    let name = column.name.to_ascii_lowercase();
    if !(name == "status" || name == "phase" || name == "ready" || name == "state") {
        return "";
    }
    match text {
        "Running" | "Active" | "Ready" | "True" | "Bound" | "Succeeded" | "Completed"
        | "Available" => "status-ok",
        "Pending" | "ContainerCreating" | "Terminating" | "Unknown" | "SchedulingDisabled" => {
            "status-warn"
        }
        t if t.contains("Error")
            || t.contains("BackOff")
            || t.contains("Failed")
            || t.contains("NotReady")
            || t == "False"
            || t == "Evicted" =>
        {
            "status-bad"
        }
        t if name == "ready" => match t.split_once('/') {
            Some((a, b)) if a == b => "status-ok",
            Some(_) => "status-warn",
            None => "",
        },
        _ => "",
    }
}

/// The model's keys, in order, that pass `filter` (the one grammar,
/// [`crate::rules::filter`]); `compile` turns a pattern into a test (the
/// browser's RegExp in the app). A pattern that
/// does not compile matches nothing; the filter box says why.
pub fn keys_in_order(
    model: &TableModel,
    filter: &Filter,
    compile: impl Fn(&str) -> Result<Test, String>,
) -> Vec<String> {
    if *filter == Filter::All {
        return model.order().to_vec();
    }
    match filter.test(compile) {
        Ok(test) => model.filtered(|r| test(&row_text(r))),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::rc::Rc;

    fn column(name: &str, type_: &str) -> TableColumn {
        serde_json::from_value(json!({"name": name, "type": type_})).expect("column")
    }

    fn row(name: &str, status: &str) -> Rc<TableRowObject> {
        Rc::new(
            serde_json::from_value(json!({
                "cells": [name, status, "2026-11-30T10:00:00Z", "5d"],
                "object": {"metadata": {"name": name, "namespace": "ns", "resourceVersion": "1",
                    "creationTimestamp": "2026-11-27T10:00:00Z"}}
            }))
            .expect("row"),
        )
    }

    #[test]
    fn ages_come_from_the_clock_not_the_servers_frozen_text() {
        let r = row("a", "Running");
        let now = 1_796_032_800.0; // 2026-11-30T10:00:00Z
        assert_eq!(cell_text(&r, 3, &column("Age", "string"), now), "3d");
        assert_eq!(
            cell_text(&r, 2, &column("Last Schedule", "date"), now + 90.0),
            "90s"
        );
        assert_eq!(
            cell_text(&r, 1, &column("Status", "string"), now),
            "Running"
        );
    }

    #[test]
    fn status_cells_are_coloured_by_what_they_say() {
        let status = column("Status", "string");
        assert_eq!(cell_class(&status, "Running"), "status-ok");
        assert_eq!(cell_class(&status, "CrashLoopBackOff"), "status-bad");
        assert_eq!(cell_class(&status, "Pending"), "status-warn");
        assert_eq!(cell_class(&column("Ready", "string"), "1/1"), "status-ok");
        assert_eq!(cell_class(&column("Ready", "string"), "0/1"), "status-warn");
        assert_eq!(cell_class(&column("Name", "string"), "Running"), "");
    }

    #[test]
    fn filters_are_text_or_patterns() {
        assert_eq!(Filter::parse(""), Filter::All);
        assert_eq!(Filter::parse("Web"), Filter::Text("web".into()));
        assert_eq!(
            Filter::parse("/^ns\\/a/"),
            Filter::Pattern("^ns\\/a".into())
        );
        assert_eq!(Filter::parse("/"), Filter::Text("/".into()));
        let mut m = TableModel::new();
        m.set_columns(vec![column("Name", "string"), column("Status", "string")]);
        m.upsert(row("a", "Running"));
        m.upsert(row("b", "Pending"));
        let compile = |p: &str| -> Result<Test, String> {
            let p = p.to_string();
            if p == "(" {
                return Err("unbalanced".into());
            }
            Ok(Box::new(move |text: &str| text.contains(&p)))
        };
        assert_eq!(keys_in_order(&m, &Filter::All, compile).len(), 2);
        assert_eq!(keys_in_order(&m, &Filter::parse("PEND"), compile), ["ns/b"]);
        assert_eq!(
            keys_in_order(&m, &Filter::parse("/Running/"), compile),
            ["ns/a"]
        );
        assert!(keys_in_order(&m, &Filter::parse("/(/"), compile).is_empty());
    }
}
