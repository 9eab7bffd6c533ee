//! Kubernetes Events as the app shows them: one decoder (core/v1, events.k8s.io Events as core/v1 serves them), the filter, the newest-first index and the per-minute counts.
//!
//! The event stream, the overview and an object's page all read Events
//! through [`EventRow::from_object`], so a count, a time or an involved
//! object is the same on every page.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use kubeglass_client::cache::object_key;
use kubeglass_client::kube_core::DynamicObject;

use crate::model::filter::{Filter, Test, contains_any_case};
use crate::model::time::{Seconds, age, parse_time};

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

/// What the event stream is filtered by; an empty field matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventFilter {
    /// `Normal` or `Warning`.
    pub type_: String,
    /// Exact reason.
    pub reason: String,
    /// Exact namespace of the Event.
    pub namespace: String,
    /// Exact kind of the involved object.
    pub kind: String,
    /// Part of the involved object's name (case-insensitive).
    pub object: String,
    /// Part of the reason, namespace, object, message or source (any
    /// case), or `/pattern/` (the one filter grammar).
    pub text: String,
}

impl EventFilter {
    /// A test of whether a row passes every field that is set, for many
    /// rows: the search terms are read once, and ASCII terms are compared
    /// without allocating. The free text is read with the one filter
    /// grammar (`/pattern/` through `compile`); a pattern that does not
    /// compile passes nothing (the box says why).
    pub fn matcher(
        &self,
        compile: impl Fn(&str) -> Result<Test, String>,
    ) -> impl Fn(&EventRow) -> bool + '_ {
        let object = self.object.to_lowercase();
        let text = Filter::parse(&self.text);
        let all = text == Filter::All;
        let test = text.test(compile);
        move |e: &EventRow| {
            let exact = |want: &str, have: &str| want.is_empty() || want == have;
            exact(&self.type_, &e.type_)
                && exact(&self.reason, &e.reason)
                && exact(&self.namespace, &e.namespace)
                && exact(&self.kind, &e.involved.kind)
                && contains_any_case(&e.involved.name, &object)
                && (all
                    || test.as_ref().is_ok_and(|t| {
                        [&e.reason, &e.namespace, &e.object, &e.message, &e.source]
                            .iter()
                            .any(|f| t(f))
                    }))
        }
    }
}

/// How many events hold each value of one field (the choices of a filter
/// menu, in order).
pub type ValueCounts = BTreeMap<String, usize>;

/// The events, newest first, kept up to date change by change: a frame
/// with a few changed events touches only those, however many the cluster
/// holds. Rows are shared (`Arc`): a paused copy copies the index's keys
/// and counts, not the rows; a filtered list is a list of pointers.
#[derive(Debug, Clone, Default)]
pub struct EventIndex {
    /// Key → last seen (where the row sits in `order`).
    at: HashMap<String, i64>,
    /// (newest first, then key) → row.
    order: BTreeMap<(Reverse<i64>, String), Arc<EventRow>>,
    reasons: ValueCounts,
    namespaces: ValueCounts,
    kinds: ValueCounts,
}

impl EventIndex {
    /// Adds `row`, or replaces the row with its key.
    pub fn upsert(&mut self, row: EventRow) {
        self.remove(&row.key);
        count(&mut self.reasons, &row.reason, true);
        count(&mut self.namespaces, &row.namespace, true);
        count(&mut self.kinds, &row.involved.kind, true);
        self.at.insert(row.key.clone(), row.last_seen);
        self.order
            .insert((Reverse(row.last_seen), row.key.clone()), Arc::new(row));
    }

    /// Removes the row with `key`, if there is one.
    pub fn remove(&mut self, key: &str) {
        let Some(last_seen) = self.at.remove(key) else {
            return;
        };
        if let Some(old) = self.order.remove(&(Reverse(last_seen), key.to_string())) {
            count(&mut self.reasons, &old.reason, false);
            count(&mut self.namespaces, &old.namespace, false);
            count(&mut self.kinds, &old.involved.kind, false);
        }
    }

    /// Applies one frame of an informer's changes: each key with its Event
    /// (added or changed) or with none (deleted). Returns how many of the
    /// added or changed rows pass `counted` (the paused stream's "arrived").
    pub fn apply(
        &mut self,
        changes: impl IntoIterator<Item = (String, Option<EventRow>)>,
        counted: impl Fn(&EventRow) -> bool,
    ) -> usize {
        let mut passed = 0;
        for (key, row) in changes {
            match row {
                Some(row) => {
                    passed += usize::from(counted(&row));
                    self.upsert(row);
                }
                None => self.remove(&key),
            }
        }
        passed
    }

    /// Every row, newest (last seen) first; ties in key order.
    pub fn newest(&self) -> impl Iterator<Item = &Arc<EventRow>> {
        self.order.values()
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Reasons present, sorted.
    pub fn reasons(&self) -> &ValueCounts {
        &self.reasons
    }

    /// Namespaces present, sorted.
    pub fn namespaces(&self) -> &ValueCounts {
        &self.namespaces
    }

    /// Involved objects' kinds present, sorted.
    pub fn kinds(&self) -> &ValueCounts {
        &self.kinds
    }
}

/// Counts one more (or one fewer) event holding `value`; empty values are
/// not menu choices.
fn count(counts: &mut ValueCounts, value: &str, add: bool) {
    if value.is_empty() {
        return;
    }
    if add {
        *counts.entry(value.to_string()).or_default() += 1;
    } else if let Some(n) = counts.get_mut(value) {
        *n -= 1;
        if *n == 0 {
            counts.remove(value);
        }
    }
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
        // An events.k8s.io Event read through core/v1 has `count: 0` and
        // its count in the series.
        let positive = |p: &str| {
            e.data
                .pointer(p)
                .and_then(|v| v.as_i64())
                .filter(|n| *n > 0)
        };
        let count = positive("/count")
            .or_else(|| positive("/series/count"))
            .unwrap_or(1)
            .clamp(0, i64::from(i32::MAX)) as i32;
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

/// The namespace that holds an object's Events: its own, or `default` for a
/// cluster-scoped object (where the kubelet and the controllers record a
/// Node's or a PersistentVolume's).
pub fn events_namespace(object_namespace: Option<&str>) -> &str {
    object_namespace.unwrap_or("default")
}

/// How many events a stream holds, in words.
pub fn held_words(n: usize) -> String {
    match n {
        0 => "no events".to_string(),
        1 => "1 event".to_string(),
        n => format!("{n} events"),
    }
}

/// The paused stream's line: how many events (passing the filter) arrived
/// since the pause.
pub fn arrived_words(n: usize) -> String {
    match n {
        0 => "paused: nothing new yet".to_string(),
        1 => "paused: 1 event arrived".to_string(),
        n => format!("paused: {n} events arrived"),
    }
}

/// A sparkline of counts, oldest first, drawn `width` by `height` (SVG
/// units, y down) with a 2-unit margin top and bottom.
#[derive(Debug, Clone, PartialEq)]
pub struct Sparkline {
    /// An SVG polyline's `points`.
    pub points: String,
    /// The newest count.
    pub last: u32,
    /// The largest count (at least 1: an empty line is flat at the bottom).
    pub peak: u32,
}

impl Sparkline {
    /// Draws `counts` at `step` units apart in a line `height` units high.
    pub fn new(counts: &[u32], step: f64, height: f64) -> Sparkline {
        let peak = counts.iter().copied().max().unwrap_or(0).max(1);
        let points = counts
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let y = height - 2.0 - (height - 4.0) * f64::from(*n) / f64::from(peak);
                format!("{},{y:.1}", i as f64 * step)
            })
            .collect::<Vec<_>>()
            .join(" ");
        Sparkline {
            points,
            last: counts.last().copied().unwrap_or(0),
            peak,
        }
    }
}

/// Events per minute over the last `minutes` minutes before `now`, oldest
/// minute first, counted by last seen (the index is newest first, so the
/// count stops at the first older event).
pub fn per_minute(index: &EventIndex, now: Seconds, minutes: usize) -> Vec<u32> {
    let mut buckets = vec![0u32; minutes];
    for e in index.newest() {
        let ago = ((now - e.last_seen as f64) / 60.0).floor();
        if ago >= minutes as f64 {
            break;
        }
        if ago >= 0.0 {
            buckets[minutes - 1 - ago as usize] += 1;
        }
    }
    buckets
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(name: &str, body: serde_json::Value) -> EventRow {
        let mut v = json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "shop"}});
        if let (Some(m), serde_json::Value::Object(b)) = (v.as_object_mut(), body) {
            m.extend(b);
        }
        EventRow::from_object(&serde_json::from_value(v).expect("an event"))
    }

    #[test]
    fn rows_carry_the_involved_object_and_first_and_last_seen() {
        let e = event(
            "a",
            json!({"type": "Warning", "reason": "BackOff", "count": 7,
            "involvedObject": {"kind": "Pod", "apiVersion": "v1", "namespace": "shop", "name": "cart-1"},
            "firstTimestamp": "2026-11-30T10:00:00Z", "lastTimestamp": "2026-11-30T10:05:00Z",
            "message": "<b>restarting</b>", "source": {"component": "kubelet"}}),
        );
        assert_eq!(e.object, "pod/cart-1");
        assert_eq!(e.involved.api_version, "v1");
        assert_eq!(e.last_seen - e.first_seen, 300);
        assert_eq!((e.count, e.source.as_str()), (7, "kubelet"));
        assert_eq!(e.message, "<b>restarting</b>", "kept as text");
        // events.k8s.io-style: eventTime only, series count.
        let e = event(
            "b",
            json!({"eventTime": "2026-11-30T10:00:00.000000Z",
            "series": {"count": 3}, "involvedObject": {"kind": "Node", "name": "n1"}}),
        );
        assert_eq!(
            (e.first_seen, e.count, e.type_.as_str()),
            (e.last_seen, 3, "Normal")
        );
    }

    #[test]
    fn filters_combine_type_reason_namespace_kind_object_and_text() {
        let rows = [
            event(
                "a",
                json!({"type": "Warning", "reason": "BackOff", "message": "back-off restarting",
                "involvedObject": {"kind": "Pod", "name": "cart-1"}}),
            ),
            event(
                "b",
                json!({"type": "Normal", "reason": "Scheduled",
                "involvedObject": {"kind": "Pod", "name": "web-2"}}),
            ),
            event(
                "c",
                json!({"type": "Normal", "reason": "ScalingReplicaSet",
                "involvedObject": {"kind": "Deployment", "name": "cart"}}),
            ),
        ];
        // A stand-in for the browser's RegExp: a literal, in any case.
        let compile = |p: &str| -> Result<Test, String> {
            if p.contains('(') {
                return Err("Unterminated group".into());
            }
            let p = p.to_lowercase();
            Ok(Box::new(move |t: &str| t.to_lowercase().contains(&p)))
        };
        let pass = |f: EventFilter| -> Vec<String> {
            rows.iter()
                .filter(|e| f.matcher(compile)(e))
                .map(|e| e.key.clone())
                .collect()
        };
        // The free text reads the one grammar: a pattern, or a bad one that passes nothing.
        let text = |t: &str| EventFilter {
            text: t.into(),
            ..Default::default()
        };
        assert_eq!(pass(text("/BACK-OFF/")), ["shop/a"]);
        assert!(pass(text("/back(/")).is_empty());
        assert_eq!(pass(EventFilter::default()).len(), 3);
        assert_eq!(
            pass(EventFilter {
                type_: "Warning".into(),
                ..Default::default()
            }),
            ["shop/a"]
        );
        assert_eq!(
            pass(EventFilter {
                kind: "Pod".into(),
                ..Default::default()
            }),
            ["shop/a", "shop/b"]
        );
        assert_eq!(
            pass(EventFilter {
                object: "CART".into(),
                ..Default::default()
            }),
            ["shop/a", "shop/c"]
        );
        assert_eq!(
            pass(EventFilter {
                kind: "Pod".into(),
                object: "cart".into(),
                ..Default::default()
            }),
            ["shop/a"]
        );
        assert_eq!(
            pass(EventFilter {
                reason: "Scheduled".into(),
                ..Default::default()
            }),
            ["shop/b"]
        );
        assert!(
            pass(EventFilter {
                namespace: "other".into(),
                ..Default::default()
            })
            .is_empty()
        );
        assert_eq!(
            pass(EventFilter {
                text: "RESTARTING".into(),
                ..Default::default()
            }),
            ["shop/a"]
        );
    }

    fn at(name: &str, reason: &str, kind: &str, last: u32) -> EventRow {
        let mut e = event(
            name,
            json!({"reason": reason, "involvedObject": {"kind": kind, "name": "x"}}),
        );
        e.last_seen = i64::from(last);
        e
    }

    #[test]
    fn the_index_keeps_newest_first_and_the_menu_choices_change_by_change() {
        let mut ix = EventIndex::default();
        ix.upsert(at("a", "BackOff", "Pod", 10));
        ix.upsert(at("b", "Scheduled", "Pod", 30));
        ix.upsert(at("c", "ScalingReplicaSet", "Deployment", 20));
        let keys = |ix: &EventIndex| ix.newest().map(|e| e.key.clone()).collect::<Vec<_>>();
        assert_eq!(keys(&ix), ["shop/b", "shop/c", "shop/a"]);
        let names = |c: &ValueCounts| c.keys().cloned().collect::<Vec<_>>();
        assert_eq!(names(ix.kinds()), ["Deployment", "Pod"]);
        assert_eq!(
            names(ix.reasons()),
            ["BackOff", "ScalingReplicaSet", "Scheduled"]
        );
        // An update moves its row and its counts; nothing is listed twice.
        ix.upsert(at("a", "Pulled", "Pod", 40));
        assert_eq!(keys(&ix), ["shop/a", "shop/b", "shop/c"]);
        assert_eq!(
            names(ix.reasons()),
            ["Pulled", "ScalingReplicaSet", "Scheduled"]
        );
        // The last event of a kind takes the kind off the menu.
        ix.remove("shop/c");
        ix.remove("shop/missing");
        assert_eq!(names(ix.kinds()), ["Pod"]);
        assert_eq!(ix.kinds()["Pod"], 2);
        assert_eq!((ix.len(), ix.namespaces()["shop"]), (2, 2));
    }

    #[test]
    fn the_index_agrees_with_a_full_sort_after_many_changes() {
        let mut ix = EventIndex::default();
        let mut model: BTreeMap<String, EventRow> = BTreeMap::new();
        // A fixed pseudo-random walk of upserts and removals over 50 keys.
        let mut x: u32 = 12345;
        for _ in 0..3_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let name = format!("e{}", (x >> 8) % 50);
            if (x >> 20).is_multiple_of(4) {
                ix.remove(&format!("shop/{name}"));
                model.remove(&format!("shop/{name}"));
            } else {
                let reasons = ["A", "B", "C"];
                let row = at(
                    &name,
                    reasons[(x >> 4) as usize % 3],
                    "Pod",
                    (x >> 12) % 100,
                );
                model.insert(row.key.clone(), row.clone());
                ix.upsert(row);
            }
        }
        let mut want: Vec<&EventRow> = model.values().collect();
        want.sort_by(|a, b| {
            b.last_seen
                .cmp(&a.last_seen)
                .then_with(|| a.key.cmp(&b.key))
        });
        let got: Vec<&EventRow> = ix.newest().map(|e| e.as_ref()).collect();
        assert_eq!(got, want);
        let mut reasons = ValueCounts::new();
        for e in model.values() {
            *reasons.entry(e.reason.clone()).or_default() += 1;
        }
        assert_eq!(ix.reasons(), &reasons);
    }

    #[test]
    fn events_k8s_io_shapes_read_their_series_and_never_1970() {
        // A series: the newest observation is last seen; the series counts.
        let e = event(
            "s",
            json!({"eventTime": "2026-11-30T10:00:00.000000Z",
                "series": {"count": 12, "lastObservedTime": "2026-11-30T10:30:00.000000Z"},
                "involvedObject": {"kind": "Pod", "name": "p"}}),
        );
        assert_eq!(e.count, 12);
        assert_eq!(e.last_seen - e.first_seen, 1800);
        assert_eq!(e.last_seen_age(e.last_seen as f64 + 3.0 * 86_400.0), "3d");
        // No time at all: unknown, shown as such.
        let e = event("n", json!({"involvedObject": {"kind": "Pod", "name": "p"}}));
        assert_eq!(e.last_seen, 0);
        assert_eq!(e.last_seen_age(1_800_000_000.0), "—");
        // As core/v1 serves an events.k8s.io Event: no lastTimestamp, count 0.
        let e = event(
            "m",
            json!({"lastTimestamp": null, "count": 0, "eventTime": "2026-11-30T10:00:00.000000Z",
                "series": {"count": 4, "lastObservedTime": "2026-11-30T10:05:00.000000Z"}}),
        );
        assert_eq!((e.last_seen, e.count), (1_796_033_100, 4));
    }

    #[test]
    fn a_frame_of_changes_upserts_removes_and_counts_what_passes() {
        let mut ix = EventIndex::default();
        let warning = |e: &EventRow| e.is_warning();
        let mut a = at("a", "BackOff", "Pod", 0);
        a.type_ = "Warning".into();
        let b = at("b", "Pulled", "Pod", 0);
        let key_a = a.key.clone();
        let key_b = b.key.clone();
        let n = ix.apply(
            [(key_a.clone(), Some(a.clone())), (key_b.clone(), Some(b))],
            warning,
        );
        assert_eq!((n, ix.len()), (1, 2), "one Warning passed; both held");
        // A change counts again; a deletion counts nothing.
        let n = ix.apply([(key_a.clone(), Some(a)), (key_b, None)], warning);
        assert_eq!((n, ix.len()), (1, 1));
        assert_eq!(ix.apply([(key_a, None)], |_| true), 0);
        assert_eq!(ix.len(), 0);
        assert!(ix.reasons().is_empty(), "the menus follow");
    }

    #[test]
    fn words_for_the_stream() {
        assert_eq!(events_namespace(Some("shop")), "shop");
        assert_eq!(events_namespace(None), "default", "a Node's events");
        assert_eq!(
            [held_words(0), held_words(1), held_words(2)],
            ["no events", "1 event", "2 events"]
        );
        assert_eq!(
            [arrived_words(0), arrived_words(1), arrived_words(3)],
            [
                "paused: nothing new yet",
                "paused: 1 event arrived",
                "paused: 3 events arrived"
            ]
        );
    }

    #[test]
    fn a_sparkline_scales_to_its_peak() {
        let s = Sparkline::new(&[0, 2, 4], 4.0, 24.0);
        assert_eq!(s.points, "0,22.0 4,12.0 8,2.0");
        assert_eq!((s.last, s.peak), (4, 4));
        let flat = Sparkline::new(&[0, 0], 4.0, 24.0);
        assert_eq!((flat.points.as_str(), flat.peak), ("0,22.0 4,22.0", 1));
    }

    #[test]
    fn per_minute_counts_the_last_half_hour_by_last_seen() {
        let mut ix = EventIndex::default();
        let now = 10_000.0;
        for (name, ago) in [("a", 10), ("b", 50), ("c", 70), ("d", 4000)] {
            let mut e = at(name, "R", "Pod", 0);
            e.last_seen = (now as i64) - ago;
            ix.upsert(e);
        }
        let b = per_minute(&ix, now, 30);
        assert_eq!(b.len(), 30);
        assert_eq!((b[29], b[28]), (2, 1));
        assert_eq!(b.iter().sum::<u32>(), 3, "the hour-old event is outside");
    }
}
