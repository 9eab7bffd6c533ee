//! kubeglass-web: the browser side of kubeglass-client's traits.
//!
//! [`FetchTransport`] sends requests with `fetch` (`cache: "no-store"`) and
//! streams watch bodies through a `ReadableStream` reader; dropping a
//! stream aborts its fetch.
//! [`WebClock`] tells time with `Date.now()` and sleeps with `setTimeout`.
//! This is the only crate that touches web-sys.
//!
//! # The pieces
//!
//! The browser side of the client's traits: `FetchTransport` (fetch +
//! `ReadableStream`, abort on drop, `cache: "no-store"`; every request to the
//! API says `pretty=false`, `rest::compact::compact_json`, since the API server
//! pretty-prints JSON for a browser's User-Agent), `WebSocketTransport`
//! (watches over WebSocket, fetch fallback), `WebClock` (`Date.now`,
//! `setTimeout`), `LocalStorage` and `ServedStorage` (the launcher's
//! per-context store, read whole once, each change sent back in order;
//! preferences and the discovery cache), `Snapshots` (informers' saved
//! states: the launcher's folder, or the origin's Cache Storage), `FrameQueue` (a work queue drained
//! once per `requestAnimationFrame`, or per frame of the `RequestFrame` given
//! to `with_frames`, timed by the clock it is given), `js_regexp` (the
//! browser's `RegExp`, a bad pattern an error, not a throw), `spawn`.
#![warn(missing_docs)]

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use futures::channel::oneshot;
use futures::future::{Either, LocalBoxFuture};
use futures::{FutureExt, StreamExt};
use js_sys::{Reflect, Uint8Array};
use kubeglass_client::clock::{Clock, PassiveClock, Timestamp};
use kubeglass_client::transport::{ByteStream, Request, Transport, TransportError};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Headers, ReadableStreamDefaultReader, RequestCache, RequestInit};

mod duplex;
mod frame;
mod regex;
mod snapshots;
mod storage;
mod tabs;
mod websocket;

pub use frame::{FrameQueue, FrameQueueStats, RequestFrame, animation_frames, frame_queue_stats};
pub use regex::js_regexp;
pub use snapshots::Snapshots;
pub use storage::{LocalStorage, ServedStorage};
pub use tabs::TabBus;
pub use websocket::WebSocketTransport;

/// Runs a future on the browser's event loop.
pub fn spawn(fut: impl std::future::Future<Output = ()> + 'static) {
    wasm_bindgen_futures::spawn_local(fut);
}

thread_local! {
    /// The files beside the page read so far, with their answers.
    static BESIDE: std::cell::RefCell<std::collections::BTreeMap<String, Result<Option<String>, String>>> =
        const { std::cell::RefCell::new(std::collections::BTreeMap::new()) };
}

/// GETs a file that sits next to the page (`relative` is resolved against
/// the page's own URL, so it stays on its origin and under its prefix).
/// `Ok(None)` when there is no such file (404); the body as text otherwise.
/// Read once per page: such a file (the launcher's session file) does not
/// change while the page lives, and the page's preload answers the first
/// read only, so a later call gets the first answer instead of a second
/// request.
pub async fn fetch_beside_page(relative: &str) -> Result<Option<String>, String> {
    if let Some(known) = BESIDE.with(|b| b.borrow().get(relative).cloned()) {
        return known;
    }
    let answer = fetch_beside_page_once(relative).await;
    BESIDE.with(|b| b.borrow_mut().insert(relative.to_string(), answer.clone()));
    answer
}

async fn fetch_beside_page_once(relative: &str) -> Result<Option<String>, String> {
    let w = window().ok_or("no window")?;
    let resp = JsFuture::from(w.fetch_with_str(relative))
        .await
        .map_err(|e| js_message(&e))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| "fetch returned no Response")?;
    if resp.status() == 404 {
        return Ok(None);
    }
    if !resp.ok() {
        return Err(format!("{relative}: HTTP {}", resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(|e| js_message(&e))?)
        .await
        .map_err(|e| js_message(&e))?;
    Ok(text.as_string())
}

/// The size of this module's WebAssembly memory, in bytes: the most it
/// has needed so far (wasm memory grows and never shrinks).
pub fn wasm_memory_bytes() -> u64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .ok()
        .and_then(|m| m.buffer().dyn_into::<js_sys::ArrayBuffer>().ok())
        .map_or(0, |b| b.byte_length() as u64)
}

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

fn js_message(v: &JsValue) -> String {
    if let Some(e) = v.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    v.as_string().unwrap_or_else(|| format!("{v:?}"))
}

/// `Date.now()` and `setTimeout`.
#[derive(Debug, Clone, Copy, Default)]
pub struct WebClock;

impl PassiveClock for WebClock {
    fn now(&self) -> Timestamp {
        Duration::from_secs_f64(js_sys::Date::now().max(0.0) / 1000.0)
    }
}

/// `crypto.getRandomValues` (a worker's or the page's), or `Math.random`
/// where that is missing: a different seed in every tab and every call.
impl kubeglass_client::clock::Entropy for WebClock {
    fn random_u64(&self) -> u64 {
        let mut bytes = [0u8; 8];
        let crypto = window().and_then(|w| w.crypto().ok());
        match crypto.map(|c| c.get_random_values_with_u8_array(&mut bytes)) {
            Some(Ok(_)) => u64::from_le_bytes(bytes),
            _ => {
                let hi = (js_sys::Math::random() * f64::from(u32::MAX)) as u64;
                let lo = (js_sys::Math::random() * f64::from(u32::MAX)) as u64;
                (hi << 32) | lo
            }
        }
    }
}

/// Cancels a pending `setTimeout` when dropped.
struct TimeoutGuard {
    id: Option<i32>,
    _closure: Closure<dyn FnMut()>,
}

impl Drop for TimeoutGuard {
    fn drop(&mut self) {
        if let (Some(id), Some(w)) = (self.id, window()) {
            w.clear_timeout_with_handle(id);
        }
    }
}

impl Clock for WebClock {
    fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()> {
        let (tx, rx) = oneshot::channel::<()>();
        let mut tx = Some(tx);
        let closure = Closure::<dyn FnMut()>::new(move || {
            if let Some(tx) = tx.take() {
                let _ = tx.send(());
            }
        });
        let ms = duration.as_millis().min(i32::MAX as u128) as i32;
        let id = window().and_then(|w| {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(
                closure.as_ref().unchecked_ref(),
                ms,
            )
            .ok()
        });
        let guard = TimeoutGuard {
            id,
            _closure: closure,
        };
        async move {
            let _guard = guard;
            // If the timer could not be set, the channel never fires: a
            // broken environment waits forever instead of spinning.
            let _ = rx.await;
        }
        .boxed_local()
    }
}

/// Counts the requests a transport has open, by kind, for the X-ray page.
#[derive(Debug, Default)]
pub struct ConnectionCounts {
    /// Requests waiting for a whole response (a list read as it arrives among them).
    pub requests: Cell<u32>,
    /// fetch streams (watches, logs) currently open: each holds an HTTP/1.1 connection.
    pub streams: Cell<u32>,
    /// WebSocket watches currently open (not counted against the connection limit).
    pub websockets: Cell<u32>,
    /// Requests sent since the start.
    pub total: Cell<u64>,
}

/// Aborts its fetch when dropped and keeps the open count it is in.
struct StreamGuard {
    controller: AbortController,
    counts: Rc<ConnectionCounts>,
    /// A watch or a followed log, counted in `streams`; else a body read
    /// as it arrives (a list), counted in `requests`.
    long_lived: bool,
    done: bool,
}

impl StreamGuard {
    fn count(&self) -> &Cell<u32> {
        if self.long_lived {
            &self.counts.streams
        } else {
            &self.counts.requests
        }
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        if !self.done {
            self.controller.abort();
        }
        let count = self.count();
        count.set(count.get().saturating_sub(1));
    }
}

/// A watch or a followed log: a response that stays open.
fn long_lived(request: &Request) -> bool {
    request.uri().query().is_some_and(|q| {
        q.split('&')
            .any(|p| matches!(p, "watch=true" | "watch=1" | "follow=true"))
    })
}

/// Sends requests with `fetch` to `base` (empty = the page's own origin).
#[derive(Debug, Clone)]
pub struct FetchTransport {
    base: String,
    timeout: Duration,
    clock: WebClock,
    counts: Rc<ConnectionCounts>,
}

impl FetchTransport {
    /// A transport for `base` (e.g. `""` for same origin, `/<token>` for a
    /// path on it, or `http://127.0.0.1:8001`),
    /// giving up on whole-body requests after `timeout`.
    pub fn new(base: impl Into<String>, timeout: Duration) -> Self {
        Self {
            base: base.into().trim_end_matches('/').to_string(),
            timeout,
            clock: WebClock,
            counts: Rc::default(),
        }
    }

    /// The base URL requests go to (empty = the page's own origin).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Open requests and streams.
    pub fn counts(&self) -> Rc<ConnectionCounts> {
        self.counts.clone()
    }

    fn start(
        &self,
        request: &Request,
    ) -> Result<(AbortController, js_sys::Promise), TransportError> {
        let w = window().ok_or_else(|| TransportError::Connect("no window".into()))?;
        let controller =
            AbortController::new().map_err(|e| TransportError::Connect(js_message(&e)))?;
        let headers = Headers::new().map_err(|e| TransportError::Connect(js_message(&e)))?;
        for (k, v) in request.headers() {
            if let Ok(v) = v.to_str() {
                headers
                    .append(k.as_str(), v)
                    .map_err(|e| TransportError::Connect(js_message(&e)))?;
            }
        }
        let init = RequestInit::new();
        init.set_method(request.method().as_str());
        init.set_headers(&headers);
        // Nothing from the cluster in the HTTP cache: kube-apiserver says
        // `no-cache, private`, which lets the browser keep an answer on
        // disk (a revealed Secret, metadata whose last-applied holds one).
        // `kubectl glass` answers `no-store`; a plain kubectl proxy does not.
        init.set_cache(RequestCache::NoStore);
        init.set_signal(Some(&controller.signal()));
        if !request.body().is_empty() {
            let body = Uint8Array::from(request.body().as_slice());
            init.set_body(&body);
        }
        // Compact JSON: the API server pretty-prints for a browser.
        let url = format!(
            "{}{}",
            self.base,
            kubeglass_client::rest::compact::compact_json(&request.uri().to_string())
        );
        self.counts.total.set(self.counts.total.get() + 1);
        Ok((controller, w.fetch_with_str_and_init(&url, &init)))
    }
}

/// The apiserver's audit ID, which a problem report may quote.
const AUDIT_ID: http::HeaderName = http::HeaderName::from_static("audit-id");

/// The response's status and the headers the client reads. The names are
/// constants: parsing one from a string would pull `http`'s 17 KB table of
/// standard names into the first page's wasm.
fn response_parts(resp: &web_sys::Response) -> http::response::Builder {
    let mut b = http::Response::builder().status(resp.status());
    for name in [
        http::header::CONTENT_TYPE,
        http::header::RETRY_AFTER,
        AUDIT_ID,
    ] {
        if let Ok(Some(v)) = resp.headers().get(name.as_str()) {
            b = b.header(name, v);
        }
    }
    b
}

fn build<B>(b: http::response::Builder, body: B) -> Result<http::Response<B>, TransportError> {
    b.body(body)
        .map_err(|e| TransportError::Read(e.to_string()))
}

impl Transport for FetchTransport {
    fn send(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<Vec<u8>>, TransportError>> {
        async move {
            let (controller, promise) = self.start(&request)?;
            self.counts.requests.set(self.counts.requests.get() + 1);
            let work = async {
                let resp = JsFuture::from(promise)
                    .await
                    .map_err(|e| TransportError::Connect(js_message(&e)))?;
                let resp: web_sys::Response = resp
                    .dyn_into()
                    .map_err(|_| TransportError::Read("fetch returned no Response".into()))?;
                let parts = response_parts(&resp);
                let buf = resp
                    .array_buffer()
                    .map_err(|e| TransportError::Read(js_message(&e)))?;
                let buf = JsFuture::from(buf)
                    .await
                    .map_err(|e| TransportError::Read(js_message(&e)))?;
                build(parts, Uint8Array::new(&buf).to_vec())
            };
            let timer = self.clock.sleep(self.timeout);
            let result = match futures::future::select(Box::pin(work), timer).await {
                Either::Left((r, _)) => r,
                Either::Right(((), _)) => {
                    controller.abort();
                    Err(TransportError::Timeout(self.timeout))
                }
            };
            self.counts
                .requests
                .set(self.counts.requests.get().saturating_sub(1));
            result
        }
        .boxed_local()
    }

    fn stream(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<ByteStream>, TransportError>> {
        async move {
            let (controller, promise) = self.start(&request)?;
            let mut guard = StreamGuard {
                controller,
                counts: self.counts.clone(),
                long_lived: long_lived(&request),
                done: false,
            };
            guard.count().set(guard.count().get() + 1);
            let resp = JsFuture::from(promise)
                .await
                .map_err(|e| TransportError::Connect(js_message(&e)))?;
            let resp: web_sys::Response = resp
                .dyn_into()
                .map_err(|_| TransportError::Read("fetch returned no Response".into()))?;
            let parts = response_parts(&resp);
            let Some(body) = resp.body() else {
                guard.done = true;
                let empty: ByteStream = futures::stream::empty().boxed_local();
                return build(parts, empty);
            };
            let reader: ReadableStreamDefaultReader = body
                .get_reader()
                .dyn_into()
                .map_err(|_| TransportError::Read("no stream reader".into()))?;
            let state = (reader, guard);
            let chunks = futures::stream::unfold(Some(state), |state| async move {
                let (reader, mut guard) = state?;
                let result = match JsFuture::from(reader.read()).await {
                    Err(e) => Err(TransportError::Read(js_message(&e))),
                    Ok(v) => {
                        let done = Reflect::get(&v, &JsValue::from_str("done"))
                            .ok()
                            .and_then(|d| d.as_bool())
                            .unwrap_or(true);
                        if done {
                            guard.done = true;
                            return None;
                        }
                        match Reflect::get(&v, &JsValue::from_str("value")) {
                            // The chunk is a Uint8Array already: `new
                            // Uint8Array(chunk)` would copy it once more in JS.
                            Ok(value) => value
                                .dyn_into::<Uint8Array>()
                                .map(|chunk| chunk.to_vec())
                                .map_err(|_| {
                                    TransportError::Read("a chunk that is not bytes".into())
                                }),
                            Err(e) => Err(TransportError::Read(js_message(&e))),
                        }
                    }
                };
                let next = if result.is_ok() {
                    Some((reader, guard))
                } else {
                    None
                };
                Some((result, next))
            });
            build(parts, chunks.boxed_local() as ByteStream)
        }
        .boxed_local()
    }
}
