//! One Event as every page shows it, decoded once from core/v1 (events.k8s.io's fields as core/v1 serves them included).

use crate::rules::time::{Seconds, age, parse_time};
use kubeglass_client::cache::object_key;
use kubeglass_client::kube_core::DynamicObject;

/// One Event in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    /// `namespace/name` of the Event object.
    pub key: String,
    /// `Normal` or `Warning`.
    pub type_: String,
    /// Reason.
    pub reason: String,
    /// `kind/name` of the involved object.
    pub object: String,
    /// The involved object's kind, apiVersion, namespace and name.
    pub involved: Involved,
    /// Namespace.
    pub namespace: String,
    /// Message (text, never markup).
    pub message: String,
    /// How many times it happened.
    pub count: i32,
    /// Last seen, seconds since the epoch (for sorting and ages).
    pub last_seen: i64,
    /// First seen, seconds since the epoch.
    pub first_seen: i64,
    /// Who reported it.
    pub source: String,
}

/// The object an Event is about.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Involved {
    /// Its kind (`Pod`, `Deployment`, …).
    pub kind: String,
    /// Its apiVersion (`v1`, `apps/v1`).
    pub api_version: String,
    /// Its namespace (empty for cluster-scoped objects).
    pub namespace: String,
    /// Its name.
    pub name: String,
}

/// When an event was first and last seen, in seconds (see
/// [`EventRow::from_object`]); 0 when no time can be read.
fn seen_times(e: &DynamicObject) -> (i64, i64) {
    let time = |p: &str| {
        e.data
            .pointer(p)
            .and_then(|v| v.as_str())
            .and_then(parse_time)
            .filter(|t| *t > 0.0)
    };
    let created = e
        .metadata
        .creation_timestamp
        .as_ref()
        .map(|t| t.0.as_second() as f64)
        .filter(|t| *t > 0.0);
    let newest = [
        time("/lastTimestamp"),
        time("/series/lastObservedTime"),
        time("/eventTime"),
    ]
    .into_iter()
    .flatten()
    .reduce(f64::max);
    let last_seen = newest
        .or_else(|| time("/firstTimestamp"))
        .or(created)
        .unwrap_or(0.0) as i64;
    let first_seen = time("/firstTimestamp")
        .or_else(|| time("/eventTime"))
        .map_or(last_seen, |t| t as i64);
    (first_seen, last_seen)
}

/// How many times an event happened: `count`, else `series.count` (an
/// events.k8s.io Event read through core/v1 has `count: 0` and its count in
/// the series), else 1.
fn count(e: &DynamicObject) -> i32 {
    let positive = |p: &str| {
        e.data
            .pointer(p)
            .and_then(|v| v.as_i64())
            .filter(|n| *n > 0)
    };
    positive("/count")
        .or_else(|| positive("/series/count"))
        .unwrap_or(1)
        .clamp(0, i64::from(i32::MAX)) as i32
}

impl EventRow {
    /// Reads a core/v1 Event, events.k8s.io Events included as core/v1
    /// serves them (`eventTime`, `series`, `count: 0`), read as an untyped object (one object type fewer in the
    /// wasm). Last seen is the newest of `lastTimestamp`,
    /// `series.lastObservedTime` and `eventTime`, then `firstTimestamp`, then
    /// the object's creation; the count is `count`, else `series.count`,
    /// else 1. A time that cannot be read is unknown (0), never 1970.
    pub fn from_object(e: &DynamicObject) -> EventRow {
        let text = |p: &str| {
            e.data
                .pointer(p)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let (first_seen, last_seen) = seen_times(e);
        let count = count(e);
        let type_ = text("/type");
        let kind = text("/involvedObject/kind");
        let name = text("/involvedObject/name");
        let source = Some(text("/reportingComponent"))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| text("/source/component"));
        EventRow {
            key: object_key(e),
            type_: if type_.is_empty() {
                "Normal".into()
            } else {
                type_
            },
            reason: text("/reason"),
            object: format!(
                "{}/{}",
                if kind.is_empty() {
                    "?".into()
                } else {
                    kind.to_ascii_lowercase()
                },
                if name.is_empty() { "?" } else { &name }
            ),
            involved: Involved {
                api_version: text("/involvedObject/apiVersion"),
                namespace: text("/involvedObject/namespace"),
                kind,
                name,
            },
            namespace: e.metadata.namespace.clone().unwrap_or_default(),
            message: text("/message"),
            count,
            last_seen,
            first_seen,
            source,
        }
    }

    /// How long ago it was last seen ("—" when no time could be read).
    pub fn last_seen_age(&self, now: Seconds) -> String {
        seen(now, self.last_seen)
    }

    /// How long ago it was first seen ("—" when no time could be read).
    pub fn first_seen_age(&self, now: Seconds) -> String {
        seen(now, self.first_seen)
    }

    /// True for a Warning.
    pub fn is_warning(&self) -> bool {
        self.type_ == "Warning"
    }
}

fn seen(now: Seconds, at: i64) -> String {
    if at <= 0 {
        "—".to_string()
    } else {
        age(now, at as f64)
    }
}
