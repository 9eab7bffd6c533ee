//! The recorder, the broadcaster and the core/v1 sink (client-go event_test): create then patch, retries, a full queue, a sink that is down, an event the server's TTL deleted.

use super::*;

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
