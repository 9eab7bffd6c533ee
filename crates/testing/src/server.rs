//! The scripted fake API server: each request must match the next expectation.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::{FutureExt, StreamExt};

use super::reply::{Reply, into_response};
use kubeglass_client::transport::{ByteStream, Request, Transport, TransportError};

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
/// given to transports) do not.
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
        if self.owner && !std::thread::panicking() {
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
        let problems = exp.mismatches(request, &path);
        if !problems.is_empty() {
            inner
                .failures
                .push(format!("{line}: {}", problems.join("; ")));
        }
        Ok(exp.reply)
    }
}

impl Expectation {
    /// What in `request` (whose path is `path`) differs from this
    /// expectation, in words; empty when it matches.
    fn mismatches(&self, request: &Request, path: &str) -> Vec<String> {
        let pairs = query_pairs(request.uri().query());
        let mut problems = Vec::new();
        if self.method != request.method() || self.path != path {
            problems.push(format!("expected {} {}", self.method, self.path));
        }
        for (k, v) in &self.query {
            let got = pairs.iter().find(|(pk, _)| pk == k).map(|(_, pv)| pv);
            match (v, got) {
                (Some(want), Some(got)) if want == got => {}
                (None, None) => {}
                (Some(want), got) => problems.push(format!("expected {k}={want}, got {got:?}")),
                (None, Some(got)) => problems.push(format!("expected no {k}, got {got}")),
            }
        }
        for (name, text) in &self.headers {
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
        if let Some(want) = &self.body {
            match serde_json::from_slice::<serde_json::Value>(request.body()) {
                Ok(got) if &got == want => {}
                Ok(got) => problems.push(format!("expected body {want}, got {got}")),
                Err(_) => problems.push(format!(
                    "expected body {want}, got {:?}",
                    String::from_utf8_lossy(request.body())
                )),
            }
        }
        problems
    }
}

/// The decoded `key=value` pairs of a query string.
fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    query
        .map(|q| {
            q.split('&')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    (decode(k), decode(v))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Percent-decodes a query key or value (`+` is a space).
pub(super) fn decode(s: &str) -> String {
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
