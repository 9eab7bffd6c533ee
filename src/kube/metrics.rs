//! Metrics for views: the shared poll of metrics.k8s.io for a target (it has no watch), and a tick that changes after each poll, so what a view draws from the poll follows it.

use std::rc::Rc;

use kubeglass_kubectl::metrics::{
    ObjectUsage, Point, PollRef, PollState, PollSubscription, Target, Version,
};
use leptos::prelude::*;

use super::Kube;

/// What a view holds while it shows metrics. Reads track the poll: a view
/// that reads redraws after each poll.
#[derive(Clone)]
pub struct Metrics {
    poll: PollRef,
    _subscription: Rc<PollSubscription>,
    tick: RwSignal<u64>,
}

impl Metrics {
    /// Makes the reader redraw after each poll, whatever it reads.
    pub fn track(&self) {
        self.tick.track();
    }

    /// How the last poll went.
    pub fn state(&self) -> PollState {
        self.tick.track();
        self.poll.state()
    }

    /// The version of metrics.k8s.io read (kubectl's choice; None until
    /// discovery named one).
    pub fn version(&self) -> Option<Version> {
        self.tick.track();
        self.poll.version()
    }

    /// The last good sample (kept through later failures).
    pub fn latest(&self) -> Rc<Vec<ObjectUsage>> {
        self.tick.track();
        self.poll.latest()
    }

    /// One object's points over the tab's history, oldest first.
    pub fn history(&self, key: &str) -> Vec<Point> {
        self.tick.track();
        self.poll.history(key)
    }
}

impl Kube {
    /// Holds the poll of `target` (shared with every view that shows it;
    /// it stops when the last lets go) and ticks after each of its polls.
    /// Every view that shows metrics subscribes through this.
    pub fn metrics(&self, target: Target) -> Metrics {
        let poll = self.metrics.poll(target);
        let tick = RwSignal::new(0u64);
        let subscription = poll.on_poll(move || {
            let _ = tick.try_update(|n| *n += 1);
        });
        Metrics {
            poll,
            _subscription: Rc::new(subscription),
            tick,
        }
    }
}
