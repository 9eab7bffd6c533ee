//! The REST client: sends requests built with kube-core through a [`Transport`] and decodes the answers.
//!
//! # The client
//!
//! `RestClient` sends `http::Request`s built by kube-core's `Request` and
//! decodes the answers. Errors are one enum: `Transport` (no answer: connection
//! refused, timeout, broken stream — all retryable), `Api` (the server's
//! `Status` with its code, reason, message, details, causes and `Retry-After`,
//! plus apimachinery's predicates: not found, conflict (the Conflict reason,
//! or 409 with a reason it does not know: AlreadyExists is its own predicate),
//! already exists, gone, too large resource version, forbidden, unauthorized,
//! too many requests, invalid, timeout),
//! `Decode`, `WatchDecode`, `Request`, `InvalidName` (a namespace, name or
//! resource that cannot be part of a path) and `SecretData` (refused by the
//! Secret guard). `Api<K>` offers every verb on one
//! resource — get, list (all list options), watch, create, replace, patch
//! (merge, JSON, strategic, server-side apply), delete and deletecollection with
//! their options, the status and scale subresources, pod logs (whole or
//! streamed) — as typed k8s-openapi kinds or as `DynamicObject` for any group
//! version resource, CRDs included; server-side Tables and metadata-only reads
//! are negotiated with `Accept`. The client limits itself to 20 requests/s with
//! bursts of 60 in the browser (`BROWSER_QPS` explains the choice) and counts
//! every request by verb and code with latency buckets, under client-go's
//! metric names.

pub mod compact;
mod error;
pub mod limiter;
pub mod list;
pub mod metrics;
pub(crate) mod retry;
pub mod secrets;
pub mod split;
pub mod status;
pub mod table;
pub mod watch;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::StreamExt;
use futures::stream::LocalBoxStream;
use kube_core::watch::WatchEvent;
use serde::de::DeserializeOwned;

pub use error::Error;
pub use status::ApiError;
pub use watch::DecodeError;

use crate::clock::Clock;
use crate::transport::{ByteStream, Request, Transport, TransportError};
use limiter::TokenBucket;
use metrics::RequestMetrics;
use retry::{Attempt, Tried, copy_request, next_attempt};

/// The app's client-side limit: 20 requests a second, bursts of 60.
///
/// client-go's default (5 qps, burst 10) is sized for a controller in a
/// cluster. A dashboard opening a page needs discovery (2 requests) and the
/// first list of every informer the page shows, about 10–20 requests at once,
/// so the burst covers a page load. Watches are long-lived and count once.
/// The limit is there so that a runaway loop in the tab can never send the
/// user's apiserver more than 20 requests a second; the apiserver's own
/// priority and fairness protects it from everyone else.
pub const BROWSER_QPS: f64 = 20.0;
/// See [`BROWSER_QPS`].
pub const BROWSER_BURST: u32 = 60;

/// Retries of one request after a 429 or 5xx that carries `Retry-After`, or
/// a GET whose connection broke (client-go's `maxRetries`).
pub const MAX_RETRIES: u32 = 10;

/// How long a list read as it arrives may go without a byte before it is
/// given up as stalled ([`TransportError::Stalled`]): a list has no
/// client-side deadline (the apiserver ends it at its own request timeout,
/// 60 s by default, and a large one may take longer to read), so a proxy
/// or server that stops sending mid-body would leave an informer listing
/// forever. Only the gaps between chunks count, never the whole read; the
/// error is not retried here, so the reflector backs off and says so. Needs
/// the client's clock: a client without one waits as long as it takes.
pub const LIST_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// A stream of decoded watch events; ends when the server closes the watch.
pub type WatchStream<K> = LocalBoxStream<'static, Result<WatchEvent<K>, Error>>;

/// Sends requests and decodes JSON answers; optionally limits its rate and
/// measures latency (both need a clock).
#[derive(Clone)]
pub struct RestClient {
    transport: Rc<dyn Transport>,
    clock: Option<Rc<dyn Clock>>,
    limiter: Option<Rc<RefCell<TokenBucket>>>,
    metrics: Rc<RefCell<RequestMetrics>>,
}

impl std::fmt::Debug for RestClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestClient").finish_non_exhaustive()
    }
}

impl RestClient {
    /// A client sending through `transport`, with no rate limit.
    pub fn new(transport: Rc<dyn Transport>) -> Self {
        Self {
            transport,
            clock: None,
            limiter: None,
            metrics: Rc::default(),
        }
    }

    /// Measures request latency with `clock` (and lets a rate limit wait on it).
    pub fn with_clock(mut self, clock: Rc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Limits requests to `qps` per second with bursts of `burst` (needs a clock).
    pub fn with_rate_limit(mut self, qps: f64, burst: u32) -> Self {
        self.limiter = Some(Rc::new(RefCell::new(TokenBucket::new(qps, burst))));
        self
    }

    /// What this client (and its clones) sent so far.
    pub fn metrics(&self) -> RequestMetrics {
        self.metrics.borrow().clone()
    }

    /// Waits for the rate limit; returns when the request started.
    async fn before(&self) -> Option<crate::clock::Timestamp> {
        let clock = self.clock.as_ref()?;
        if let Some(limiter) = &self.limiter {
            let wait = limiter.borrow_mut().reserve(clock.now());
            if !wait.is_zero() {
                self.metrics.borrow_mut().rate_limiter_wait += wait.as_secs_f64();
                clock.sleep(wait).await;
            }
        }
        Some(clock.now())
    }

    fn after(&self, verb: &str, start: Option<crate::clock::Timestamp>, code: Option<u16>) {
        let latency = match (start, &self.clock) {
            (Some(s), Some(c)) => c.now().saturating_sub(s),
            _ => std::time::Duration::ZERO,
        };
        self.metrics.borrow_mut().observe(verb, code, latency);
    }

    /// Sends `request` through `attempt` until an attempt is the last:
    /// client-go's retry rules ([`next_attempt`]: a 429 or 5xx with
    /// `Retry-After`, or a broken connection on a GET, up to
    /// [`MAX_RETRIES`]; only with a clock to wait on), with the rate limit
    /// before each attempt and its latency measured after.
    async fn with_retries<T>(
        &self,
        request: Request,
        mut attempt: impl AsyncFnMut(Request) -> Tried<T>,
    ) -> Result<T, Error> {
        secrets::check(&request)?;
        let verb = metrics::verb_of(&request);
        let mut retries = 0;
        let mut request = request;
        loop {
            let spare = self.clock.is_some().then(|| copy_request(&request));
            let method = request.method().clone();
            let start = self.before().await;
            let tried = attempt(request).await;
            self.after(&verb, start, tried.code);
            if tried.outcome.is_err()
                && let (Some(spare), Some(clock)) = (spare, &self.clock)
                && let Attempt::Retry(wait) = next_attempt(
                    &method,
                    tried.code.filter(|_| !tried.broken),
                    tried.retry_after,
                    tried.broken,
                    retries,
                )
            {
                retries += 1;
                self.metrics.borrow_mut().retries += 1;
                clock.sleep(wait).await;
                request = spare;
                continue;
            }
            return tried.outcome;
        }
    }

    /// Sends `request` and returns the raw body of a 2xx answer, repeating
    /// it as client-go does (see [`RestClient::with_retries`]).
    pub async fn send_raw(&self, request: Request) -> Result<Vec<u8>, Error> {
        self.with_retries(request, async |request| {
            match self.transport.send(request).await {
                Err(e) => Tried::failed(e),
                Ok(response) => {
                    let code = response.status().as_u16();
                    let retry_after = status::parse_retry_after(
                        response.headers().get(http::header::RETRY_AFTER),
                    );
                    let outcome = if (200..300).contains(&code) {
                        Ok(response.into_body())
                    } else {
                        Err(ApiError::from_response(code, response.body(), retry_after).into())
                    };
                    Tried {
                        code: Some(code),
                        retry_after,
                        broken: false,
                        outcome,
                    }
                }
            }
        })
        .await
    }

    /// Sends `request` and reads a 2xx body as it arrives, each chunk into
    /// a reader made by `new_reader` (a list's decoder: see
    /// [`list::ListDecoder`]), with [`RestClient::send_raw`]'s retries. A
    /// connection that breaks in the middle of a GET's body is asked again
    /// a second later, into a fresh reader.
    pub async fn receive<R: BodyReader>(
        &self,
        request: Request,
        new_reader: impl Fn() -> R,
    ) -> Result<R::Output, Error> {
        self.with_retries(request, async |request| {
            match self.transport.stream(request).await {
                Err(e) => Tried::failed(e),
                Ok(response) => {
                    let code = response.status().as_u16();
                    let retry_after = status::parse_retry_after(
                        response.headers().get(http::header::RETRY_AFTER),
                    );
                    let idle = self.clock.clone().map(|c| (c, LIST_IDLE_TIMEOUT));
                    match read_body(response.into_body(), code, new_reader(), idle).await {
                        // Broken mid-body: no answer to go by.
                        Err(e) => Tried::failed(e),
                        Ok(Ok(read)) => Tried {
                            code: Some(code),
                            retry_after,
                            broken: false,
                            outcome: read.finish(),
                        },
                        Ok(Err(body)) => Tried {
                            code: Some(code),
                            retry_after,
                            broken: false,
                            outcome: Err(ApiError::from_response(code, &body, retry_after).into()),
                        },
                    }
                }
            }
        })
        .await
    }

    /// Sends `request` and decodes a 2xx JSON answer as `T`.
    pub async fn send_json<T: DeserializeOwned>(&self, request: Request) -> Result<T, Error> {
        let body = self.send_raw(request).await?;
        serde_json::from_slice(&body).map_err(|e| Error::Decode(e.to_string()))
    }

    /// `GET /version`: the server's build information.
    pub async fn version(&self) -> Result<k8s_openapi::apimachinery::pkg::version::Info, Error> {
        let request = http::Request::get("/version")
            .body(Vec::new())
            .map_err(|e| Error::Request(e.to_string()))?;
        self.send_json(request).await
    }

    /// Sends `request` and returns the body of a 2xx answer as a stream of
    /// chunks (watches, followed logs). A non-2xx answer is read (up to 64 KiB)
    /// and returned as an error. Dropping the stream cancels the request.
    pub async fn stream_raw(&self, request: Request) -> Result<ByteStream, Error> {
        secrets::check(&request)?;
        let verb = metrics::verb_of(&request);
        let mut retries = 0;
        let mut request = request;
        loop {
            let spare = self.clock.is_some().then(|| copy_request(&request));
            let method = request.method().clone();
            let start = self.before().await;
            let response = self.transport.stream(request).await;
            let code = response.as_ref().ok().map(|r| r.status().as_u16());
            self.after(&verb, start, code);
            let response = response?;
            let code = response.status().as_u16();
            let retry_after =
                status::parse_retry_after(response.headers().get(http::header::RETRY_AFTER));
            let mut body = response.into_body();
            if (200..300).contains(&code) {
                return Ok(body);
            }
            if let (Some(spare), Some(clock)) = (spare, &self.clock)
                && let Attempt::Retry(wait) =
                    next_attempt(&method, Some(code), retry_after, false, retries)
            {
                drop(body);
                retries += 1;
                self.metrics.borrow_mut().retries += 1;
                clock.sleep(wait).await;
                request = spare;
                continue;
            }
            let mut bytes = Vec::new();
            while let Some(Ok(chunk)) = body.next().await {
                bytes.extend_from_slice(&chunk);
                if bytes.len() >= 64 * 1024 {
                    break;
                }
            }
            return Err(ApiError::from_response(code, &bytes, retry_after).into());
        }
    }

    /// Opens a watch built by `request` and decodes its events as they arrive.
    ///
    /// A non-2xx answer is returned as an error before any event. Dropping
    /// the stream cancels the request.
    pub async fn watch<K: DeserializeOwned + 'static>(
        &self,
        request: Request,
    ) -> Result<WatchStream<K>, Error> {
        Ok(decode_stream(self.stream_raw(request).await?))
    }
}

/// Reads a body as it arrives, for [`RestClient::receive`].
pub trait BodyReader {
    /// What the whole body reads as.
    type Output;
    /// The next bytes of the body, which may end anywhere.
    fn push(&mut self, chunk: &[u8]);
    /// The body has ended.
    fn finish(self) -> Result<Self::Output, Error>;
}

impl<'a, K: DeserializeOwned> BodyReader for list::ListDecoder<'a, K> {
    type Output = list::ListPage<K>;
    fn push(&mut self, chunk: &[u8]) {
        list::ListDecoder::push(self, chunk);
    }
    fn finish(self) -> Result<list::ListPage<K>, Error> {
        list::ListDecoder::finish(self)
    }
}

/// A 2xx body into `reader` (`Ok(Ok(reader))`), or a non-2xx body's first
/// 64 KiB (`Ok(Err(bytes))`, for its `Status`); `Err` when the connection
/// broke while it was read.
async fn read_body<R: BodyReader>(
    mut body: ByteStream,
    code: u16,
    mut reader: R,
    idle: Option<(Rc<dyn Clock>, Duration)>,
) -> Result<Result<R, Vec<u8>>, TransportError> {
    let success = (200..300).contains(&code);
    let mut bytes = Vec::new();
    loop {
        let next = match &idle {
            None => body.next().await,
            Some((clock, limit)) => {
                match futures::future::select(body.next(), clock.sleep(*limit)).await {
                    futures::future::Either::Left((next, _)) => next,
                    futures::future::Either::Right(_) => {
                        return Err(TransportError::Stalled(*limit));
                    }
                }
            }
        };
        let Some(chunk) = next else { break };
        let chunk = chunk?;
        if success {
            reader.push(&chunk);
        } else {
            bytes.extend_from_slice(&chunk);
            if bytes.len() >= 64 * 1024 {
                break;
            }
        }
    }
    Ok(if success { Ok(reader) } else { Err(bytes) })
}

/// Turns a byte stream into a stream of watch events.
pub fn decode_stream<K: DeserializeOwned + 'static>(body: ByteStream) -> WatchStream<K> {
    struct State {
        body: Option<ByteStream>,
        lines: watch::LineBuffer,
        ready: std::collections::VecDeque<Result<Vec<u8>, Error>>,
    }
    let state = State {
        body: Some(body),
        lines: watch::LineBuffer::new(),
        ready: Default::default(),
    };
    futures::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(next) = st.ready.pop_front() {
                let item =
                    next.and_then(|line| watch::decode_event::<K>(&line).map_err(Error::from));
                return Some((item, st));
            }
            let body = st.body.as_mut()?;
            match body.next().await {
                Some(Ok(chunk)) => match st.lines.push(&chunk) {
                    Ok(lines) => st.ready.extend(lines.into_iter().map(Ok)),
                    Err(e) => st.ready.push_back(Err(e.into())),
                },
                Some(Err(e)) => {
                    st.body = None;
                    st.ready.push_back(Err(e.into()));
                }
                None => {
                    st.body = None;
                    if let Some(last) = st.lines.finish() {
                        st.ready.push_back(Ok(last));
                    }
                }
            }
        }
    })
    .boxed_local()
}
