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
