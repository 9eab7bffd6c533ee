//! The correlator (client-go events_cache_test): aggregation, the spam filter, keys, bounded caches.

use super::*;

// client-go EventCorrelate runs aggregate → observe → spam filter: an event
// the spam filter drops still raises the count, so the next one let through
// patches instead of creating.
#[test]
fn a_dropped_event_still_raises_the_count() {
    let mut c = Correlator::default();
    for i in 0..SPAM_BURST {
        assert!(matches!(
            c.correlate(&key("web", &format!("R{i}"), "m"), T0, &format!("e{i}")),
            Decision::Create { .. }
        ));
    }
    let k = key("web", "Again", "m");
    assert_eq!(c.correlate(&k, T0, "again"), Decision::Skip);
    assert_eq!(
        c.correlate(&k, T0 + SPAM_REFILL, "ignored"),
        Decision::Patch {
            name: "again".into(),
            count: 2,
            message: "m".into()
        }
    );
}

// getSpamKey includes the event type: Warnings have a bucket of their own.
#[test]
fn the_spam_key_includes_the_type() {
    let mut c = Correlator::default();
    for i in 0..SPAM_BURST {
        c.correlate(&key("web", &format!("R{i}"), "m"), T0, &format!("e{i}"));
    }
    assert_eq!(
        c.correlate(&key("web", "More", "m"), T0, "x"),
        Decision::Skip
    );
    let mut warning = key("web", "Failed", "m");
    warning.type_ = "Warning".into();
    assert!(matches!(
        c.correlate(&warning, T0, "w"),
        Decision::Create { .. }
    ));
}

// getEventKey includes fieldPath; the aggregate key the reporting
// controller and instance.
#[test]
fn field_path_and_reporter_keep_events_apart() {
    let mut c = Correlator::default();
    let mut a = key("web", "Pulled", "image");
    a.field_path = "spec.containers{web}".into();
    let mut b = a.clone();
    b.field_path = "spec.containers{sidecar}".into();
    assert!(matches!(c.correlate(&a, T0, "a"), Decision::Create { .. }));
    assert!(matches!(c.correlate(&b, T0, "b"), Decision::Create { .. }));
    // Nine messages from one instance and one from another: not ten similar.
    let mut c = Correlator::default();
    for i in 0..AGGREGATE_AFTER - 1 {
        c.correlate(
            &key("web", "Pulling", &format!("image {i}")),
            T0,
            &format!("e{i}"),
        );
    }
    let mut other = key("web", "Pulling", "image 9");
    other.reporting_instance = "kubeglass-2".into();
    assert_eq!(
        c.correlate(&other, T0, "o"),
        Decision::Create {
            message: "image 9".into()
        }
    );
}

// The aggregation window slides: it starts over only after 600 s with no
// similar event, however long ago the first one came.
#[test]
fn the_aggregation_window_slides_with_each_similar_event() {
    let mut c = Correlator::default();
    let mut t = T0;
    for i in 0..AGGREGATE_AFTER - 1 {
        c.correlate(
            &key("web", "Pulling", &format!("image {i}")),
            t,
            &format!("e{i}"),
        );
        t += Duration::from_secs(500);
    }
    // 4,500 s after the first, 500 s after the last: the 10th is combined.
    assert_eq!(
        c.correlate(&key("web", "Pulling", "image 9"), t, "combined"),
        Decision::Create {
            message: format!("{COMBINED_PREFIX}image 9")
        }
    );
}

// TestEventCorrelator "the same event": created once, then patched with a count.
#[test]
fn identical_events_become_patches_with_a_count() {
    let mut c = Correlator::default();
    let k = key("web", "Scaled", "scaled to 3");
    assert_eq!(
        c.correlate(&k, T0, "web.1"),
        Decision::Create {
            message: "scaled to 3".into()
        }
    );
    assert_eq!(
        c.correlate(&k, T0, "web.2"),
        Decision::Patch {
            name: "web.1".into(),
            count: 2,
            message: "scaled to 3".into()
        }
    );
    assert!(matches!(
        c.correlate(&k, T0, "web.3"),
        Decision::Patch { count: 3, .. }
    ));
}

// Spam filter: burst 25 per source+object, then one per 300 s; other objects unaffected.
#[test]
fn the_spam_filter_allows_25_then_one_per_300_seconds() {
    let mut c = Correlator::default();
    let mut created = 0;
    for i in 0..30 {
        // Distinct reasons, so neither aggregation nor dedupe hides anything.
        match c.correlate(&key("web", &format!("R{i}"), "m"), T0, &format!("e{i}")) {
            Decision::Skip => {}
            _ => created += 1,
        }
    }
    assert_eq!(created, SPAM_BURST as usize);
    assert!(!matches!(
        c.correlate(&key("other", "R", "m"), T0, "o"),
        Decision::Skip
    ));
    assert_eq!(
        c.correlate(&key("web", "late", "m"), T0 + Duration::from_secs(299), "x"),
        Decision::Skip
    );
    assert!(!matches!(
        c.correlate(
            &key("web", "later", "m"),
            T0 + Duration::from_secs(300),
            "y"
        ),
        Decision::Skip
    ));
}

// Aggregator: the 10th similar event (same reason, new message) within 600 s is combined.
#[test]
fn ten_similar_events_are_combined() {
    let mut c = Correlator::default();
    for i in 0..AGGREGATE_AFTER - 1 {
        let d = c.correlate(
            &key("web", "Pulling", &format!("image {i}")),
            T0,
            &format!("e{i}"),
        );
        assert_eq!(
            d,
            Decision::Create {
                message: format!("image {i}")
            }
        );
    }
    let d = c.correlate(&key("web", "Pulling", "image 9"), T0, "combined");
    assert_eq!(
        d,
        Decision::Create {
            message: format!("{COMBINED_PREFIX}image 9")
        }
    );
    // Further similar events patch the combined one.
    let d = c.correlate(&key("web", "Pulling", "image 10"), T0, "ignored");
    assert_eq!(
        d,
        Decision::Patch {
            name: "combined".into(),
            count: 2,
            message: format!("{COMBINED_PREFIX}image 10")
        }
    );
    // After the window the count starts over.
    let d = c.correlate(
        &key("web", "Pulling", "image 11"),
        T0 + Duration::from_secs(601),
        "fresh",
    );
    assert_eq!(
        d,
        Decision::Create {
            message: "image 11".into()
        }
    );
}

#[test]
fn caches_are_bounded() {
    let mut c = Correlator::new(8);
    for i in 0..100 {
        c.correlate(&key(&format!("o{i}"), "R", "m"), T0, &format!("e{i}"));
    }
    // The first object was evicted everywhere: it is new again.
    assert_eq!(
        c.correlate(&key("o0", "R", "m"), T0, "again"),
        Decision::Create {
            message: "m".into()
        }
    );
    assert!(format!("{c:?}").contains("written: 8"));
}

// The defaults are client-go's: caches of 4096 keys, a queue of 1000 events.
#[test]
fn the_default_correlator_remembers_4096_objects() {
    use kubeglass_client::record::correlator::CACHE_SIZE;
    assert_eq!(CACHE_SIZE, 4096);
    let mut c = Correlator::default();
    for i in 0..CACHE_SIZE {
        c.correlate(&key(&format!("o{i}"), "R", "m"), T0, &format!("e{i}"));
    }
    // All 4096 are still known: a repeat is a patch.
    assert!(matches!(
        c.correlate(&key("o0", "R", "m"), T0, "x"),
        Decision::Patch { .. }
    ));
    // One more object evicts the least recently used (o1, since o0 was just used).
    c.correlate(&key("new", "R", "m"), T0, "n");
    assert_eq!(
        c.correlate(&key("o1", "R", "m"), T0, "again"),
        Decision::Create {
            message: "m".into()
        }
    );
}
