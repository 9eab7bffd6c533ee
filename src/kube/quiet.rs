//! Quiet when hidden: a tab hidden for a while (`prefs::QUIET_AFTER`, five
//! minutes unless chosen) stops every informer's watch, so a forgotten tab
//! costs the apiserver nothing; shown again, each informer resumes with a
//! watch from the version it holds (the client's `Reflector::first_phase`),
//! with no LIST while that version is valid. The tables saved for the next
//! visit are saved as the tab is hidden, and kept (not let go) while their
//! informers are paused; so are the metrics graphs' points, and the
//! metrics polls send nothing while paused. A hidden tab draws no frames, so views pile up
//! nothing meanwhile: the frame queues hold each changed key once.
//!
//! The browser's `visibilitychange` reaches [`Kube::tab_hidden`] and
//! [`Kube::tab_shown`] from `platform::on_visibility`.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;

use crate::kube::Kube;

/// Whether the tab's watches are paused, and which hide is the latest.
#[derive(Clone)]
pub struct Quiet {
    /// True while every informer is stopped because the tab is hidden.
    paused: RwSignal<bool>,
    /// Counts hides and shows: a delay that ends after the tab was shown
    /// (or hidden again) pauses nothing.
    turn: Rc<Cell<u64>>,
}

impl Quiet {
    pub(crate) fn new() -> Self {
        Self {
            paused: RwSignal::new(false),
            turn: Rc::default(),
        }
    }
}

impl Kube {
    /// True while the tab's watches are paused because it is hidden.
    pub fn paused(&self) -> ReadSignal<bool> {
        self.quiet.paused.read_only()
    }

    /// The tab was hidden: the tables are saved now, and once it has stayed
    /// hidden for `after` (None: never) every informer stops watching.
    pub fn tab_hidden(&self, after: Option<std::time::Duration>) {
        let turn = self.quiet.turn.get() + 1;
        self.quiet.turn.set(turn);
        let saved = self.saved().clone();
        self.spawn(async move { saved.save_due(true).await });
        self.usage_polls.save_history();
        let Some(after) = after else { return };
        let me = self.clone();
        let sleep = self.clock().sleep(after);
        self.spawn(async move {
            sleep.await;
            if me.quiet.turn.get() == turn && !me.quiet.paused.get_untracked() {
                me.saved().set_paused(true);
                me.factory.shutdown();
                me.usage_polls.set_paused(true);
                me.quiet.paused.set(true);
            }
        });
    }

    /// The tab is shown again: paused informers resume, each from its version.
    pub fn tab_shown(&self) {
        self.quiet.turn.set(self.quiet.turn.get() + 1);
        if self.quiet.paused.get_untracked() {
            self.factory.start();
            self.usage_polls.set_paused(false);
            self.saved().set_paused(false);
            self.quiet.paused.set(false);
        }
    }
}
