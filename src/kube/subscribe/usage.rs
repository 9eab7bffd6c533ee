//! Usage for views: the shared poll of metrics.k8s.io for a target (it has no watch), and a tick that changes after each poll, so what a view draws from the poll follows it.
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
    tick: RwSignal<u64>,
}

impl UsagePoll {
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

    /// One object's points over the tab's last hour (the poll's ring), oldest first.
    pub fn points(&self, key: &str) -> Vec<Point> {
        self.tick.track();
        self.poll.points(key)
    }
}

impl Kube {
    /// Holds the poll of `target` (shared with every view that shows it;
    /// it stops when the last lets go) and ticks after each of its polls.
    /// Every view that shows usage subscribes through this.
    pub fn usage(&self, target: Target) -> UsagePoll {
        let poll = self.usage_polls.poll(target);
        let tick = RwSignal::new(0u64);
        let subscription = poll.on_poll(move || {
            let _ = tick.try_update(|n| *n += 1);
        });
        UsagePoll {
            poll,
            _subscription: Rc::new(subscription),
            tick,
        }
    }
}
