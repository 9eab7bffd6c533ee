//! A table's state, shared by its parts: the rows and their life-cycle, sort, filter, selection, wide columns, and the keys shown.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::kube::Stale;
use crate::kube::subscribe::InformerSnapshot;
use kubeglass_client::rest::table::TableColumn;
use leptos::prelude::*;

use crate::rules::filter::Test;
use crate::rules::live_rows::{LiveRows, More};
use crate::rules::marks::Marks;
use crate::rules::objects::split_key;
use crate::rules::usage::{UsageOf, is_usage_column};
use crate::rules::table::Sort;
use crate::prefs;
use crate::route::{Route, navigate};

/// The keys a table shows, in order; equal when the generation is.
#[derive(Clone)]
pub struct Keys {
    pub generation: u64,
    /// The filtered keys; `None` when unfiltered: then they are the model's
    /// own order, read in place (not copied on every change frame).
    pub filtered: Option<Arc<Vec<String>>>,
    /// How many keys there are.
    pub len: usize,
    /// How many of them are deleted rows still fading out.
    pub leaving: usize,
}

impl PartialEq for Keys {
    fn eq(&self, other: &Self) -> bool {
        self.generation == other.generation
    }
}

/// A case-insensitive JavaScript RegExp's test, or why `pattern` is not one.
pub fn compile_regex(pattern: &str) -> Result<Test, String> {
    crate::platform::regex(pattern)
}

/// One table's state, shared by its parts (cheap to copy).
#[derive(Clone, Copy)]
pub struct Table {
    pub rows: StoredValue<Rc<RefCell<LiveRows>>, LocalStorage>,
    /// Fires when the rows change (each frame of changes, each expiry).
    pub changed: Trigger,
    pub columns: RwSignal<Vec<TableColumn>>,
    pub status: RwSignal<InformerSnapshot>,
    /// The rows shown as their last good copy: the server's copy no
    /// longer decodes (changes only when that set does).
    pub stale: Memo<Stale>,
    pub preview: RwSignal<Option<More>>,
    pub sort: RwSignal<Sort>,
    pub filter: RwSignal<String>,
    pub selected: RwSignal<usize>,
    /// The marked rows (click's box, Shift-click, Space, all that match).
    pub marks: RwSignal<Marks>,
    pub wide: RwSignal<bool>,
    pub visible: Memo<Keys>,
    /// The filter box (`/` focuses it).
    pub filter_input: NodeRef<leptos::html::Input>,
    pub resource: StoredValue<String>,
    /// The CPU and memory columns a pod or node table has.
    pub usage: Option<UsageOf>,
    /// Whether they are shown (remembered).
    pub usage_on: RwSignal<bool>,
    /// The access reviews asked for this table (marked rows' verbs, Shell
    /// links), each answer kept while the table is open.
    pub reviews: StoredValue<kubeglass_kubectl::access::Reviews, LocalStorage>,
    /// A pod table's Shell links, by namespace (see `shell`).
    pub shell: Option<RwSignal<std::collections::HashMap<String, Option<bool>>>>,
}

impl Table {
    /// Reads the rows.
    pub fn with_rows<T>(&self, f: impl FnOnce(&LiveRows) -> T) -> T {
        self.rows.with_value(|r| f(&r.borrow()))
    }

    /// Keys `range` of what the table shows, in order.
    pub fn keys_in(&self, range: std::ops::Range<usize>) -> Vec<String> {
        self.visible.with(|k| match &k.filtered {
            Some(keys) => keys.get(range).map(<[String]>::to_vec).unwrap_or_default(),
            None => self.with_rows(|l| {
                l.model()
                    .order()
                    .get(range)
                    .map(<[String]>::to_vec)
                    .unwrap_or_default()
            }),
        })
    }

    /// Every key the table shows, in order (all that match the filter).
    pub fn all_keys(&self) -> Vec<String> {
        let n = self.visible.with_untracked(|k| k.len);
        untrack(|| self.keys_in(0..n))
    }

    /// Marks or unmarks row `key`; with Shift, every row from the last one
    /// clicked to it.
    pub fn mark(&self, key: &str, shift: bool) {
        if shift {
            let order = self.all_keys();
            self.marks.update(|m| m.extend_to(key, &order));
        } else {
            self.marks.update(|m| m.toggle(key));
        }
    }

    /// Opens the object page of the row `key`.
    pub fn open(&self, key: &str) {
        let (namespace, name) = split_key(key);
        navigate(&Route::Object {
            resource: self.resource.get_value(),
            namespace,
            name,
        });
    }

    /// True when kubectl has wide (`-o wide`) columns for it.
    pub fn has_wide(&self) -> bool {
        self.columns.with(|cs| cs.iter().any(|c| c.priority > 0))
    }

    /// Wide on or off, remembered; not sorted by a column that goes out of sight.
    pub fn toggle_wide(&self) {
        self.toggle_columns(self.wide, prefs::WIDE, |c| c.priority > 0);
    }

    /// CPU and memory columns on or off, remembered; not sorted by one
    /// that goes.
    pub fn toggle_usage(&self) {
        self.toggle_columns(self.usage_on, prefs::USAGE, is_usage_column);
    }

    /// Flips `shown` (remembered under `key`) for the columns `hides`
    /// picks; a sort by one of them ends when they go.
    fn toggle_columns(&self, shown: RwSignal<bool>, key: &str, hides: fn(&TableColumn) -> bool) {
        let on = !shown.get_untracked();
        prefs::set_flag(key, on);
        let hidden = self.sort.with_untracked(|s| s.column).is_some_and(|i| {
            self.columns
                .with_untracked(|cs| cs.get(i).is_some_and(hides))
        });
        if !on && hidden {
            self.sort.set(Sort::default());
        }
        shown.set(on);
    }

    /// The columns shown, with their index in the server's columns.
    pub fn shown_columns(&self) -> Vec<(usize, TableColumn)> {
        let wide = self.wide.get();
        self.columns
            .get()
            .into_iter()
            .enumerate()
            .filter(|(_, c)| wide || c.priority == 0)
            .collect()
    }
}
