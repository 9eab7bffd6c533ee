//! events.k8s.io/v1 series the way client-go's `tools/events` keeps them: repeats counted in a cache, written on a schedule.
//!
//! Events are keyed by their isomorphic key (type, action, reason,
//! reporting controller and instance, regarding, related; not the note).
//! - The first event of a key is created.
//! - The second turns it into a series (count 2, last observed now) and is
//!   written at once.
//! - Later repeats only bump the count and the last observed time in the
//!   cache; nothing is sent.
//! - Every [`REFRESH_TIME`] (30 min) each series is written with its
//!   current count, which also keeps it from the server's event TTL.
//! - Every [`FINISH_TIME`] (6 min) a series quiet for that long is written
//!   one last time with its final count and forgotten; a single event that
//!   old is forgotten.

use std::collections::HashMap;
use std::time::Duration;

use crate::clock::Timestamp;

/// A series quiet this long is finished (client-go: 6 min).
pub const FINISH_TIME: Duration = Duration::from_secs(6 * 60);
/// Series are written again this often (client-go: 30 min).
pub const REFRESH_TIME: Duration = Duration::from_secs(30 * 60);

/// The fields that make two events the same occurrence (client-go `getKey`):
/// type, action, reason, reporting controller, reporting instance, the
/// regarding object and the related one, each as text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IsomorphicKey {
    /// `Normal` or `Warning`.
    pub type_: String,
    /// What was done (`Scaled`).
    pub action: String,
    /// Why (`Scaled`).
    pub reason: String,
    /// The reporting controller.
    pub reporting_controller: String,
    /// The reporting instance.
    pub reporting_instance: String,
    /// The regarding object: kind, namespace, name, uid, apiVersion, fieldPath.
    pub regarding: [String; 6],
    /// The related object, if any, in the same form.
    pub related: [String; 6],
}

/// A write the cache asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeriesWrite {
    /// Create the event (its first occurrence).
    Create,
    /// Write the series of the event created as `name` in `namespace`.
    Series {
        /// The event's namespace.
        namespace: String,
        /// The event's name.
        name: String,
        /// Occurrences so far.
        count: i32,
        /// When the last one was seen.
        last_observed: Timestamp,
    },
}

#[derive(Debug, Clone)]
struct Entry {
    namespace: String,
    name: String,
    /// When it was first seen (a single event's age).
    first: Timestamp,
    /// Present once the event repeated.
    series: Option<(i32, Timestamp)>,
}

/// The isomorphic events seen, with their series; clock-free (the caller
/// passes `now`).
#[derive(Debug, Default)]
pub struct SeriesCache {
    entries: HashMap<IsomorphicKey, Entry>,
}

impl SeriesCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// One occurrence of `key` at `now`; a new event would be created as
    /// `name` in `namespace`. Returns the write to make now, if any.
    pub fn observe(
        &mut self,
        key: IsomorphicKey,
        now: Timestamp,
        namespace: &str,
        name: &str,
    ) -> Option<SeriesWrite> {
        match self.entries.get_mut(&key) {
            None => {
                self.entries.insert(
                    key,
                    Entry {
                        namespace: namespace.to_string(),
                        name: name.to_string(),
                        first: now,
                        series: None,
                    },
                );
                Some(SeriesWrite::Create)
            }
            Some(e) => match &mut e.series {
                Some((count, last)) => {
                    *count += 1;
                    *last = now;
                    None
                }
                None => {
                    e.series = Some((2, now));
                    Some(SeriesWrite::Series {
                        namespace: e.namespace.clone(),
                        name: e.name.clone(),
                        count: 2,
                        last_observed: now,
                    })
                }
            },
        }
    }

    /// The periodic refresh: every series as it stands now.
    pub fn refresh(&self) -> Vec<SeriesWrite> {
        let mut out: Vec<SeriesWrite> = self
            .entries
            .values()
            .filter_map(|e| {
                e.series.map(|(count, last)| SeriesWrite::Series {
                    namespace: e.namespace.clone(),
                    name: e.name.clone(),
                    count,
                    last_observed: last,
                })
            })
            .collect();
        out.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        out
    }

    /// The periodic finish at `now`: series quiet for [`FINISH_TIME`] get a
    /// last write and are forgotten; single events that old are forgotten.
    pub fn finish(&mut self, now: Timestamp) -> Vec<SeriesWrite> {
        let mut out = Vec::new();
        self.entries.retain(|_, e| match e.series {
            Some((count, last)) if now.saturating_sub(last) > FINISH_TIME => {
                out.push(SeriesWrite::Series {
                    namespace: e.namespace.clone(),
                    name: e.name.clone(),
                    count,
                    last_observed: last,
                });
                false
            }
            Some(_) => true,
            None => now.saturating_sub(e.first) <= FINISH_TIME,
        });
        out.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        out
    }

    /// Forgets the event created as `name` (its write found it gone), so
    /// the next occurrence creates it anew.
    pub fn forget(&mut self, namespace: &str, name: &str) {
        self.entries
            .retain(|_, e| !(e.namespace == namespace && e.name == name));
    }

    /// Events held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
