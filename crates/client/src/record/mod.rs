//! Recording Kubernetes Events (client-go tools/record): recorder → broadcaster → correlator → sink.
//!
//! An [`EventRecorder`] puts events on the [`EventBroadcaster`]'s queue (1000
//! deep; the non-blocking `event` drops when it is full, the blocking
//! `record` waits). The broadcaster's [`EventBroadcaster::run`] hands each
//! event to its watchers (a log, the UI: plain callbacks, called at once)
//! and to the sink's own queue, also 1000 deep and dropping when full, as
//! each watcher of client-go's `watch.Broadcaster` has its own. The sink's
//! writer drains that queue through the [`Correlator`] into an [`EventSink`]
//! that creates each event, or patches the count and lastTimestamp of the one
//! written before, trying 12 times: first after a random 0–10 s, then 10 s
//! apart (for events.k8s.io/v1 series, 10 s jittered by a quarter each
//! time). A sink that is retrying therefore never holds up the watchers or
//! the recorders.
//!
//! One idea per file, as client-go splits tools/record: [`recorder`] (what
//! callers hold), [`broadcaster`] (the queues and the loop that fans events
//! out), [`sink`] (where events are written: core/v1 or events.k8s.io/v1),
//! `writer` (one write with its retries, and what a patch that finds the
//! event gone does), [`correlator`] (aggregation, dedupe and the spam
//! filter) and [`series`] (events.k8s.io/v1 series).
//!
//! # The pipeline
//!
//! `record` follows client-go's tools/record: the recorder queues events on a
//! broadcaster (1000 deep; the non-blocking call drops when full); the
//! broadcaster calls its watchers (plain callbacks) at once and puts each event
//! on the sink's own queue, also 1000 deep and dropping when full (each
//! `watch.Broadcaster` watcher has its own), so a sink that is retrying holds up
//! neither the watchers nor the recorders. The sink's writer runs the
//! correlator in client-go's order — aggregate (10 similar events, the window
//! sliding until 600 s pass with none; the key carries the reporting
//! controller and instance), then dedupe into count/lastTimestamp patches (the
//! key carries the fieldPath; a dropped event still raises the count), then
//! the spam filter (25 per source, object and type, then one per 300 s); LRU
//! caches of 4096 — and writes with 12 tries, the first retry after a random
//! 0–10 s, then 10 s apart. A patch that finds the event gone (the server's
//! event TTL) creates it again with the same name and the count so far, and
//! the correlator follows the created object, so the count goes on
//! (`recordEvent` and `UpdateState`). The sink writes events.k8s.io/v1 when the server
//! serves it — `ApiSink::probe` asks `/apis/events.k8s.io/v1`,
//! `ApiSink::for_server` reads discovery — and core/v1 otherwise; the app
//! probes. For events.k8s.io/v1 the writer follows `tools/events` instead of
//! the correlator (`record/series.rs`): events are keyed by type, action,
//! reason, reporting controller and instance, regarding and related (not the
//! note); the second occurrence starts a series written at once, later ones
//! only count in the cache, every series is written again each 30 minutes, and
//! one quiet for 6 minutes gets its final count and is forgotten; its retries
//! sleep 10 s jittered by up to a quarter each time (`attemptRecording`), with
//! no randomized first retry. Two facts
//! the real apiserver taught: it refuses `deprecatedSource` on a v1 create
//! ("needs to be unset"), so `kubectl get events` shows such events with
//! `reportingComponent` but no `source`; and `note` is immutable, so a repeat
//! only updates `series`. Deliberate deviation: the sync watchers are not
//! given queues of their own, because a callback cannot wait; the one watcher
//! that waits, the sink, has one.

pub mod broadcaster;
pub mod correlator;
pub mod recorder;
pub mod series;
pub mod sink;
mod writer;

use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

pub use broadcaster::EventBroadcaster;
pub use correlator::{Correlator, Decision, EventKey};
pub use recorder::EventRecorder;
pub use sink::{ApiSink, EventSink, EventsApi};

use crate::clock::Timestamp;

/// Events queued before the non-blocking recorder starts dropping (client-go: 1000).
pub const QUEUE_LENGTH: usize = 1000;
/// Attempts to write one event (client-go: 12).
pub const SINK_TRIES: u32 = 12;
/// Wait between attempts (client-go: 10 s).
pub const SINK_RETRY_INTERVAL: Duration = Duration::from_secs(10);

/// `Normal` or `Warning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// Something expected happened.
    Normal,
    /// Something a person should look at.
    Warning,
}

impl EventType {
    /// The API's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

pub(crate) fn time(t: Timestamp) -> Option<Time> {
    let secs = i64::try_from(t.as_secs()).ok()?;
    k8s_openapi::jiff::Timestamp::from_second(secs)
        .ok()
        .map(Time)
}
