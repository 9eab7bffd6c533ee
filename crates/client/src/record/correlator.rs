//! The event correlator (client-go tools/record/events_cache.go): spam filter, aggregator and dedupe.
//!
//! Every event passes three stages, in client-go's order (`EventCorrelate`):
//! 1. **aggregator** — events that differ only in their message (same
//!    source, object, type, reason, reporting controller and instance) are
//!    counted in a sliding window: it starts over only after 600 s with no
//!    similar event. From the 10th distinct message on they become one event
//!    "(combined from similar events): …";
//! 2. **dedupe** (client-go's `eventObserve`) — an event identical to one
//!    already seen (source, object and its fieldPath, type, reason, message;
//!    a combined event by its aggregate key) becomes a patch of that event
//!    (count + 1), not a new object. The count is raised here, before the
//!    spam filter, so a dropped event still counts;
//! 3. **spam filter** — a token bucket per (source, involved object, type):
//!    burst 25, one more token every 300 s; an event with no token is dropped.
//!
//! Each stage keeps an LRU cache of 4096 keys.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use crate::clock::Timestamp;
use crate::rest::limiter::TokenBucket;

/// Entries each cache keeps (client-go: 4096).
pub const CACHE_SIZE: usize = 4096;
/// Spam filter burst per source and object (client-go: 25).
pub const SPAM_BURST: u32 = 25;
/// Spam filter refill: one event per this interval (client-go: 300 s).
pub const SPAM_REFILL: Duration = Duration::from_secs(300);
/// Similar events within this window are aggregated (client-go: 600 s).
pub const AGGREGATE_WINDOW: Duration = Duration::from_secs(600);
/// Similar events before aggregation starts (client-go: 10).
pub const AGGREGATE_AFTER: usize = 10;
/// The prefix of an aggregated event's message.
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";

/// An involved object: kind, namespace, name, uid, apiVersion.
pub type ObjectId = (String, String, String, String, String);
/// Spam filter key: source, object and type (client-go `getSpamKey`).
type SpamKey = (String, ObjectId, String);
/// Aggregator key: source, object, type, reason, reporting controller and
/// instance: everything but the message (client-go `EventAggregatorByReasonFunc`).
type AggregateKey = (String, ObjectId, String, String, String, String);

fn aggregate_key(event: &EventKey) -> AggregateKey {
    (
        event.source.clone(),
        event.object.clone(),
        event.type_.clone(),
        event.reason.clone(),
        event.reporting_controller.clone(),
        event.reporting_instance.clone(),
    )
}

/// What an event is deduplicated by: its own fields, or, once combined,
/// its aggregate key (so every combined event patches one object).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum DedupeKey {
    Event(EventKey),
    Combined(AggregateKey),
}

/// The fields of an event the correlator looks at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EventKey {
    /// Reporting component (e.g. `kubeglass`).
    pub source: String,
    /// Involved object: kind, namespace, name, uid, apiVersion.
    pub object: ObjectId,
    /// `Normal` or `Warning`.
    pub type_: String,
    /// Reason, e.g. `Scaled`.
    pub reason: String,
    /// Message.
    pub message: String,
    /// The involved object's `fieldPath` (e.g. `spec.containers{web}`).
    pub field_path: String,
    /// `reportingComponent` (e.g. `kubeglass`).
    pub reporting_controller: String,
    /// `reportingInstance`.
    pub reporting_instance: String,
}

/// What to do with an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Dropped by the spam filter.
    Skip,
    /// Write a new event with this message (possibly the combined one).
    Create {
        /// The message to write.
        message: String,
    },
    /// Patch the event written earlier under `name`: count and lastTimestamp.
    Patch {
        /// The existing event's name.
        name: String,
        /// The new count.
        count: i32,
        /// The message to keep.
        message: String,
    },
}

/// A small LRU map: least recently used entries go first when full.
#[derive(Debug)]
struct Lru<K, V> {
    map: HashMap<K, V>,
    order: VecDeque<K>,
    cap: usize,
}

impl<K: Clone + Eq + std::hash::Hash, V> Lru<K, V> {
    fn new(cap: usize) -> Self {
        Self {
            map: HashMap::new(),
            order: VecDeque::new(),
            cap,
        }
    }

    fn touch(&mut self, k: &K) {
        if let Some(pos) = self.order.iter().position(|x| x == k) {
            let key = self.order.remove(pos).expect("position is in range");
            self.order.push_back(key);
        }
    }

    fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        if self.map.contains_key(k) {
            self.touch(k);
        }
        self.map.get_mut(k)
    }

    fn insert(&mut self, k: K, v: V) {
        if self.map.insert(k.clone(), v).is_some() {
            self.touch(&k);
            return;
        }
        self.order.push_back(k);
        while self.order.len() > self.cap {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
    }

    fn len(&self) -> usize {
        self.map.len()
    }
}

struct Aggregate {
    /// Distinct messages seen within the window (ordered, so the one
    /// dropped at the cap, client-go's `PopAny`, is always the same).
    messages: std::collections::BTreeSet<String>,
    /// When the last similar event came: the window slides with it.
    last: Timestamp,
}

struct Written {
    name: String,
    count: i32,
}

/// Decides, for each event, whether to drop it, create it or patch an earlier one.
pub struct Correlator {
    spam: Lru<SpamKey, TokenBucket>,
    aggregates: Lru<AggregateKey, Aggregate>,
    written: Lru<DedupeKey, Written>,
}

impl std::fmt::Debug for Correlator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Correlator")
            .field("spam_keys", &self.spam.len())
            .field("aggregate_keys", &self.aggregates.len())
            .field("written", &self.written.len())
            .finish()
    }
}

impl Default for Correlator {
    fn default() -> Self {
        Self::new(CACHE_SIZE)
    }
}

impl Correlator {
    /// A correlator whose caches keep `cache_size` keys each.
    pub fn new(cache_size: usize) -> Self {
        Self {
            spam: Lru::new(cache_size),
            aggregates: Lru::new(cache_size),
            written: Lru::new(cache_size),
        }
    }

    /// Decides what to do with `event` at `now`; `name_for_new` names the
    /// event object if one is created (remembered for later patches).
    pub fn correlate(&mut self, event: &EventKey, now: Timestamp, name_for_new: &str) -> Decision {
        // 1. Aggregator, with a window that slides with each similar event.
        let agg_key = aggregate_key(event);
        let fresh = self
            .aggregates
            .get_mut(&agg_key)
            .is_some_and(|a| now.saturating_sub(a.last) <= AGGREGATE_WINDOW);
        if !fresh {
            self.aggregates.insert(
                agg_key.clone(),
                Aggregate {
                    messages: Default::default(),
                    last: now,
                },
            );
        }
        let combined = match self.aggregates.get_mut(&agg_key) {
            Some(a) => {
                a.messages.insert(event.message.clone());
                a.last = now;
                if a.messages.len() >= AGGREGATE_AFTER {
                    // Keep the set below the cap, as client-go does.
                    a.messages.pop_first();
                    true
                } else {
                    false
                }
            }
            None => false,
        };
        let (key, message) = if combined {
            (
                DedupeKey::Combined(agg_key),
                format!("{COMBINED_PREFIX}{}", event.message),
            )
        } else {
            (DedupeKey::Event(event.clone()), event.message.clone())
        };

        // 2. Dedupe: the count is raised even if the spam filter drops it.
        let decision = match self.written.get_mut(&key) {
            Some(w) => {
                w.count += 1;
                Decision::Patch {
                    name: w.name.clone(),
                    count: w.count,
                    message,
                }
            }
            None => {
                self.written.insert(
                    key,
                    Written {
                        name: name_for_new.to_string(),
                        count: 1,
                    },
                );
                Decision::Create { message }
            }
        };

        // 3. Spam filter, per source, object and type.
        let spam_key = (
            event.source.clone(),
            event.object.clone(),
            event.type_.clone(),
        );
        if self.spam.get_mut(&spam_key).is_none() {
            self.spam.insert(
                spam_key.clone(),
                TokenBucket::new(1.0 / SPAM_REFILL.as_secs_f64(), SPAM_BURST),
            );
        }
        let allowed = self.spam.get_mut(&spam_key).is_none_or(|b| b.try_take(now));
        if !allowed {
            return Decision::Skip;
        }
        decision
    }

    /// Follows an event that was created again after its patch found it
    /// gone (client-go's `UpdateState`): the entry written as `old_name`,
    /// its own or its combined one, is now `new_name`, with its count kept.
    pub fn update_state(&mut self, event: &EventKey, old_name: &str, new_name: &str) {
        let combined = DedupeKey::Combined(aggregate_key(event));
        for key in [DedupeKey::Event(event.clone()), combined] {
            if let Some(w) = self.written.get_mut(&key)
                && w.name == old_name
            {
                w.name = new_name.to_string();
            }
        }
    }

    /// Forgets that an event was written (a scheduled patch found it gone).
    /// Both the event's own entry and its combined one go: either may be
    /// the one that was patched.
    pub fn forget_written(&mut self, event: &EventKey) {
        let combined = DedupeKey::Combined(aggregate_key(event));
        for key in [DedupeKey::Event(event.clone()), combined] {
            self.written.map.remove(&key);
            self.written.order.retain(|k| k != &key);
        }
    }
}
