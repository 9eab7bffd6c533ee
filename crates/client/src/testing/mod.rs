//! Fakes for unit tests: a manually stepped clock and a scripted API server.
//!
//! These are fakes, not the real thing: integration tests use the real
//! apiserver through `kubectl proxy`.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use futures::channel::{mpsc, oneshot};
use futures::future::LocalBoxFuture;
use futures::{FutureExt, StreamExt};

pub mod informer_scenarios;
pub mod scenarios;
pub mod sim;

use crate::clock::{Clock, PassiveClock, Timestamp};
use crate::transport::{ByteStream, Request, Transport, TransportError};

/// A clock that only moves when a test advances it.
#[derive(Clone, Default)]
pub struct FakeClock {
    inner: Rc<RefCell<ClockInner>>,
}

#[derive(Default)]
struct ClockInner {
    now: Timestamp,
    /// Pending sleeps: when each fires, and who to wake.
    timers: Vec<(Timestamp, oneshot::Sender<()>)>,
    /// Random values drawn so far (each draw mixes the next count).
    draws: u64,
}

impl FakeClock {
    /// A clock starting at `start` after the epoch.
    pub fn new(start: Timestamp) -> Self {
        let c = Self::default();
        c.inner.borrow_mut().now = start;
        c
    }

    /// Moves time forward by `d`, firing every sleep that is due.
    pub fn advance(&self, d: Duration) {
        let mut inner = self.inner.borrow_mut();
        inner.now += d;
        let now = inner.now;
        let timers = std::mem::take(&mut inner.timers);
        for (at, tx) in timers {
            if at <= now {
                let _ = tx.send(());
            } else {
                inner.timers.push((at, tx));
            }
        }
    }

    /// The deadline of the earliest pending sleep, if any.
    pub fn next_timer(&self) -> Option<Timestamp> {
        let mut inner = self.inner.borrow_mut();
        inner.timers.retain(|(_, tx)| !tx.is_canceled());
        inner.timers.iter().map(|(at, _)| *at).min()
    }

    /// Advances to the earliest pending sleep and returns how far it moved.
    pub fn advance_to_next_timer(&self) -> Option<Duration> {
        let at = self.next_timer()?;
        let d = at.saturating_sub(self.now());
        self.advance(d);
        Some(d)
    }

    /// Number of sleeps still waiting.
    pub fn pending_timers(&self) -> usize {
        self.next_timer();
        self.inner.borrow().timers.len()
    }
}

impl PassiveClock for FakeClock {
    fn now(&self) -> Timestamp {
        self.inner.borrow().now
    }
}

/// Deterministic per clock, a new value on every draw (splitmix64 of a
/// counter), so tests are reproducible and sources made in the same instant
/// still differ.
impl crate::clock::Entropy for FakeClock {
    fn random_u64(&self) -> u64 {
        let mut inner = self.inner.borrow_mut();
        inner.draws += 1;
        let mut z = inner.draws.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Clock for FakeClock {
    fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()> {
        let (tx, rx) = oneshot::channel();
        {
            let mut inner = self.inner.borrow_mut();
            let at = inner.now + duration;
            inner.timers.push((at, tx));
        }
        async move {
            let _ = rx.await;
        }
        .boxed_local()
    }
}

/// The scripted answer to one request.
pub enum Reply {
    /// A complete response.
    Body {
        /// HTTP status code.
        status: u16,
        /// Extra headers.
        headers: Vec<(&'static str, String)>,
        /// The body.
        body: Vec<u8>,
    },
    /// A streamed response whose chunks the test pushes through a [`StreamHandle`].
    Stream {
        /// HTTP status code.
        status: u16,
        /// Where the chunks come from.
        chunks: mpsc::UnboundedReceiver<Result<Vec<u8>, TransportError>>,
    },
    /// A failure below HTTP.
    Fail(TransportError),
}

impl Reply {
    /// A 2xx/4xx/5xx answer with a JSON body.
    pub fn json(status: u16, body: serde_json::Value) -> Self {
        Reply::Body {
            status,
            headers: Vec::new(),
            body: body.to_string().into_bytes(),
        }
    }

    /// An API `Status` error answer.
    pub fn status(code: u16, reason: &str, message: &str) -> Self {
        Self::json(
            code,
            serde_json::json!({
                "kind": "Status", "apiVersion": "v1", "status": "Failure",
                "message": message, "reason": reason, "code": code
            }),
        )
    }

    /// A streamed 200 answer and the handle that feeds it.
    pub fn stream() -> (Self, StreamHandle) {
        let (tx, rx) = mpsc::unbounded();
        (
            Reply::Stream {
                status: 200,
                chunks: rx,
            },
            StreamHandle { tx },
        )
    }
}

/// Feeds a scripted streamed response.
#[derive(Clone)]
pub struct StreamHandle {
    tx: mpsc::UnboundedSender<Result<Vec<u8>, TransportError>>,
}

impl StreamHandle {
    /// Sends raw bytes.
    pub fn chunk(&self, bytes: impl Into<Vec<u8>>) {
        let _ = self.tx.unbounded_send(Ok(bytes.into()));
    }

    /// Sends one watch event as a line.
    pub fn event(&self, kind: &str, object: serde_json::Value) {
        let line = serde_json::json!({"type": kind, "object": object}).to_string() + "\n";
        self.chunk(line);
    }

    /// Breaks the connection with `error`.
    pub fn fail(&self, error: TransportError) {
        let _ = self.tx.unbounded_send(Err(error));
    }

    /// Ends the response normally.
    pub fn close(&self) {
        self.tx.close_channel();
    }

    /// True once the client dropped the response (cancelled the request).
    pub fn is_cancelled(&self) -> bool {
        self.tx.is_closed()
    }
}

/// One expected request: method, path and the query parameters it must carry.
struct Expectation {
    method: http::Method,
    path: String,
    query: Vec<(String, Option<String>)>,
    /// Headers that must contain the given text.
    headers: Vec<(String, String)>,
    /// The JSON body the request must carry.
    body: Option<serde_json::Value>,
    reply: Reply,
}

/// A scripted API server: each request must match the next expectation.
///
/// The handle made by [`FakeApiServer::new`] verifies when it is dropped at
/// the end of a test that did not panic: every request matched, and every
/// expected request came (see [`FakeApiServer::verify`]). Clones (the ones
/// given to transports) do not; [`FakeApiServer::lenient`] turns the check
/// off for a test that says why.
pub struct FakeApiServer {
    inner: Rc<RefCell<ServerInner>>,
    /// True for the handle `new` returned: it verifies on drop.
    owner: bool,
}

impl Default for FakeApiServer {
    fn default() -> Self {
        Self {
            inner: Rc::default(),
            owner: true,
        }
    }
}

impl Clone for FakeApiServer {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            owner: false,
        }
    }
}

impl Drop for FakeApiServer {
    fn drop(&mut self) {
        if self.owner && !self.inner.borrow().lenient && !std::thread::panicking() {
            self.verify();
        }
    }
}

#[derive(Default)]
struct ServerInner {
    expected: VecDeque<Expectation>,
    /// Every request received, as `METHOD path?query`.
    log: Vec<String>,
    /// Requests that did not match their expectation.
    failures: Vec<String>,
    /// Not verified on drop.
    lenient: bool,
}

/// Builder for one expectation; finish it with [`ExpectBuilder::reply`].
pub struct ExpectBuilder<'a> {
    server: &'a FakeApiServer,
    method: http::Method,
    path: String,
    query: Vec<(String, Option<String>)>,
    headers: Vec<(String, String)>,
    body: Option<serde_json::Value>,
}

impl ExpectBuilder<'_> {
    /// The request must carry `key=value`.
    pub fn query(mut self, key: &str, value: &str) -> Self {
        self.query.push((key.into(), Some(value.into())));
        self
    }

    /// The request must not carry `key` at all.
    pub fn no_query(mut self, key: &str) -> Self {
        self.query.push((key.into(), None));
        self
    }

    /// The request's `name` header must contain `text`.
    pub fn header(mut self, name: &str, text: &str) -> Self {
        self.headers.push((name.into(), text.into()));
        self
    }

    /// The request's body must be this JSON.
    pub fn body(mut self, json: serde_json::Value) -> Self {
        self.body = Some(json);
        self
    }

    /// Answers the request with `reply`.
    pub fn reply(self, reply: Reply) {
        self.server
            .inner
            .borrow_mut()
            .expected
            .push_back(Expectation {
                method: self.method,
                path: self.path,
                query: self.query,
                headers: self.headers,
                body: self.body,
                reply,
            });
    }
}

impl FakeApiServer {
    /// A server expecting nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Expects a `GET` of `path` next.
    pub fn expect_get(&self, path: &str) -> ExpectBuilder<'_> {
        self.expect(http::Method::GET, path)
    }

    /// Expects a `method` request to `path` next.
    pub fn expect(&self, method: http::Method, path: &str) -> ExpectBuilder<'_> {
        ExpectBuilder {
            server: self,
            method,
            path: path.into(),
            query: Vec::new(),
            headers: Vec::new(),
            body: None,
        }
    }

    /// Not verified when dropped: for a test whose fake is left with
    /// expectations on purpose (say why where it is called).
    pub fn lenient(&self) -> &Self {
        self.inner.borrow_mut().lenient = true;
        self
    }

    /// Every request received so far.
    pub fn log(&self) -> Vec<String> {
        self.inner.borrow().log.clone()
    }

    /// Expectations not yet used.
    pub fn remaining(&self) -> usize {
        self.inner.borrow().expected.len()
    }

    /// Panics if a request did not match its expectation.
    pub fn assert_no_failures(&self) {
        let inner = self.inner.borrow();
        assert!(
            inner.failures.is_empty(),
            "unexpected requests: {:#?}\nlog: {:#?}",
            inner.failures,
            inner.log
        );
    }

    /// Panics if a request did not match or an expected one never came.
    pub fn verify(&self) {
        self.assert_no_failures();
        let inner = self.inner.borrow();
        let missing: Vec<String> = inner
            .expected
            .iter()
            .map(|e| format!("{} {}", e.method, e.path))
            .collect();
        assert!(
            missing.is_empty(),
            "expected requests never came: {missing:#?}"
        );
    }

    fn take(&self, request: &Request) -> Result<Reply, TransportError> {
        let uri = request.uri();
        let path = uri.path().to_string();
        let pairs: Vec<(String, String)> = uri
            .query()
            .map(|q| {
                q.split('&')
                    .filter(|p| !p.is_empty())
                    .map(|p| {
                        let (k, v) = p.split_once('=').unwrap_or((p, ""));
                        (decode(k), decode(v))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let line = format!(
            "{} {}{}",
            request.method(),
            path,
            uri.query().map(|q| format!("?{q}")).unwrap_or_default()
        );
        let mut inner = self.inner.borrow_mut();
        inner.log.push(line.clone());
        let Some(exp) = inner.expected.pop_front() else {
            inner
                .failures
                .push(format!("{line}: nothing more was expected"));
            return Err(TransportError::Connect(
                "fake server: no scripted reply".into(),
            ));
        };
        let mut problems = Vec::new();
        if exp.method != request.method() || exp.path != path {
            problems.push(format!("expected {} {}", exp.method, exp.path));
        }
        for (k, v) in &exp.query {
            let got = pairs.iter().find(|(pk, _)| pk == k).map(|(_, pv)| pv);
            match (v, got) {
                (Some(want), Some(got)) if want == got => {}
                (None, None) => {}
                (Some(want), got) => problems.push(format!("expected {k}={want}, got {got:?}")),
                (None, Some(got)) => problems.push(format!("expected no {k}, got {got}")),
            }
        }
        for (name, text) in &exp.headers {
            let got = request
                .headers()
                .get(name.as_str())
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            if !got.contains(text.as_str()) {
                problems.push(format!(
                    "expected header {name} containing {text:?}, got {got:?}"
                ));
            }
        }
        if let Some(want) = &exp.body {
            match serde_json::from_slice::<serde_json::Value>(request.body()) {
                Ok(got) if &got == want => {}
                Ok(got) => problems.push(format!("expected body {want}, got {got}")),
                Err(_) => problems.push(format!(
                    "expected body {want}, got {:?}",
                    String::from_utf8_lossy(request.body())
                )),
            }
        }
        if !problems.is_empty() {
            inner
                .failures
                .push(format!("{line}: {}", problems.join("; ")));
        }
        Ok(exp.reply)
    }
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn into_response<B>(status: u16, headers: &[(&'static str, String)], body: B) -> http::Response<B> {
    let mut r = http::Response::new(body);
    *r.status_mut() =
        http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    for (k, v) in headers {
        if let Ok(v) = http::HeaderValue::from_str(v) {
            r.headers_mut().insert(*k, v);
        }
    }
    r
}

impl Transport for FakeApiServer {
    fn send(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<Vec<u8>>, TransportError>> {
        let reply = self.take(&request);
        async move {
            match reply? {
                Reply::Body {
                    status,
                    headers,
                    body,
                } => Ok(into_response(status, &headers, body)),
                Reply::Fail(e) => Err(e),
                Reply::Stream { status, mut chunks } => {
                    let mut body = Vec::new();
                    while let Some(c) = chunks.next().await {
                        body.extend(c?);
                    }
                    Ok(into_response(status, &[], body))
                }
            }
        }
        .boxed_local()
    }

    fn stream(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<ByteStream>, TransportError>> {
        let reply = self.take(&request);
        async move {
            match reply? {
                Reply::Body {
                    status,
                    headers,
                    body,
                } => {
                    let s: ByteStream = futures::stream::iter([Ok(body)]).boxed_local();
                    Ok(into_response(status, &headers, s))
                }
                Reply::Fail(e) => Err(e),
                Reply::Stream { status, chunks } => Ok(into_response(
                    status,
                    &[],
                    chunks.boxed_local() as ByteStream,
                )),
            }
        }
        .boxed_local()
    }
}
