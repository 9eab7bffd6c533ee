//! The life of a live table's rows: a preview page first, then the informer's rows; changed rows flash, deleted rows fade, then go.
//!
//! The informer's first list is the whole collection in one piece (seconds
//! at 10,000 pods), so one page read straight from etcd is shown until the
//! informer's rows replace it wholesale. After that a row is alive,
//! flashing for [`FLASH_SECS`] after a change, or fading for [`FADE_SECS`]
//! after its deletion before it leaves the model.

use std::collections::HashMap;
use std::rc::Rc;

use kubeglass_client::rest::table::{TableColumn, TableRowObject};

use crate::rules::table::TableModel;
use crate::rules::time::Seconds;

/// How long a changed row stays highlighted, in seconds.
pub const FLASH_SECS: f64 = 1.5;
/// How long a deleted row stays, fading out, before it goes, in seconds.
pub const FADE_SECS: f64 = 1.5;

/// How many rows the server said follow a preview page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum More {
    /// This many (`remainingItemCount`).
    Count(i64),
    /// Some, but the server did not say how many (it does not when a
    /// selector is set).
    Unknown,
}

/// Where a row is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowState {
    /// Shown as it is.
    Alive,
    /// Changed less than [`FLASH_SECS`] ago.
    Flashing,
    /// Deleted, fading out.
    Fading,
}

/// The rows of one live table and their life-cycle.
#[derive(Default)]
pub struct LiveRows {
    model: TableModel,
    changed_at: HashMap<String, Seconds>,
    /// Deleted rows still shown, with when they were deleted.
    leaving: HashMap<String, Seconds>,
    /// Some while a preview page is shown instead of the informer's rows.
    preview: Option<More>,
    /// The informer has delivered rows (a late preview is dropped).
    from_informer: bool,
}

impl LiveRows {
    /// No rows yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The sorted rows (fading ones included).
    pub fn model(&self) -> &TableModel {
        &self.model
    }

    /// The sorted rows, to change the sort.
    pub fn model_mut(&mut self) -> &mut TableModel {
        &mut self.model
    }

    /// Shows one page read before the informer synced; false (and nothing
    /// changes) when the informer's rows came first.
    pub fn show_preview(
        &mut self,
        columns: Vec<TableColumn>,
        rows: Vec<TableRowObject>,
        more: More,
    ) -> bool {
        if self.from_informer {
            return false;
        }
        self.model.set_columns(columns);
        for row in rows {
            self.model.upsert(Rc::new(row));
        }
        self.preview = Some(more);
        true
    }

    /// What follows the preview, while one is shown.
    pub fn preview(&self) -> Option<More> {
        self.preview
    }

    /// Applies the informer's changes at `now`: each key with its row, or
    /// None when the informer no longer holds it. The first delivery
    /// replaces a preview and does not flash; a deleted row starts fading.
    /// Returns true when the columns changed.
    pub fn apply(
        &mut self,
        columns: &[TableColumn],
        changes: impl IntoIterator<Item = (String, Option<Rc<TableRowObject>>)>,
        now: Seconds,
    ) -> bool {
        if self.preview.take().is_some() {
            self.model = TableModel::new();
        }
        // The first delivery is the list; after it every change flashes,
        // the first row of an empty table included.
        let initial = !self.from_informer;
        self.from_informer = true;
        let new_columns = columns != self.model.columns();
        if new_columns {
            self.model.set_columns(columns.to_vec());
        }
        for (key, row) in changes {
            match row {
                Some(r) => {
                    self.model.upsert(r);
                    self.leaving.remove(&key);
                    if !initial {
                        self.changed_at.insert(key, now);
                    }
                }
                None if self.model.get(&key).is_some() => {
                    self.changed_at.remove(&key);
                    self.leaving.entry(key).or_insert(now);
                }
                None => {}
            }
        }
        self.changed_at.retain(|_, at| now - *at < FLASH_SECS);
        new_columns
    }

    /// Removes the rows that have faded out by `now`; true when any went.
    pub fn expire(&mut self, now: Seconds) -> bool {
        let gone: Vec<String> = self
            .leaving
            .iter()
            .filter(|(_, at)| now - **at >= FADE_SECS)
            .map(|(k, _)| k.clone())
            .collect();
        for k in &gone {
            self.leaving.remove(k);
            self.model.remove(k);
        }
        !gone.is_empty()
    }

    /// Where the row `key` is in its life at `now`.
    pub fn state(&self, key: &str, now: Seconds) -> RowState {
        if self.leaving.contains_key(key) {
            RowState::Fading
        } else if self
            .changed_at
            .get(key)
            .is_some_and(|at| now - at < FLASH_SECS)
        {
            RowState::Flashing
        } else {
            RowState::Alive
        }
    }

    /// True when the row `key` is there and not fading out.
    pub fn is_live(&self, key: &str) -> bool {
        self.model.get(key).is_some() && !self.leaving.contains_key(key)
    }

    /// Rows that are not fading out.
    pub fn live_len(&self) -> usize {
        self.model.len() - self.leaving.len()
    }

    /// Rows fading out.
    pub fn leaving_len(&self) -> usize {
        self.leaving.len()
    }

    /// How many of `keys` are fading out.
    pub fn leaving_among(&self, keys: &[String]) -> usize {
        if self.leaving.is_empty() {
            return 0;
        }
        keys.iter()
            .filter(|k| self.leaving.contains_key(*k))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn columns() -> Vec<TableColumn> {
        serde_json::from_value(json!([{"name": "Name", "type": "string"}])).expect("columns")
    }

    fn row(name: &str) -> TableRowObject {
        serde_json::from_value(json!({"cells": [name],
            "object": {"metadata": {"name": name, "namespace": "ns", "resourceVersion": "1"}}}))
        .expect("row")
    }

    fn change(name: &str) -> (String, Option<Rc<TableRowObject>>) {
        (format!("ns/{name}"), Some(Rc::new(row(name))))
    }

    fn gone(name: &str) -> (String, Option<Rc<TableRowObject>>) {
        (format!("ns/{name}"), None)
    }

    #[test]
    fn a_preview_shows_until_the_informer_replaces_it_wholesale() {
        let mut l = LiveRows::new();
        assert!(l.show_preview(columns(), vec![row("p1"), row("p2")], More::Count(98)));
        assert_eq!(l.preview(), Some(More::Count(98)));
        assert_eq!(l.live_len(), 2);
        l.apply(&columns(), [change("a")], 100.0);
        assert_eq!(l.preview(), None);
        assert_eq!(l.model().order(), ["ns/a"], "the preview's rows are gone");
        assert_eq!(
            l.state("ns/a", 100.0),
            RowState::Alive,
            "the first delivery does not flash"
        );
        // A preview that arrives after the informer's rows is dropped.
        assert!(!l.show_preview(columns(), vec![row("late")], More::Unknown));
        assert_eq!(l.model().order(), ["ns/a"]);
    }

    #[test]
    fn changed_rows_flash_and_deleted_rows_fade_then_go() {
        let mut l = LiveRows::new();
        l.apply(&columns(), [change("a"), change("b")], 100.0);
        l.apply(&columns(), [change("a")], 101.0);
        assert_eq!(l.state("ns/a", 101.0), RowState::Flashing);
        assert_eq!(l.state("ns/a", 101.0 + FLASH_SECS), RowState::Alive);
        l.apply(&columns(), [gone("b")], 102.0);
        assert_eq!(l.state("ns/b", 102.0), RowState::Fading);
        assert_eq!((l.live_len(), l.leaving_len()), (1, 1));
        assert_eq!(l.leaving_among(&["ns/a".into(), "ns/b".into()]), 1);
        assert!(!l.expire(102.0 + FADE_SECS / 2.0), "still fading");
        assert!(l.expire(102.0 + FADE_SECS));
        assert_eq!(l.model().order(), ["ns/a"]);
        // Deleting what was never shown changes nothing.
        l.apply(&columns(), [gone("never")], 110.0);
        assert_eq!(l.leaving_len(), 0);
    }

    #[test]
    fn the_first_row_of_an_empty_table_flashes() {
        let mut l = LiveRows::new();
        l.apply(&columns(), [], 100.0);
        l.apply(&columns(), [change("a")], 101.0);
        assert_eq!(l.state("ns/a", 101.0), RowState::Flashing);
    }

    #[test]
    fn a_row_that_comes_back_while_fading_is_alive_again() {
        let mut l = LiveRows::new();
        l.apply(&columns(), [change("a")], 100.0);
        l.apply(&columns(), [gone("a")], 101.0);
        l.apply(&columns(), [change("a")], 101.5);
        assert_eq!(l.state("ns/a", 101.5), RowState::Flashing);
        assert!(!l.expire(200.0));
        assert_eq!(l.live_len(), 1);
    }
}
