//! Usage for views: the shared poll of metrics.k8s.io for a target (it has no watch), and a trigger that fires after each poll, so what a view draws from the poll follows it.
//!
//! "Usage" is the app's one word for what metrics.k8s.io serves (CPU and
//! memory in use); "metrics" in the app means client-go's counters only
//! (requests, work queues, informers).

use std::rc::Rc;

use kubeglass_kubectl::usage::{
    ObjectUsage, Point, PollRef, PollState, PollSubscription, Target, Version,
};
use leptos::prelude::*;

use crate::kube::Kube;

/// What a view holds while it shows usage. Reads track the poll: a view
/// that reads redraws after each poll.
#[derive(Clone)]
pub struct UsagePoll {
    poll: PollRef,
    _subscription: Rc<PollSubscription>,
    changed: Trigger,
}

impl UsagePoll {
    /// Makes the reader redraw after each poll, whatever it reads.
    pub fn track(&self) {
        self.changed.track();
    }

    /// How the last poll went.
    pub fn state(&self) -> PollState {
        self.changed.track();
        self.poll.state()
    }

    /// The version of metrics.k8s.io read (kubectl's choice; None until
    /// discovery named one).
    pub fn version(&self) -> Option<Version> {
        self.changed.track();
        self.poll.version()
    }

    /// The last good sample (kept through later failures).
    pub fn latest(&self) -> Rc<Vec<ObjectUsage>> {
        self.changed.track();
        self.poll.latest()
    }

    /// One object's points over the tab's last hour (the poll's ring), oldest first.
    pub fn points(&self, key: &str) -> Vec<Point> {
        self.changed.track();
        self.poll.points(key)
    }
}

impl Kube {
    /// Holds the poll of `target` (shared with every view that shows it;
    /// it stops when the last lets go) and fires after each of its polls.
    /// Every view that shows usage subscribes through this.
    pub fn usage(&self, target: Target) -> UsagePoll {
        let poll = self.usage_polls.poll(target);
        let changed = Trigger::new();
        let subscription = poll.on_poll(move || {
            changed.notify();
        });
        UsagePoll {
            poll,
            _subscription: Rc::new(subscription),
            changed,
        }
    }
}
