//! client-go's retries: a 429 or 5xx with Retry-After, at most ten, writes only after a 429, a GET whose connection broke.

use super::*;

/// A `Status` answer carrying `Retry-After: secs`.
fn retry_after(code: u16, reason: &str, secs: u64) -> Reply {
    Reply::Body {
        status: code,
        headers: vec![("retry-after", secs.to_string())],
        body: json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                     "reason": reason, "code": code, "message": "try later"})
        .to_string()
        .into_bytes(),
    }
}

/// A client with a fake clock, the pool that runs it, and the clock.
fn retrying(
    server: &FakeApiServer,
) -> (
    Api<ConfigMap>,
    RestClient,
    kubeglass_testing::FakeClock,
    futures::executor::LocalPool,
) {
    let clock = kubeglass_testing::FakeClock::new(Duration::from_secs(1_000));
    let client = RestClient::new(Rc::new(server.clone())).with_clock(Rc::new(clock.clone()));
    (
        Api::namespaced(client.clone(), "shop"),
        client,
        clock,
        futures::executor::LocalPool::new(),
    )
}

// client-go TestCheckRetryHandles429And5xx: a 429 or 5xx with Retry-After is
// sent again after that long; the retries are counted.
#[test]
fn a_429_or_5xx_with_retry_after_is_sent_again_after_that_long() {
    use futures::task::LocalSpawnExt;
    let server = FakeApiServer::new();
    let path = format!("{CMS}/a");
    server
        .expect_get(&path)
        .reply(retry_after(429, "TooManyRequests", 2));
    server
        .expect_get(&path)
        .reply(retry_after(503, "ServiceUnavailable", 1));
    server
        .expect_get(&path)
        .reply(Reply::json(200, cm_json("a", "1")));
    let (api, client, clock, mut pool) = retrying(&server);
    let got = Rc::new(std::cell::RefCell::new(None));
    let g = got.clone();
    pool.spawner()
        .spawn_local(async move {
            let r = api.get("a").await;
            *g.borrow_mut() = Some(r);
        })
        .expect("spawn");
    pool.run_until_stalled();
    assert_eq!(server.log().len(), 1);
    clock.advance(Duration::from_millis(1999));
    pool.run_until_stalled();
    assert_eq!(server.log().len(), 1, "waits the whole Retry-After");
    clock.advance(Duration::from_millis(1));
    pool.run_until_stalled();
    assert_eq!(server.log().len(), 2);
    clock.advance(Duration::from_secs(1));
    pool.run_until_stalled();
    assert!(
        matches!(got.borrow().as_ref(), Some(Ok(_))),
        "{:?}",
        got.borrow()
    );
    assert_eq!(client.metrics().retries, 2);
    assert_eq!(
        client.metrics().total(),
        3,
        "every attempt is counted by code"
    );
    server.verify();
}

// client-go TestRequestMaxRetries: at most 10 retries, then the error.
#[test]
fn retries_stop_after_ten() {
    use futures::task::LocalSpawnExt;
    let server = FakeApiServer::new();
    let path = format!("{CMS}/a");
    for _ in 0..=kubeglass_client::rest::MAX_RETRIES {
        server
            .expect_get(&path)
            .reply(retry_after(503, "ServiceUnavailable", 1));
    }
    let (api, client, clock, mut pool) = retrying(&server);
    let got = Rc::new(std::cell::RefCell::new(None));
    let g = got.clone();
    pool.spawner()
        .spawn_local(async move {
            let r = api.get("a").await;
            *g.borrow_mut() = Some(r);
        })
        .expect("spawn");
    for _ in 0..20 {
        pool.run_until_stalled();
        clock.advance(Duration::from_secs(1));
    }
    pool.run_until_stalled();
    let e = got
        .borrow_mut()
        .take()
        .expect("done")
        .expect_err("503 in the end");
    assert!(e.api().is_some_and(|a| a.code == 503), "{e:?}");
    assert_eq!(client.metrics().retries, 10);
    server.verify();
}

// A write is repeated after a 429 (never run), not after a 5xx (it may have
// run); nor is anything repeated without Retry-After.
#[test]
fn writes_repeat_only_after_a_429_and_nothing_repeats_without_retry_after() {
    use futures::task::LocalSpawnExt;
    let server = FakeApiServer::new();
    server
        .expect(Method::POST, CMS)
        .reply(retry_after(429, "TooManyRequests", 1));
    server
        .expect(Method::POST, CMS)
        .reply(retry_after(504, "Timeout", 1));
    server.expect_get(&format!("{CMS}/b")).reply(Reply::status(
        503,
        "ServiceUnavailable",
        "no retry-after",
    ));
    let (api, client, clock, mut pool) = retrying(&server);
    let got = Rc::new(std::cell::RefCell::new(Vec::new()));
    let g = got.clone();
    pool.spawner()
        .spawn_local(async move {
            let created = api.create(&PostParams::default(), &cm("x")).await;
            g.borrow_mut()
                .push(created.map(|_| ()).map_err(|e| e.to_string()));
            let read = api.get("b").await;
            g.borrow_mut()
                .push(read.map(|_| ()).map_err(|e| e.to_string()));
        })
        .expect("spawn");
    pool.run_until_stalled();
    clock.advance(Duration::from_secs(1));
    pool.run_until_stalled();
    let got = got.borrow();
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.iter().all(Result::is_err), "{got:?}");
    assert_eq!(client.metrics().retries, 1, "only the 429 was repeated");
    server.verify();
}

// client-go TestConnectionResetByPeerIsRetried (and with_retry.go's
// IsNextRetry): a GET whose connection was reset or hit EOF is sent again,
// a second after each break as if the server had said Retry-After: 1, up to
// maxRetries (10) times; the eleventh break is the error. Writes are not
// repeated.
#[test]
fn connection_reset_by_peer_is_retried_up_to_max_retries() {
    use futures::task::LocalSpawnExt;
    let server = FakeApiServer::new();
    let path = format!("{CMS}/a");
    let reset = || Reply::Fail(TransportError::Read("connection reset by peer".into()));
    // First GET: ten breaks, then the answer.
    for _ in 0..10 {
        server.expect_get(&path).reply(reset());
    }
    server
        .expect_get(&path)
        .reply(Reply::json(200, cm_json("a", "1")));
    // Second GET: eleven breaks; the last is the error.
    for _ in 0..11 {
        server.expect_get(&path).reply(reset());
    }
    // A write whose connection broke is not repeated.
    server.expect(http::Method::POST, CMS).reply(reset());
    let (api, client, clock, mut pool) = retrying(&server);
    let got = Rc::new(std::cell::RefCell::new(Vec::new()));
    let g = got.clone();
    pool.spawner()
        .spawn_local(async move {
            let first = api.get("a").await.is_ok();
            g.borrow_mut().push(first);
            let second = api.get("a").await.is_ok();
            g.borrow_mut().push(second);
            let third = api.create(&PostParams::default(), &cm("x")).await.is_ok();
            g.borrow_mut().push(third);
        })
        .expect("spawn");
    use kubeglass_client::clock::PassiveClock;
    let start = clock.now();
    pool.run_until_stalled();
    while clock.advance_to_next_timer().is_some() {
        pool.run_until_stalled();
    }
    assert_eq!(*got.borrow(), [true, false, false]);
    assert_eq!(client.metrics().retries, 20);
    assert_eq!(
        clock.now() - start,
        Duration::from_secs(20),
        "one second before each repeat"
    );
    server.verify();
}
