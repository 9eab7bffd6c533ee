//! The changes page's state, shared by its parts: the filter, the pause (the last row shown when it began), the row picked for its diff, and the rows shown.

use std::sync::Arc;

use leptos::prelude::*;

use crate::kube::stores::changes::ChangeStore;
use crate::rules::changes::{Entry, ChangeFilter};

/// The page's signals (cheap to copy).
#[derive(Clone, Copy)]
pub struct ChangesState {
    pub store: ChangeStore,
    pub filter: RwSignal<ChangeFilter>,
    /// While paused, the place the next row had when the pause began: rows
    /// from it on wait, counted.
    pub paused_at: RwSignal<Option<u64>>,
    /// The row whose diff shows.
    pub picked: RwSignal<Option<u64>>,
    /// The rows that pass the filter, newest first (shared between frames),
    /// or why the filter cannot be used; and how many status-only updates
    /// the toggle hides.
    pub shown: Memo<Result<Shown, String>>,
}

/// The rows a frame draws.
#[derive(Clone)]
pub struct Shown {
    pub rows: Vec<Arc<Entry>>,
    /// Rows that pass the filter but came after the pause.
    pub waiting: usize,
    /// Status-only updates the filter folds away.
    pub folded: usize,
}

/// The same rows (the same pointers) and counts: rows never change once made.
impl PartialEq for Shown {
    fn eq(&self, other: &Self) -> bool {
        (self.waiting, self.folded) == (other.waiting, other.folded)
            && self.rows.len() == other.rows.len()
            && self
                .rows
                .iter()
                .zip(&other.rows)
                .all(|(a, b)| Arc::ptr_eq(a, b))
    }
}

impl ChangesState {
    pub fn new(store: ChangeStore) -> Self {
        let filter = RwSignal::new(ChangeFilter::default());
        let paused_at = RwSignal::new(None);
        let shown = Memo::new(move |_| {
            let f = filter.get();
            let pass = f.matcher(crate::platform::regex)?;
            let all = ChangeFilter {
                status_only: true,
                ..f.clone()
            }
            .matcher(crate::platform::regex)?;
            let until = paused_at.get();
            Ok(store.with(|t| {
                let mut shown = Shown {
                    rows: Vec::new(),
                    waiting: 0,
                    folded: 0,
                };
                for e in t.entries().rev() {
                    if pass(e) {
                        if until.is_some_and(|u| e.seq >= u) {
                            shown.waiting += 1;
                        } else {
                            shown.rows.push(e.clone());
                        }
                    } else if !f.status_only && e.status_only && all(e) {
                        shown.folded += 1;
                    }
                }
                shown
            }))
        });
        Self {
            store,
            filter,
            paused_at,
            picked: RwSignal::new(None),
            shown,
        }
    }

    /// Pauses at the newest row, or resumes.
    pub fn toggle_pause(self) {
        if self.paused_at.get_untracked().is_some() {
            self.paused_at.set(None);
        } else {
            let next = self.store.with(|t| t.next_seq());
            self.paused_at.set(Some(next));
        }
    }

    /// How many rows the frame draws.
    pub fn len(self) -> usize {
        self.shown.with(|s| s.as_ref().map_or(0, |s| s.rows.len()))
    }
}
