//! The event correlator (client-go tools/record/events_cache.go): spam filter, aggregator and dedupe.
//!
//! Every event passes three stages before it is written:
//! 1. **spam filter** — a token bucket per (source, involved object): burst
//!    25, one more token every 300 s; an event with no token is dropped;
//! 2. **aggregator** — 10 events within 600 s that differ only in their
//!    message become one event "(combined from similar events): …";
//! 3. **dedupe** — an event identical to one already written becomes a patch
//!    of that event (count + 1, lastTimestamp), not a new object.
//!
//! Each stage keeps an LRU cache of 4096 keys.

use std::collections::{HashMap, HashSet, VecDeque};
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
/// Spam filter key: source and object.
type SpamKey = (String, ObjectId);
/// Aggregator key: source, object, type and reason (everything but the message).
type AggregateKey = (String, ObjectId, String, String);

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
    /// Distinct messages seen within the window.
    messages: HashSet<String>,
    /// When the window started.
    first: Timestamp,
}

struct Written {
    name: String,
    count: i32,
}

/// Decides, for each event, whether to drop it, create it or patch an earlier one.
pub struct Correlator {
    spam: Lru<SpamKey, TokenBucket>,
    aggregates: Lru<AggregateKey, Aggregate>,
    written: Lru<EventKey, Written>,
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
        // 1. Spam filter.
        let spam_key = (event.source.clone(), event.object.clone());
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

        // 2. Aggregator.
        let agg_key = (
            event.source.clone(),
            event.object.clone(),
            event.type_.clone(),
            event.reason.clone(),
        );
        // Aggregated events dedupe onto one object per aggregate key, so
        // their dedupe key carries a fixed marker instead of the message.
        let mut key = event.clone();
        let mut message = event.message.clone();
        match self.aggregates.get_mut(&agg_key) {
            Some(a) if now.saturating_sub(a.first) <= AGGREGATE_WINDOW => {
                a.messages.insert(event.message.clone());
                if a.messages.len() >= AGGREGATE_AFTER {
                    key.message = COMBINED_PREFIX.to_string();
                    message = format!("{COMBINED_PREFIX}{}", event.message);
                }
            }
            _ => {
                self.aggregates.insert(
                    agg_key,
                    Aggregate {
                        messages: HashSet::from([event.message.clone()]),
                        first: now,
                    },
                );
            }
        }

        // 3. Dedupe.
        if let Some(w) = self.written.get_mut(&key) {
            w.count += 1;
            return Decision::Patch {
                name: w.name.clone(),
                count: w.count,
                message,
            };
        }
        self.written.insert(
            key.clone(),
            Written {
                name: name_for_new.to_string(),
                count: 1,
            },
        );
        Decision::Create { message }
    }

    /// Forgets that an event was written (its patch found it gone).
    pub fn forget_written(&mut self, event: &EventKey) {
        self.written.map.remove(event);
        self.written.order.retain(|k| k != event);
    }
}
