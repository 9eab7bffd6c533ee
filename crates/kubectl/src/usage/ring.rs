//! A poll's ring: the points per object, bounded per object, in all, and in time.

use std::collections::{HashMap, VecDeque};

use super::types::{ObjectUsage, Point, RING_POINTS};

/// The most points one poll keeps in all (about 12 MB of points): 2,000
/// objects at a full hour, or 10,000 at twelve minutes.
pub const MAX_TOTAL_POINTS: usize = 500_000;

/// An object missing from every sample for this long (seconds) is
/// forgotten with its points: a pod deleted an hour ago is no longer news.
pub const KEY_TTL_SECS: f64 = 3600.0;

/// The saved form's version: a later one is not read as this.
const SAVED_FORM: u32 = 1;

/// A ring as saved: per object its key, last sample stamp, when last seen,
/// and its points as `[at, millicores, bytes]`.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedRing {
    v: u32,
    series: Vec<SavedSeries>,
}

type SavedSeries = (String, String, f64, Vec<(f64, f64, f64)>);

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
        // At least one point each: the latest of an object in the latest
        // sample always stays.
        let cap = self.cap_for(self.max_total).max(1);
        for s in self.series.values_mut() {
            while s.points.len() > cap {
                s.points.pop_front();
                self.total -= 1;
            }
        }
    }

    /// The points of `key`, oldest first.
    pub(super) fn points(&self, key: &str) -> Vec<Point> {
        self.series
            .get(key)
            .map(|s| s.points.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The ring as text for a later visit: every object's last sample
    /// stamp, when it was last seen and its points, the newest
    /// `max_points` in all (each series cut to one length, as
    /// [`Ring::bound`] cuts).
    pub(super) fn to_text(&self, max_points: usize) -> String {
        let cap = self.cap_for(max_points);
        let series = self
            .series
            .iter()
            .map(|(k, s)| {
                let skip = s.points.len().saturating_sub(cap);
                let points = s
                    .points
                    .iter()
                    .skip(skip)
                    .map(|p| (p.at, p.usage.cpu_millis, p.usage.memory_bytes))
                    .collect();
                (k.clone(), s.last_stamp.clone(), s.last_seen, points)
            })
            .collect();
        serde_json::to_string(&SavedRing {
            v: SAVED_FORM,
            series,
        })
        .unwrap_or_default()
    }

    /// Takes in what [`Ring::to_text`] wrote, at `now` (clock seconds):
    /// objects unseen for longer than the ring's time-to-live and points
    /// from the future are left out, and the ring's bounds hold. Returns
    /// the points taken in.
    pub(super) fn restore(&mut self, text: &str, now: f64) -> Result<usize, String> {
        let saved: SavedRing = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if saved.v != SAVED_FORM {
            return Err(format!("saved usage of form {}, not {SAVED_FORM}", saved.v));
        }
        for (key, stamp, last_seen, points) in saved.series {
            if now - last_seen > self.ttl {
                continue;
            }
            let s = self.series.entry(key).or_default();
            s.last_seen = s.last_seen.max(last_seen);
            s.last_stamp = stamp;
            let fresh = points.into_iter().filter(|(at, _, _)| *at <= now).map(
                |(at, cpu_millis, memory_bytes)| Point {
                    at,
                    usage: super::types::Usage {
                        cpu_millis,
                        memory_bytes,
                    },
                },
            );
            for p in fresh {
                s.points.push_back(p);
                self.total += 1;
                if s.points.len() > self.per_key {
                    s.points.pop_front();
                    self.total -= 1;
                }
            }
        }
        self.bound(now);
        Ok(self.total)
    }

    /// The largest length such that, with every series cut to it, the
    /// total fits in `max_points` (the ring's bound, or a save's).
    fn cap_for(&self, max_points: usize) -> usize {
        let mut lengths: Vec<usize> = self.series.values().map(|s| s.points.len()).collect();
        lengths.sort_unstable();
        let mut room = max_points;
        for (i, len) in lengths.iter().enumerate() {
            let left = lengths.len() - i;
            if len * left > room {
                return room / left;
            }
            room -= len;
        }
        self.per_key
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
    fn a_saved_ring_comes_back_within_its_bounds() {
        let mut h = Ring::default();
        for i in 0..10 {
            let at = 1000.0 + f64::from(i) * 15.0;
            h.record(
                at,
                &[
                    pod("a", &i.to_string(), f64::from(i)),
                    pod("b", &i.to_string(), 1.0),
                ],
            );
        }
        h.record(1200.0, &[pod("b", "x", 2.0)]);
        let text = h.to_text(100);
        let mut back = Ring::default();
        assert_eq!(back.restore(&text, 1300.0), Ok(21));
        assert_eq!(back.points("ns/a"), h.points("ns/a"));
        assert_eq!(back.points("ns/b"), h.points("ns/b"));
        // The last stamp came back: the same sample again adds no point.
        back.record(1315.0, &[pod("b", "x", 2.0)]);
        assert_eq!(back.points("ns/b").len(), 11);
        // The newest points only, when fewer are saved.
        let mut cut = Ring::default();
        assert_eq!(cut.restore(&h.to_text(8), 1300.0), Ok(8));
        assert_eq!(cut.points("ns/a").len(), 4);
        assert_eq!(
            cut.points("ns/a")[3].at,
            h.points("ns/a")[9].at,
            "the newest kept"
        );
        // An hour later "a" (last seen at 1135) is forgotten; b (1200) too
        // at 4801; a point from the future is not taken.
        let mut late = Ring::default();
        assert_eq!(late.restore(&text, 1135.0 + 3601.0), Ok(11));
        assert!(late.points("ns/a").is_empty());
        let mut early = Ring::default();
        assert_eq!(
            early.restore(&text, 1100.0),
            Ok(14),
            "points after 1100 are from the future"
        );
        assert!(Ring::default().restore("{}", 0.0).is_err());
        assert!(
            Ring::default()
                .restore(r#"{"v":2,"series":[]}"#, 0.0)
                .is_err()
        );
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
