//! The event stream's state, shared by its parts: the live index, the copy a pause holds, the filter and what arrived while paused.

use std::sync::Arc;

use leptos::prelude::*;

use crate::rules::events::{EventFilter, EventIndex, EventRow};

/// One stream's signals (cheap to copy).
#[derive(Clone, Copy)]
pub struct Stream {
    /// Every event, live.
    pub events: RwSignal<EventIndex>,
    /// While paused, the index as it was at the pause (its keys and counts;
    /// the rows themselves are shared).
    pub frozen: RwSignal<EventIndex>,
    pub paused: RwSignal<bool>,
    pub filter: RwSignal<EventFilter>,
    /// Events that pass the filter, added or changed since the pause: a
    /// count, not a pulse (the paused stream shows "N events arrived").
    pub arrived: RwSignal<usize>,
    /// Whether the first frame has come. A shared informer may be synced
    /// already, yet its objects reach this view a frame later; until then
    /// the stream is loading, not empty.
    pub loaded: RwSignal<bool>,
    /// With a filter set, the events that pass it, newest first (shared
    /// rows: a frame copies pointers); `None` without one.
    pub filtered: Memo<Option<Vec<Arc<EventRow>>>>,
}

impl Stream {
    pub fn new() -> Self {
        let events = RwSignal::new(EventIndex::default());
        let frozen = RwSignal::new(EventIndex::default());
        let paused = RwSignal::new(false);
        let filter = RwSignal::new(EventFilter::default());
        let filtered = Memo::new(move |_| {
            let f = filter.get();
            (f != EventFilter::default()).then(|| {
                let pass = f.matcher(crate::platform::regex);
                let shown = |ix: &EventIndex| ix.newest().filter(|e| pass(e)).cloned().collect();
                if paused.get() {
                    frozen.with(shown)
                } else {
                    events.with(shown)
                }
            })
        });
        Self {
            events,
            frozen,
            paused,
            filter,
            arrived: RwSignal::new(0),
            loaded: RwSignal::new(false),
            filtered,
        }
    }

    /// Reads the index shown: the live one, or the copy taken at the pause.
    pub fn with_shown<T>(&self, f: impl FnOnce(&EventIndex) -> T) -> T {
        if self.paused.get() {
            self.frozen.with(f)
        } else {
            self.events.with(f)
        }
    }

    /// Pauses (holding a copy of the index) or resumes.
    pub fn toggle_pause(&self) {
        if !self.paused.get_untracked() {
            self.frozen.set(self.events.get_untracked());
        }
        self.arrived.set(0);
        self.paused.update(|p| *p = !*p);
    }

    /// How many rows the table shows.
    pub fn shown_len(&self) -> usize {
        self.filtered.with(|v| match v {
            Some(v) => v.len(),
            None => self.with_shown(EventIndex::len),
        })
    }

    /// Rows `first..first + count` of what the table shows.
    pub fn window(&self, first: usize, count: usize) -> Vec<Arc<EventRow>> {
        self.filtered.with(|v| match v {
            Some(v) => v.iter().skip(first).take(count).cloned().collect(),
            None => self.with_shown(|ix| ix.newest().skip(first).take(count).cloned().collect()),
        })
    }
}
