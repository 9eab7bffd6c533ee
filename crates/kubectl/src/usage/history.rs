//! A poll's points kept between visits, so a graph drawn after a reload,
//! a browser restart or a launcher restart goes on from where it was
//! instead of starting empty: metrics history without Prometheus, up to
//! the ring's own hour.
//!
//! The poll asks its [`History`] once, before its first GET, and takes in
//! what it finds (objects unseen for over [`super::KEY_TTL_SECS`] left
//! out); it saves after a good sample at most every [`HISTORY_EVERY`], and
//! whenever [`super::UsagePolls::save_history`] is called (the tab is
//! hidden). At most [`MAX_SAVED_POINTS`] points are saved, the newest,
//! every series cut to one length. A store that fails loses the history,
//! nothing else.
//!
//! While paused ([`super::UsagePolls::set_paused`], a tab hidden for a
//! while) no poll sends a GET; shown again, a poll that was due sends its
//! GET at once.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use futures::channel::oneshot;
use futures::future::LocalBoxFuture;

use super::types::Target;

/// How often a poll's points are saved at most while it polls.
pub const HISTORY_EVERY: Duration = Duration::from_secs(60);

/// The most points saved for one poll (about 3.5 MB of text): a full hour
/// of 400 objects, or 10 minutes of 2,500.
pub const MAX_SAVED_POINTS: usize = 100_000;

/// Where polls keep their points between visits.
pub trait History {
    /// The text saved for `target`, if any (a failure reads as none).
    fn load(&self, target: &Target) -> LocalBoxFuture<'static, Option<String>>;
    /// Keeps `text` for `target`.
    fn save(&self, target: &Target, text: String) -> LocalBoxFuture<'static, ()>;
}

impl Target {
    /// The key its points are saved under: `usage.pods` (all namespaces),
    /// `usage.pods.<namespace>` or `usage.nodes`.
    pub fn history_key(&self) -> String {
        match self {
            Target::Pods(None) => "usage.pods".into(),
            Target::Pods(Some(ns)) => format!("usage.pods.{ns}"),
            Target::Nodes => "usage.nodes".into(),
        }
    }
}

/// Paused or not, and who waits for the end of a pause.
#[derive(Default)]
pub(super) struct Pause {
    paused: Cell<bool>,
    waiting: RefCell<Vec<oneshot::Sender<()>>>,
}

impl Pause {
    pub(super) fn set(&self, paused: bool) {
        self.paused.set(paused);
        if !paused {
            for w in self.waiting.borrow_mut().drain(..) {
                let _ = w.send(());
            }
        }
    }

    pub(super) fn is_paused(&self) -> bool {
        self.paused.get()
    }

    /// Resolves at once when not paused, else when the pause ends.
    pub(super) async fn open(&self) {
        while self.paused.get() {
            let (tx, rx) = oneshot::channel();
            self.waiting.borrow_mut().push(tx);
            let _ = rx.await;
        }
    }
}
