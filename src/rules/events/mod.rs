//! Kubernetes Events as the app shows them, one idea a file: one decoder (`row`: core/v1, and events.k8s.io Events as core/v1 serves them), the stream's filter (`filter`), the newest-first index (`index`), the per-minute counts (`spark`) and the words around them (`words`).
//!
//! The event stream, the overview and an object's page all read Events
//! through [`EventRow::from_object`], so a count, a time or an involved
//! object is the same on every page.

mod filter;
mod index;
mod row;
mod spark;
mod words;

pub use filter::*;
pub use index::*;
pub use row::*;
pub use spark::*;
pub use words::*;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

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

    /// Three events: a pod's warning, a pod's scheduling, a deployment's scaling.
    fn three() -> [EventRow; 3] {
        [
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
        ]
    }

    use crate::rules::filter::literal_compile as compile;

    #[test]
    fn filters_combine_type_reason_namespace_kind_object_and_text() {
        let rows = three();
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
