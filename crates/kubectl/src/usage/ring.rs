//! A poll's ring: the points per object, bounded per object, in all, and in time.

use std::collections::{HashMap, VecDeque};

use super::types::{ObjectUsage, Point, RING_POINTS};

/// The most points one poll keeps in all (about 12 MB of points): 2,000
/// objects at a full hour, or 10,000 at twelve minutes.
pub const MAX_TOTAL_POINTS: usize = 500_000;

/// An object missing from every sample for this long (seconds) is
/// forgotten with its points: a pod deleted an hour ago is no longer news.
pub const KEY_TTL_SECS: f64 = 3600.0;

/// One object's points.
#[derive(Default)]
struct Series {
    /// Oldest first; at most `Ring::per_key`.
    points: VecDeque<Point>,
    /// When a sample last named the object.
    last_seen: f64,
    /// The timestamp of the sample the last point came from: a poll that
    /// finds the same sample again (metrics-server has not scraped since)
    /// adds no point.
    last_stamp: String,
}

/// Points per object key, kept within three bounds:
/// - at most `per_key` points an object, the oldest dropped first;
/// - an object not seen for `ttl` seconds is dropped whole;
/// - at most `max_total` points in all. Over that, objects missing from
///   the latest sample go first, whole, the one missing longest first;
///   then the oldest points of the longest series, cutting all to one
///   length. The latest point of an object in the latest sample always
///   stays.
pub(super) struct Ring {
    series: HashMap<String, Series>,
    /// Sum of every series' length.
    total: usize,
    per_key: usize,
    max_total: usize,
    ttl: f64,
}

impl Default for Ring {
    fn default() -> Self {
        Self::with_limits(RING_POINTS, MAX_TOTAL_POINTS, KEY_TTL_SECS)
    }
}

impl Ring {
    /// A ring with its own bounds (tests use small ones).
    pub(super) fn with_limits(per_key: usize, max_total: usize, ttl: f64) -> Self {
        Self {
            series: HashMap::new(),
            total: 0,
            per_key: per_key.max(1),
            max_total,
            ttl,
        }
    }

    /// Adds one sample taken at `at` (clock seconds).
    pub(super) fn record(&mut self, at: f64, sample: &[ObjectUsage]) {
        for o in sample {
            let s = self.series.entry(o.key()).or_default();
            s.last_seen = at;
            if !o.timestamp.is_empty() && s.last_stamp == o.timestamp {
                continue;
            }
            s.last_stamp.clone_from(&o.timestamp);
            s.points.push_back(Point { at, usage: o.usage });
            self.total += 1;
            if s.points.len() > self.per_key {
                s.points.pop_front();
                self.total -= 1;
            }
        }
        let ttl = self.ttl;
        let mut dropped = 0;
        self.series.retain(|_, s| {
            let keep = at - s.last_seen <= ttl;
            if !keep {
                dropped += s.points.len();
            }
            keep
        });
        self.total -= dropped;
        self.bound(at);
    }

    /// Brings the total under `max_total` (see [`Ring`]).
    fn bound(&mut self, at: f64) {
        if self.total <= self.max_total {
            return;
        }
        let mut missing: Vec<(f64, String)> = self
            .series
            .iter()
            .filter(|(_, s)| s.last_seen < at)
            .map(|(k, s)| (s.last_seen, k.clone()))
            .collect();
        missing.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        for (_, key) in missing {
            if self.total <= self.max_total {
                return;
            }
            if let Some(s) = self.series.remove(&key) {
                self.total -= s.points.len();
            }
        }
        let cap = self.fair_cap();
        for s in self.series.values_mut() {
            while s.points.len() > cap {
                s.points.pop_front();
                self.total -= 1;
            }
        }
    }

    /// The largest length such that, with every series cut to it, the
    /// total fits in `max_total` (at least one point each).
    fn fair_cap(&self) -> usize {
        let mut lengths: Vec<usize> = self.series.values().map(|s| s.points.len()).collect();
        lengths.sort_unstable();
        let mut room = self.max_total;
        for (i, len) in lengths.iter().enumerate() {
            let left = lengths.len() - i;
            if len * left > room {
                return (room / left).max(1);
            }
            room -= len;
        }
        self.per_key
    }

    /// The points of `key`, oldest first.
    pub(super) fn points(&self, key: &str) -> Vec<Point> {
        self.series
            .get(key)
            .map(|s| s.points.iter().copied().collect())
            .unwrap_or_default()
    }

    /// Points kept in all.
    pub(super) fn total(&self) -> usize {
        self.total
    }

    /// Objects with a series.
    #[cfg(test)]
    pub(super) fn keys(&self) -> usize {
        self.series.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::Usage;

    fn pod(name: &str, stamp: &str, cpu: f64) -> ObjectUsage {
        ObjectUsage {
            namespace: Some("ns".into()),
            name: name.into(),
            usage: Usage {
                cpu_millis: cpu,
                memory_bytes: 0.0,
            },
            // The ring keeps the numbers only.
            quantities: Default::default(),
            containers: Vec::new(),
            timestamp: stamp.into(),
            window_secs: 15.0,
        }
    }

    #[test]
    fn usage_ring_keeps_a_ring_per_object() {
        let mut h = Ring::default();
        for i in 0..300 {
            let at = f64::from(i) * 15.0;
            h.record(at, &[pod("a", &i.to_string(), f64::from(i))]);
        }
        let p = h.points("ns/a");
        assert_eq!(p.len(), RING_POINTS);
        assert_eq!(p[0].usage.cpu_millis, 60.0, "the oldest went first");
        assert_eq!(p[RING_POINTS - 1].at, 299.0 * 15.0);
        assert_eq!(h.total(), RING_POINTS);
        assert!(h.points("ns/b").is_empty());
    }

    #[test]
    fn usage_ring_adds_no_point_for_a_sample_seen_before() {
        let mut h = Ring::default();
        h.record(0.0, &[pod("a", "t1", 1.0)]);
        h.record(15.0, &[pod("a", "t1", 1.0)]);
        h.record(30.0, &[pod("a", "t2", 2.0), pod("b", "", 1.0)]);
        h.record(45.0, &[pod("b", "", 1.0)]);
        assert_eq!(h.points("ns/a").len(), 2);
        assert_eq!(h.points("ns/b").len(), 2, "no timestamp: every poll counts");
    }

    #[test]
    fn usage_ring_forgets_objects_unseen_for_an_hour() {
        let mut h = Ring::default();
        h.record(0.0, &[pod("gone", "1", 1.0), pod("stays", "1", 1.0)]);
        h.record(3600.0, &[pod("stays", "2", 1.0)]);
        assert_eq!(h.points("ns/gone").len(), 1, "an hour exactly is kept");
        h.record(3615.0, &[pod("stays", "3", 1.0)]);
        assert!(h.points("ns/gone").is_empty());
        assert_eq!(h.keys(), 1);
        assert_eq!(h.total(), 3);
    }

    #[test]
    fn usage_ring_drops_missing_objects_first_then_the_oldest_points() {
        let mut h = Ring::with_limits(10, 20, KEY_TTL_SECS);
        for i in 0..5 {
            let at = f64::from(i);
            let stamp = i.to_string();
            h.record(at, &[pod("old", &stamp, 1.0), pod("a", &stamp, 1.0)]);
        }
        h.record(5.0, &[pod("older", "x", 1.0)]);
        for i in 6..10 {
            let stamp = i.to_string();
            h.record(
                f64::from(i),
                &[pod("a", &stamp, 1.0), pod("b", &stamp, 1.0)],
            );
        }
        // a 9 points, old 5, older 1, b 4: 19.
        assert_eq!(h.total(), 19);
        h.record(10.0, &[pod("a", "10", 1.0), pod("b", "10", 1.0)]);
        // 21 > 20: "old" (missing longest) goes, which is enough.
        assert!(h.points("ns/old").is_empty());
        assert_eq!(h.points("ns/older").len(), 1);
        assert_eq!(h.total(), 16);
        for i in 11..16 {
            let stamp = i.to_string();
            h.record(
                f64::from(i),
                &[pod("a", &stamp, 1.0), pod("b", &stamp, 1.0)],
            );
        }
        // a 10, b 10, older 1: "older" goes.
        assert!(h.points("ns/older").is_empty());
        assert_eq!(h.total(), 20);
        let stamp = "16";
        h.record(
            16.0,
            &[
                pod("a", stamp, 1.0),
                pod("b", stamp, 1.0),
                pod("c", stamp, 1.0),
            ],
        );
        // Nobody is missing: a and b lose their oldest points, c keeps its one.
        assert_eq!(h.points("ns/a").len(), 9);
        assert_eq!(h.points("ns/b").len(), 9);
        assert_eq!(h.points("ns/c").len(), 1);
        assert_eq!(h.points("ns/a")[0].at, 8.0, "the oldest points went");
        assert_eq!(h.points("ns/a")[8].at, 16.0);
        assert!(h.total() <= 20);
    }
}
