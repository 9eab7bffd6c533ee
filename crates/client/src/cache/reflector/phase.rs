//! The reflector's state machine: what the next [`super::Reflector::step`] does.
//!
//! Each phase names the one I/O its step performs: one LIST request, one
//! watch opened, one event read from the watch the phase holds, or one
//! backoff sleep. A step returns the next phase; the driver
//! ([`super::Reflector::run`]) calls `step` until it is dropped.

use std::collections::HashMap;
use std::time::Duration;

use futures::future::{Fuse, LocalBoxFuture};

use crate::cache::pager::Pager;
use crate::cache::store::Transform;
use crate::clock::Timestamp;
use crate::rest::WatchStream;

/// Which resourceVersion the next list asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListFrom {
    /// `resourceVersion=0`: whatever the apiserver's cache holds (first list).
    Any,
    /// The last version this reflector saw (after a 410 on the watch).
    NotOlderThan(String),
    /// No resourceVersion: a consistent read (after that, too, was gone).
    Latest,
}

/// The next thing the reflector does; one [`super::Reflector::step`] per value.
#[derive(Debug)]
pub enum Phase<K> {
    /// Send the first LIST request of a list from this version.
    List(ListFrom),
    /// Send the next LIST request of a list in progress (the next page,
    /// or the full list after an expired continue token).
    Listing(Listing<K>),
    /// Open a plain watch from the last resourceVersion.
    Watch,
    /// Open a streaming list: a watch that first sends the whole state.
    WatchList,
    /// Read one event from the open watch held here.
    Watching(OpenWatch<K>),
    /// Sleep `delay` (cut short by a reconnect after a connection
    /// failure), then go on with `then`.
    Backoff {
        /// How long to wait.
        delay: Duration,
        /// What comes after: a list, a watch or a streaming list (never an
        /// open watch: a watch is closed before its backoff).
        then: Box<Phase<K>>,
    },
}

impl<K> Phase<K> {
    /// A short lower-case name, for tests and logs.
    pub fn name(&self) -> &'static str {
        match self {
            Phase::List(_) => "list",
            Phase::Listing(_) => "listing",
            Phase::Watch => "watch",
            Phase::WatchList => "watch list",
            Phase::Watching(_) => "watching",
            Phase::Backoff { .. } => "backoff",
        }
    }
}

/// A list in progress: which version it is from, and its pager.
#[derive(Debug)]
pub struct Listing<K> {
    /// What the list asked for first (decides what a failure leads to).
    pub(super) from: ListFrom,
    pub(super) pager: Pager<K>,
}

impl<K> Listing<K> {
    /// The version the list asked for.
    pub fn from(&self) -> &ListFrom {
        &self.from
    }

    /// The pager: the next page's continue token, the items so far.
    pub fn pager(&self) -> &Pager<K> {
        &self.pager
    }
}

/// An open watch (plain, or a streaming list) and what its reads need.
pub struct OpenWatch<K> {
    pub(super) stream: WatchStream<K>,
    /// A watch the server forgot to close is abandoned after its timeout
    /// (plus a grace period).
    pub(super) deadline: Fuse<LocalBoxFuture<'static, ()>>,
    /// Checks a streaming list for a quiet spell before its end bookmark,
    /// or a resumed watch for the quiet moment that says it has caught up;
    /// pending for ever after that.
    pub(super) idle_check: Fuse<LocalBoxFuture<'static, ()>>,
    /// When the last event arrived (or the watch opened).
    pub(super) last_activity: Timestamp,
    /// Any event came.
    pub(super) delivered: bool,
    /// When the step that opened it began.
    pub(super) started: Timestamp,
    /// Opened as a streaming list.
    pub(super) streaming: bool,
    /// The resourceVersion it was opened from ("" = latest).
    pub(super) from: String,
    /// A streaming list's initial state, collected until its end bookmark
    /// and then swapped into the store at once. None for a plain watch
    /// and once the initial state is complete. Its events' versions are
    /// not trusted for ordering until then.
    pub(super) initial: Option<HashMap<String, K>>,
    /// The store's transform, applied to the initial state as it arrives.
    pub(super) transform: Option<Transform<K>>,
}

impl<K> std::fmt::Debug for OpenWatch<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenWatch")
            .field("streaming", &self.streaming)
            .field("from", &self.from)
            .field("delivered", &self.delivered)
            .field("initial", &self.initial.as_ref().map(HashMap::len))
            .finish_non_exhaustive()
    }
}

impl<K> OpenWatch<K> {
    /// Opened as a streaming list (the initial state sent as events).
    pub fn is_streaming(&self) -> bool {
        self.streaming
    }

    /// A streaming list whose initial state is not complete yet.
    pub fn is_initial(&self) -> bool {
        self.initial.is_some()
    }

    /// How many objects of the initial state have arrived (0 when none is
    /// being collected).
    pub fn initial_len(&self) -> usize {
        self.initial.as_ref().map_or(0, HashMap::len)
    }

    /// The resourceVersion the watch was opened from ("" = latest).
    pub fn resource_version(&self) -> &str {
        &self.from
    }

    /// A streaming list that has delivered its whole initial state (and now
    /// goes on as a plain watch).
    pub(super) fn synced(&self) -> bool {
        self.streaming && self.initial.is_none()
    }
}
