//! events.k8s.io/v1 (client-go tools/events): the probe, series, the series cache's schedule, jittered retries.

use super::*;

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
