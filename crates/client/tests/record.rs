//! The event correlator, recorder, broadcaster and sink on a fake clock,
//! ported from client-go's tools/record tests (events_cache_test and
//! event_test), with the scripted fake API server as the sink's apiserver.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use http::Method;
use k8s_openapi::api::core::v1::ObjectReference;
use kubeglass_client::record::correlator::{
    AGGREGATE_AFTER, COMBINED_PREFIX, Correlator, Decision, EventKey, SPAM_BURST, SPAM_REFILL,
};
use kubeglass_client::record::{ApiSink, EventBroadcaster, EventType, SINK_TRIES};
use kubeglass_client::rest::RestClient;
use kubeglass_client::testing::{FakeApiServer, FakeClock, Reply};
use serde_json::json;

fn key(object: &str, reason: &str, message: &str) -> EventKey {
    EventKey {
        source: "kubeglass".into(),
        object: (
            "Deployment".into(),
            "shop".into(),
            object.into(),
            format!("uid-{object}"),
            "apps/v1".into(),
        ),
        type_: "Normal".into(),
        reason: reason.into(),
        message: message.into(),
        field_path: String::new(),
        reporting_controller: "kubeglass".into(),
        reporting_instance: "kubeglass-1".into(),
    }
}

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

const T0: Duration = Duration::from_secs(1_700_000_000);

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

fn deployment() -> ObjectReference {
    ObjectReference {
        api_version: Some("apps/v1".into()),
        kind: Some("Deployment".into()),
        namespace: Some("shop".into()),
        name: Some("web".into()),
        uid: Some("uid-web".into()),
        ..Default::default()
    }
}

// The recorder writes through the sink: create, then a patch for the repeat.
#[test]
fn recorded_events_are_created_then_patched() {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(T0);
    let b = EventBroadcaster::new();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s2 = seen.clone();
    b.watch(move |e| s2.borrow_mut().push(e.reason.clone().unwrap_or_default()));
    let rec = b.recorder("kubeglass", Rc::new(clock.clone()));
    server
        .expect(Method::POST, "/api/v1/namespaces/shop/events")
        .reply(Reply::json(
            201,
            json!({"metadata": {"name": "web.1"}, "involvedObject": {}}),
        ));
    let name = format!("web.{:x}", T0.as_nanos());
    server
        .expect(
            Method::PATCH,
            &format!("/api/v1/namespaces/shop/events/{name}"),
        )
        .header("content-type", "application/merge-patch+json")
        .reply(Reply::json(
            200,
            json!({"metadata": {"name": "web.1"}, "involvedObject": {}}),
        ));
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(b.run(
            Rc::new(ApiSink::new(RestClient::new(Rc::new(server.clone())))),
            Rc::new(clock.clone()),
        ))
        .expect("spawn");
    rec.event(
        &deployment(),
        EventType::Normal,
        "Scaled",
        "scaled to 3 by kubeglass",
    );
    pool.run_until_stalled();
    rec.eventf(
        &deployment(),
        EventType::Normal,
        "Scaled",
        format_args!("scaled to {} by kubeglass", 3),
    );
    pool.run_until_stalled();
    assert_eq!(*seen.borrow(), ["Scaled", "Scaled"]);
    assert_eq!(b.counts(), (2, 0, 0));
    let log = server.log();
    assert!(log[0].starts_with("POST /api/v1/namespaces/shop/events"));
    assert!(
        log[1].starts_with("PATCH /api/v1/namespaces/shop/events/web."),
        "{log:?}"
    );
    server.verify();
}

// Retries: 12 tries on 5xx and transport errors, the first retry after a
// random 0–10 s (recordToSink), then 10 s apart; then it gives up.
#[test]
fn the_sink_retries_twelve_times_ten_seconds_apart() {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(T0);
    let b = EventBroadcaster::new();
    let rec = b.recorder("kubeglass", Rc::new(clock.clone()));
    for _ in 0..SINK_TRIES {
        server
            .expect(Method::POST, "/api/v1/namespaces/shop/events")
            .reply(Reply::status(503, "ServiceUnavailable", "try later"));
    }
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(b.run(
            Rc::new(ApiSink::new(RestClient::new(Rc::new(server.clone())))),
            Rc::new(clock.clone()),
        ))
        .expect("spawn");
    rec.event(
        &deployment(),
        EventType::Warning,
        "Failed",
        "could not scale",
    );
    pool.run_until_stalled();
    let mut waits = Vec::new();
    while let Some(d) = clock.advance_to_next_timer() {
        waits.push(d);
        pool.run_until_stalled();
    }
    assert_eq!(waits.len(), SINK_TRIES as usize - 1);
    assert!(waits[0] <= Duration::from_secs(10), "{waits:?}");
    assert!(
        waits[1..].iter().all(|w| *w == Duration::from_secs(10)),
        "{waits:?}"
    );
    assert_eq!(b.counts(), (0, 0, 1));
    server.verify();
}

// Non-blocking recording drops when the queue is full, and says how many.
#[test]
fn a_full_queue_drops_events_in_non_blocking_mode() {
    let clock = FakeClock::new(T0);
    let b = EventBroadcaster::with_queue_length(5);
    let rec = b.recorder("kubeglass", Rc::new(clock.clone()));
    for i in 0..10 {
        rec.event(&deployment(), EventType::Normal, "R", &format!("{i}"));
    }
    // The queue holds 5 (the channel's 4 plus the recording sender's own slot).
    assert_eq!(rec.dropped(), 5);
}

// events.k8s.io/v1 when the server offers it: created with eventTime,
// reportingController and note; a repeat becomes a series.
#[test]
fn events_v1_with_series_when_the_server_offers_it() {
    use kubeglass_client::discovery::Discovery;
    use kubeglass_client::record::EventsApi;
    let server = FakeApiServer::new();
    let clock = FakeClock::new(T0);
    let sink = events_v1_sink(&server, &clock);
    assert_eq!(sink.api(), EventsApi::EventsV1);
    assert_eq!(
        ApiSink::for_server(
            RestClient::new(Rc::new(server.clone())),
            &Discovery::default(),
            Rc::new(clock.clone())
        )
        .api(),
        EventsApi::CoreV1
    );
    let path = "/apis/events.k8s.io/v1/namespaces/shop/events";
    let name = format!("web.{:x}", T0.as_nanos());
    server.expect(Method::POST, path).reply(Reply::json(201, json!({
        "apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name, "namespace": "shop"},
        "eventTime": "2023-11-14T22:13:20.000000Z", "reportingController": "kubeglass", "reportingInstance": "kubeglass",
        "action": "Scaled", "reason": "Scaled", "note": "scaled", "type": "Normal"})));
    server
        .expect(Method::PATCH, &format!("{path}/{name}"))
        .header("content-type", "application/merge-patch+json")
        .reply(Reply::json(
            200,
            json!({"metadata": {"name": name}, "eventTime": "2023-11-14T22:13:20.000000Z",
            "series": {"count": 2, "lastObservedTime": "2023-11-14T22:13:20.000000Z"}}),
        ));
    let b = EventBroadcaster::new();
    let rec = b.recorder("kubeglass", Rc::new(clock.clone()));
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(b.run(Rc::new(sink), Rc::new(clock.clone())))
        .expect("spawn");
    rec.event(&deployment(), EventType::Normal, "Scaled", "scaled");
    pool.run_until_stalled();
    rec.event(&deployment(), EventType::Normal, "Scaled", "scaled");
    pool.run_until_stalled();
    assert_eq!(b.counts(), (2, 0, 0));
    server.verify();
}

#[test]
fn the_probe_picks_events_v1_only_when_the_server_serves_it() {
    use kubeglass_client::record::EventsApi;
    let server = FakeApiServer::new();
    let clock = FakeClock::new(T0);
    server.expect_get("/apis/events.k8s.io/v1").reply(Reply::json(200, json!({
        "kind": "APIResourceList", "groupVersion": "events.k8s.io/v1",
        "resources": [{"name": "events", "singularName": "event", "namespaced": true, "kind": "Event",
                       "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}]})));
    server
        .expect_get("/apis/events.k8s.io/v1")
        .reply(Reply::status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ));
    let client = RestClient::new(Rc::new(server.clone()));
    let mut pool = LocalPool::new();
    let first = pool.run_until(ApiSink::probe(client.clone(), Rc::new(clock.clone())));
    let second = pool.run_until(ApiSink::probe(client, Rc::new(clock.clone())));
    assert_eq!(first.api(), EventsApi::EventsV1);
    assert_eq!(second.api(), EventsApi::CoreV1);
    server.verify();
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

#[test]
fn the_default_broadcaster_queues_1000_events() {
    use kubeglass_client::record::QUEUE_LENGTH;
    assert_eq!(QUEUE_LENGTH, 1000);
    let clock = FakeClock::new(T0);
    let b = EventBroadcaster::new();
    let rec = b.recorder("kubeglass", Rc::new(clock.clone()));
    for i in 0..QUEUE_LENGTH + 10 {
        rec.event(&deployment(), EventType::Normal, "R", &format!("{i}"));
    }
    assert_eq!(rec.dropped(), 10);
}

/// A sink that cannot reach the server: every write fails (retryably).
struct DownSink(std::cell::Cell<u32>);

type SinkResult<'a> = futures::future::LocalBoxFuture<
    'a,
    Result<k8s_openapi::api::core::v1::Event, kubeglass_client::rest::Error>,
>;

impl DownSink {
    fn fail(&self) -> SinkResult<'_> {
        self.0.set(self.0.get() + 1);
        Box::pin(async {
            Err(kubeglass_client::rest::Error::Transport(
                kubeglass_client::transport::TransportError::Connect("down".into()),
            ))
        })
    }
}

impl kubeglass_client::record::EventSink for DownSink {
    fn create<'a>(&'a self, _: &'a k8s_openapi::api::core::v1::Event) -> SinkResult<'a> {
        self.fail()
    }
    fn patch<'a>(&'a self, _: &'a str, _: &'a str, _: serde_json::Value) -> SinkResult<'a> {
        self.fail()
    }
}

// watch.Broadcaster: each watcher has its own queue. A sink that is
// retrying holds up neither the other watchers nor the recorders; past its
// own 1000 queued events, it drops and counts.
#[test]
fn a_retrying_sink_holds_up_neither_watchers_nor_recorders() {
    let clock = FakeClock::new(T0);
    let b = EventBroadcaster::new();
    let rec = b.recorder("kubeglass", Rc::new(clock.clone()));
    let seen = Rc::new(std::cell::Cell::new(0u32));
    let s2 = seen.clone();
    b.watch(move |_| s2.set(s2.get() + 1));
    let sink = Rc::new(DownSink(std::cell::Cell::new(0)));
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(b.run(sink.clone(), Rc::new(clock.clone())))
        .expect("spawn");
    for round in 0..3 {
        for i in 0..600 {
            rec.event(
                &deployment(),
                EventType::Normal,
                "R",
                &format!("{round}-{i}"),
            );
        }
        pool.run_until_stalled();
    }
    assert_eq!(seen.get(), 1800, "the watcher saw every event at once");
    assert_eq!(rec.dropped(), 0, "the recorder never waited on the sink");
    assert_eq!(sink.0.get(), 1, "the sink is still on its first event");
    assert!(
        b.sink_dropped() >= 790,
        "dropped at the sink's full queue: {}",
        b.sink_dropped()
    );
}

/// A sink for a server that serves events.k8s.io/v1 (series).
fn events_v1_sink(server: &FakeApiServer, clock: &FakeClock) -> ApiSink {
    use kubeglass_client::discovery::{Discovery, ResourceInfo};
    let events_v1 = ResourceInfo {
        group: "events.k8s.io".into(),
        version: "v1".into(),
        kind: "Event".into(),
        plural: "events".into(),
        singular: "event".into(),
        short_names: vec![],
        categories: vec![],
        namespaced: true,
        verbs: ["create", "patch"].map(String::from).to_vec(),
        subresources: vec![],
        preferred: true,
    };
    let discovery = Discovery {
        groups: vec![],
        resources: vec![events_v1],
        aggregated: true,
        failed: vec![],
    };
    ApiSink::for_server(
        RestClient::new(Rc::new(server.clone())),
        &discovery,
        Rc::new(clock.clone()),
    )
}

// tools/events: the first occurrence is created, the second starts a series
// written at once, later ones only count in the cache (nothing is sent);
// the note is not part of the key. After 6 quiet minutes the series is
// written once more with its final count and forgotten.
#[test]
fn events_v1_repeats_count_in_the_cache_and_a_quiet_series_is_finished() {
    use kubeglass_client::record::series::FINISH_TIME;
    let server = FakeApiServer::new();
    let clock = FakeClock::new(T0);
    let path = "/apis/events.k8s.io/v1/namespaces/shop/events";
    let name = format!("web.{:x}", T0.as_nanos());
    let created = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": name, "namespace": "shop"}, "eventTime": "2023-11-14T22:13:20.000000Z",
        "reportingController": "kubeglass", "reportingInstance": "kubeglass", "action": "Scaled",
        "reason": "Scaled", "note": "scaled to 3", "type": "Normal"});
    server
        .expect(Method::POST, path)
        .reply(Reply::json(201, created.clone()));
    server
        .expect(Method::PATCH, &format!("{path}/{name}"))
        .body(json!({"series": {"count": 2, "lastObservedTime": "2023-11-14T22:13:21.000000Z"}}))
        .reply(Reply::json(200, created.clone()));
    server
        .expect(Method::PATCH, &format!("{path}/{name}"))
        .body(json!({"series": {"count": 4, "lastObservedTime": "2023-11-14T22:13:23.000000Z"}}))
        .reply(Reply::json(200, created));
    let b = EventBroadcaster::new();
    let rec = b.recorder("kubeglass", Rc::new(clock.clone()));
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(b.run(
            Rc::new(events_v1_sink(&server, &clock)),
            Rc::new(clock.clone()),
        ))
        .expect("spawn");
    for i in 0..4 {
        // A different note each time: still the same occurrence.
        rec.event(
            &deployment(),
            EventType::Normal,
            "Scaled",
            &format!("scaled to {}", 3 + i),
        );
        pool.run_until_stalled();
        clock.advance(Duration::from_secs(1));
    }
    assert_eq!(
        server.log().len(),
        2,
        "create, then the series once: {:?}",
        server.log()
    );
    assert_eq!(server.remaining(), 1);
    // The first check, 6 minutes after the start: quiet for only 5:57.
    assert_eq!(
        clock.advance_to_next_timer(),
        Some(FINISH_TIME - Duration::from_secs(4))
    );
    pool.run_until_stalled();
    assert_eq!(
        server.remaining(),
        1,
        "not quiet for 6 minutes at the first check: {:?}",
        server.log()
    );
    // The next one, 6 minutes later: finished.
    assert_eq!(clock.advance_to_next_timer(), Some(FINISH_TIME));
    pool.run_until_stalled();
    assert_eq!(server.log().len(), 3, "the final count: {:?}", server.log());
    server.verify();
}

#[test]
fn the_series_cache_refreshes_every_series_and_forgets_old_singletons() {
    use kubeglass_client::record::series::{FINISH_TIME, IsomorphicKey, SeriesCache, SeriesWrite};
    let key = |reason: &str| IsomorphicKey {
        type_: "Normal".into(),
        action: reason.into(),
        reason: reason.into(),
        reporting_controller: "kubeglass".into(),
        reporting_instance: "kubeglass".into(),
        regarding: Default::default(),
        related: Default::default(),
    };
    let mut c = SeriesCache::new();
    assert_eq!(
        c.observe(key("A"), T0, "shop", "a.1"),
        Some(SeriesWrite::Create)
    );
    assert_eq!(
        c.observe(key("B"), T0, "shop", "b.1"),
        Some(SeriesWrite::Create)
    );
    let t1 = T0 + Duration::from_secs(5);
    assert!(matches!(
        c.observe(key("A"), t1, "shop", "a.2"),
        Some(SeriesWrite::Series { count: 2, .. })
    ));
    assert_eq!(c.observe(key("A"), t1, "shop", "a.3"), None);
    assert_eq!(
        c.refresh(),
        [SeriesWrite::Series {
            namespace: "shop".into(),
            name: "a.1".into(),
            count: 3,
            last_observed: t1
        }],
        "only series are refreshed"
    );
    // Past 6 minutes: B (a single event) is forgotten, A is finished.
    let later = t1 + FINISH_TIME + Duration::from_secs(1);
    assert_eq!(c.finish(later).len(), 1);
    assert!(c.is_empty());
    assert_eq!(
        c.observe(key("B"), later, "shop", "b.2"),
        Some(SeriesWrite::Create)
    );
}

/// A sink that writes what it is given and says "not found" to patches of
/// the names in `expired` (the server's event TTL deleted them).
#[derive(Default)]
struct TtlSink {
    /// Each write: `create name count` or `patch name count`.
    log: RefCell<Vec<String>>,
    expired: RefCell<Vec<String>>,
}

impl kubeglass_client::record::EventSink for TtlSink {
    fn create<'a>(&'a self, e: &'a k8s_openapi::api::core::v1::Event) -> SinkResult<'a> {
        let name = e.metadata.name.clone().unwrap_or_default();
        self.log
            .borrow_mut()
            .push(format!("create {name} {}", e.count.unwrap_or(0)));
        let created = e.clone();
        Box::pin(async move { Ok(created) })
    }
    fn patch<'a>(&'a self, _: &'a str, name: &'a str, patch: serde_json::Value) -> SinkResult<'a> {
        let count = patch["count"].as_i64().unwrap_or(0);
        self.log.borrow_mut().push(format!("patch {name} {count}"));
        let gone = self.expired.borrow().iter().any(|n| n == name);
        let name = name.to_string();
        Box::pin(async move {
            if gone {
                let status = kubeglass_client::rest::ApiError::from_response(
                    404,
                    br#"{"kind":"Status","status":"Failure","reason":"NotFound","code":404,"message":"events not found"}"#,
                    None,
                );
                return Err(status.into());
            }
            let mut e = k8s_openapi::api::core::v1::Event::default();
            e.metadata.name = Some(name);
            Ok(e)
        })
    }
}

// client-go tools/record recordEvent: a patch of an aggregated event that
// the server's TTL has deleted is followed by a create of that event, same
// name and the count so far, and the correlator's state is updated from
// the created object, so the next repeat patches it with the count going
// on, instead of starting an unrelated event at 1.
#[test]
fn a_patch_that_finds_the_event_gone_creates_it_again_and_the_count_goes_on() {
    let clock = FakeClock::new(T0);
    let b = EventBroadcaster::new();
    let rec = b.recorder("kubeglass", Rc::new(clock.clone()));
    let sink = Rc::new(TtlSink::default());
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(b.run(sink.clone(), Rc::new(clock.clone())))
        .expect("spawn");
    let name = format!("web.{:x}", T0.as_nanos());
    for i in 0..4 {
        if i == 2 {
            // The event outlived the server's --event-ttl.
            sink.expired.borrow_mut().push(name.clone());
        }
        if i == 3 {
            sink.expired.borrow_mut().clear();
        }
        rec.event(&deployment(), EventType::Normal, "Scaled", "scaled to 3");
        pool.run_until_stalled();
        clock.advance(Duration::from_secs(1));
    }
    assert_eq!(
        *sink.log.borrow(),
        [
            format!("create {name} 1"),
            format!("patch {name} 2"),
            format!("patch {name} 3"),
            format!("create {name} 3"),
            format!("patch {name} 4"),
        ]
    );
    assert_eq!(b.counts(), (4, 0, 0));
}

// client-go tools/events attemptRecording: between tries it sleeps
// wait.Jitter(10 s, 0.25), every time; unlike tools/record there is no
// randomized first retry. Twelve tries, then it gives up.
#[test]
fn events_v1_retries_sleep_ten_seconds_jittered_by_a_quarter() {
    let server = FakeApiServer::new();
    let clock = FakeClock::new(T0);
    let path = "/apis/events.k8s.io/v1/namespaces/shop/events";
    for _ in 0..SINK_TRIES {
        server.expect(Method::POST, path).reply(Reply::status(
            503,
            "ServiceUnavailable",
            "try later",
        ));
    }
    let b = EventBroadcaster::new();
    let rec = b.recorder("kubeglass", Rc::new(clock.clone()));
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(b.run(
            Rc::new(events_v1_sink(&server, &clock)),
            Rc::new(clock.clone()),
        ))
        .expect("spawn");
    rec.event(
        &deployment(),
        EventType::Warning,
        "Failed",
        "could not scale",
    );
    pool.run_until_stalled();
    let mut waits = Vec::new();
    while let Some(d) = clock.advance_to_next_timer() {
        // Only the sink's retries: the series cache's own timers are minutes.
        if d < Duration::from_secs(60) {
            waits.push(d);
        }
        pool.run_until_stalled();
        if server.remaining() == 0 {
            break;
        }
    }
    assert_eq!(waits.len(), SINK_TRIES as usize - 1, "{waits:?}");
    assert!(
        waits
            .iter()
            .all(|w| *w >= Duration::from_secs(10) && *w <= Duration::from_millis(12_500)),
        "{waits:?}"
    );
    let mut distinct = waits.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() > 1, "jittered: {waits:?}");
    server.verify();
}
