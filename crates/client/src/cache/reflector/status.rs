//! What a reflector shows: its state for display and its counters.

use crate::clock::Timestamp;
use crate::rest::list::Undecodable;

/// What the reflector is doing; shown on the X-ray page.
#[derive(Debug, Clone, PartialEq)]
pub enum ReflectorState {
    /// Not started yet.
    Idle,
    /// A list request is in flight.
    Listing,
    /// A watch is open and events flow into the store.
    Watching,
    /// Waiting after a failure before trying again.
    BackingOff {
        /// When the next attempt starts.
        until: Timestamp,
    },
    /// The reflector was stopped.
    Stopped,
}

impl ReflectorState {
    /// A short lower-case name for display ("listing", "watching", …).
    pub fn label(&self) -> &'static str {
        match self {
            ReflectorState::Idle => "idle",
            ReflectorState::Listing => "listing",
            ReflectorState::Watching => "watching",
            ReflectorState::BackingOff { .. } => "backing off",
            ReflectorState::Stopped => "stopped",
        }
    }
}

/// Counters and the latest state of one reflector.
#[derive(Debug, Clone, PartialEq)]
pub struct ReflectorStatus {
    /// Current state.
    pub state: ReflectorState,
    /// The last resourceVersion seen in a list, event or bookmark.
    pub last_resource_version: Option<String>,
    /// True once the first list has been stored.
    pub synced: bool,
    /// Lists performed (the first one included).
    pub lists: u64,
    /// Watches opened (the first one included).
    pub watches: u64,
    /// ADDED events received.
    pub added: u64,
    /// MODIFIED events received.
    pub modified: u64,
    /// DELETED events received.
    pub deleted: u64,
    /// BOOKMARK events received.
    pub bookmarks: u64,
    /// Failures (transport, API and decode errors).
    pub errors: u64,
    /// The latest failure, for a person to read.
    pub last_error: Option<String>,
    /// The HTTP status code of the latest failure when the server answered
    /// it (403 for forbidden, 404 for a resource that is not served), so a
    /// view can say which failure it is; None for transport and decode
    /// failures, and once a list or watch succeeds.
    pub last_error_code: Option<u16>,
    /// True while the latest failure was "cannot reach the API server".
    pub unreachable: bool,
    /// When the last event or bookmark arrived.
    pub last_event_at: Option<Timestamp>,
    /// When the last bookmark arrived (the server says "nothing changed up
    /// to this resourceVersion" about once a minute on a quiet watch).
    pub last_bookmark_at: Option<Timestamp>,
    /// Streaming lists completed (initial state received as watch events).
    pub watch_lists: u64,
    /// Streaming lists given up in favour of a plain list (refused, or no
    /// end-of-initial-events bookmark in time).
    pub watch_list_fallbacks: u64,
    /// Why the last streaming list fell back to a plain list, for the X-ray
    /// page; None while none has.
    pub last_fallback: Option<String>,
    /// The objects the last list could not decode as the view's type,
    /// named here (at most [`MAX_UNDECODABLE`]) while every other object
    /// stays live: one the store held before keeps its last good copy,
    /// marked stale ([`crate::cache::stale`]); one it never held is left
    /// out. A watch event that brings one decoded (or deletes it) takes it
    /// off the list.
    pub undecodable: Vec<Undecodable>,
    /// How many more did not decode than `undecodable` names.
    pub undecodable_more: usize,
    /// The cache came from a saved state (`SharedInformer`'s seed) or from
    /// before a stop, and the server has not yet confirmed it: true from
    /// the seed until the watch from its version brings an event or a
    /// bookmark, stays open a quiet moment (`ReflectorConfig::resume_quiet`)
    /// or a list replaces the cache. A view says "resyncing" meanwhile.
    pub resuming: bool,
    /// Watches that started from a saved or earlier version instead of a
    /// list (a seeded cache, a restarted informer).
    pub resumes: u64,
}

/// How many undecodable objects a status names: it is copied into every
/// snapshot, so a cluster full of bad objects must not make it large.
pub const MAX_UNDECODABLE: usize = 100;

impl Default for ReflectorStatus {
    fn default() -> Self {
        Self {
            state: ReflectorState::Idle,
            last_resource_version: None,
            synced: false,
            lists: 0,
            watches: 0,
            added: 0,
            modified: 0,
            deleted: 0,
            bookmarks: 0,
            errors: 0,
            last_error: None,
            last_error_code: None,
            unreachable: false,
            last_event_at: None,
            last_bookmark_at: None,
            watch_lists: 0,
            watch_list_fallbacks: 0,
            last_fallback: None,
            undecodable: Vec::new(),
            undecodable_more: 0,
            resuming: false,
            resumes: 0,
        }
    }
}
