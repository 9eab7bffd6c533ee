//! A log view's state: the loaded lines, the lines that arrived while paused, each stream's state and name, and the options read from the URL.

use std::collections::BTreeMap;

use leptos::prelude::*;

use crate::kube::Kube;
use crate::kube::subscribe::logs::{LogFeed, StreamState};
use crate::rules::logs::{LogLine, LogOptions, LogRing};
use crate::route::{LogTarget, Route, replace, use_route};

/// Signals of one log view (all `Copy`).
#[derive(Clone, Copy)]
pub struct LogState {
    /// The lines shown.
    pub ring: RwSignal<LogRing>,
    /// Lines that arrived while paused, shown on resume.
    pub pending: RwSignal<Vec<LogLine>>,
    /// Paused: new lines wait in `pending`, the view keeps its place.
    pub paused: RwSignal<bool>,
    /// Each stream's state, by source.
    pub states: RwSignal<BTreeMap<u16, StreamState>>,
    /// Each source's short name (a workload's pods; one pod: its container).
    pub names: RwSignal<Vec<String>>,
    /// The options, as the URL says.
    pub options: Memo<LogOptions>,
    namespace: StoredValue<String>,
    target: StoredValue<LogTarget>,
}

impl LogState {
    /// A view of `target` in `namespace`, its options following the URL.
    pub fn new(namespace: String, target: LogTarget) -> Self {
        let route = use_route();
        let options = Memo::new(move |_| match route.get() {
            Route::Logs { options, .. } => options,
            _ => LogOptions::default(),
        });
        let ring = RwSignal::new(LogRing::new(options.with_untracked(|o| o.keep)));
        // A new cap applies at once: a smaller one drops the oldest lines.
        Effect::new(move |_| {
            let keep = options.with(|o| o.keep);
            if ring.with_untracked(LogRing::cap) != keep {
                ring.update(|r| r.set_cap(keep));
            }
        });
        Self {
            ring,
            pending: RwSignal::new(Vec::new()),
            paused: RwSignal::new(false),
            states: RwSignal::new(BTreeMap::new()),
            names: RwSignal::new(Vec::new()),
            options,
            namespace: StoredValue::new(namespace),
            target: StoredValue::new(target),
        }
    }

    /// A feed whose lines land in this view (in `pending` while paused),
    /// timed by the app's clock.
    pub fn feed(self, kube: &Kube) -> LogFeed {
        LogFeed::new(kube, move |lines| {
            // A frame asked for just before the view went finds its signals
            // disposed: nothing to show the lines in.
            let Some(paused) = self.paused.try_get_untracked() else {
                return;
            };
            if paused {
                let cap = self.ring.with_untracked(LogRing::cap);
                self.pending.update(|p| {
                    p.extend(lines);
                    let over = p.len().saturating_sub(cap);
                    p.drain(..over);
                });
            } else {
                self.ring
                    .update(|r| lines.into_iter().for_each(|l| r.push(l)));
            }
        })
    }

    /// Pauses, or resumes and shows what arrived meanwhile.
    pub fn toggle_pause(self) {
        if self.paused.get_untracked() {
            let waiting = std::mem::take(&mut *self.pending.write());
            self.ring
                .update(|r| waiting.into_iter().for_each(|l| r.push(l)));
            self.paused.set(false);
        } else {
            self.paused.set(true);
        }
    }

    /// Forgets every line and stream state (the query changed).
    pub fn reset(self) {
        self.ring.update(LogRing::clear);
        self.pending.update(Vec::clear);
        self.states.update(BTreeMap::clear);
    }

    /// Records a stream's state.
    pub fn set_state(self, source: u16, state: StreamState) {
        let _ = self.states.try_update(|s| s.insert(source, state));
    }

    /// Changes the options in the URL (in place: no new history entry).
    pub fn set_options(self, change: impl FnOnce(&mut LogOptions)) {
        let mut options = self.options.get_untracked();
        change(&mut options);
        replace(&Route::Logs {
            namespace: self.namespace.get_value(),
            target: self.target.get_value(),
            options,
        });
    }
}
