//! The events newest first, kept up to date change by change, with per-value counts for the filter menus.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::EventRow;

/// How many events hold each value of one field (the choices of a filter
/// menu, in order).
pub type ValueCounts = BTreeMap<String, usize>;

/// The events, newest first, kept up to date change by change: a frame
/// with a few changed events touches only those, however many the cluster
/// holds. Rows are shared (`Arc`): a paused copy copies the index's keys
/// and counts, not the rows; a filtered list is a list of pointers.
#[derive(Debug, Clone, Default)]
pub struct EventIndex {
    /// Key → last seen (where the row sits in `order`).
    at: HashMap<String, i64>,
    /// (newest first, then key) → row.
    order: BTreeMap<(Reverse<i64>, String), Arc<EventRow>>,
    reasons: ValueCounts,
    namespaces: ValueCounts,
    kinds: ValueCounts,
}

impl EventIndex {
    /// Adds `row`, or replaces the row with its key.
    pub fn upsert(&mut self, row: EventRow) {
        self.remove(&row.key);
        count(&mut self.reasons, &row.reason, true);
        count(&mut self.namespaces, &row.namespace, true);
        count(&mut self.kinds, &row.involved.kind, true);
        self.at.insert(row.key.clone(), row.last_seen);
        self.order
            .insert((Reverse(row.last_seen), row.key.clone()), Arc::new(row));
    }

    /// Removes the row with `key`, if there is one.
    pub fn remove(&mut self, key: &str) {
        let Some(last_seen) = self.at.remove(key) else {
            return;
        };
        if let Some(old) = self.order.remove(&(Reverse(last_seen), key.to_string())) {
            count(&mut self.reasons, &old.reason, false);
            count(&mut self.namespaces, &old.namespace, false);
            count(&mut self.kinds, &old.involved.kind, false);
        }
    }

    /// Applies one frame of an informer's changes: each key with its Event
    /// (added or changed) or with none (deleted). Returns how many of the
    /// added or changed rows pass `counted` (the paused stream's "arrived").
    pub fn apply(
        &mut self,
        changes: impl IntoIterator<Item = (String, Option<EventRow>)>,
        counted: impl Fn(&EventRow) -> bool,
    ) -> usize {
        let mut passed = 0;
        for (key, row) in changes {
            match row {
                Some(row) => {
                    passed += usize::from(counted(&row));
                    self.upsert(row);
                }
                None => self.remove(&key),
            }
        }
        passed
    }

    /// Every row, newest (last seen) first; ties in key order.
    pub fn newest(&self) -> impl Iterator<Item = &Arc<EventRow>> {
        self.order.values()
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Reasons present, sorted.
    pub fn reasons(&self) -> &ValueCounts {
        &self.reasons
    }

    /// Namespaces present, sorted.
    pub fn namespaces(&self) -> &ValueCounts {
        &self.namespaces
    }

    /// Involved objects' kinds present, sorted.
    pub fn kinds(&self) -> &ValueCounts {
        &self.kinds
    }
}

/// Counts one more (or one fewer) event holding `value`; empty values are
/// not menu choices.
fn count(counts: &mut ValueCounts, value: &str, add: bool) {
    if value.is_empty() {
        return;
    }
    if add {
        *counts.entry(value.to_string()).or_default() += 1;
    } else if let Some(n) = counts.get_mut(value) {
        *n -= 1;
        if *n == 0 {
            counts.remove(value);
        }
    }
}
