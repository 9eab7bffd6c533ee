//! The front door: the launcher's own listener on 127.0.0.1. It answers
//! only requests for our `Host` that carry the token and come from our own
//! page, serves the app from memory with real security headers, and passes
//! API requests (streams, and the WebSocket upgrades the gate allows,
//! unbuffered, through the header allowlists of `headers`) to kubectl
//! proxy's private socket.
//!
//! hyper on tokio: the HTTP/1 stack most Rust servers stand on (axum,
//! reqwest), with upgrades and streaming bodies as plain values; a
//! framework's router would add nothing to four rules and one forward.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::assets;
use crate::gate::{self, Refusal, Route};
use crate::headers;
use crate::store::Store;

/// A response body: a file, a refusal, or kubectl's stream.
pub type Body = BoxBody<Bytes, hyper::Error>;

/// What one context's door knows.
pub struct Door {
    /// The capability token, only here and in the printed URL.
    pub token: String,
    /// The `Host` the page uses, `<name>.localhost:<port>`, for the `Host`
    /// and `Origin` checks.
    pub host: String,
    /// The port, which programs reach as `127.0.0.1:<port>`.
    pub port: u16,
    /// Only reads pass (`--read-only`), and whether a shell may.
    pub mode: gate::Mode,
    /// The context's kubectl proxy, started when first needed.
    pub upstream: Arc<crate::upstream::Upstream>,
    /// The app's URL of every context the launcher serves, in the
    /// session's order (`/glass/open/<i>` redirects to the `i`th).
    pub contexts: Arc<[String]>,
    /// The session file's text (the context, read-only).
    pub session: String,
    /// The `Content-Security-Policy` header.
    pub csp: String,
    /// The browser's redirect file: removed once the app has been fetched,
    /// so the token is on disk only until the browser has read it.
    pub open_file: Mutex<Option<PathBuf>>,
    /// Set when the page asked to stop (`POST /glass/stop`): it found a
    /// Service Worker on this origin, which may have seen the token.
    pub haunted: AtomicBool,
    /// The context's store, served under the token.
    pub store: Store,
    /// The context's saved tables, served under the token.
    pub saved: crate::saved::Saved,
    /// The port-forwards the page started (`forward`).
    pub forwards: crate::forward::Forwards,
}

impl Door {
    /// True once the page has asked the launcher to stop.
    pub fn haunted(&self) -> bool {
        self.haunted.load(Ordering::SeqCst)
    }
}

/// What the door allows anyone who connects, before any rule is asked:
/// nobody can hold it up by connecting and saying nothing, by opening
/// connections until it runs out of files, or by making it spin when it
/// has.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// A connection that has not sent a whole request head this long
    /// after it connected (or after its last answer) is closed.
    pub header_read_timeout: Duration,
    /// At most this many connections are served at once; the next waits
    /// in the kernel's queue until one closes. An upgraded connection
    /// (a watch's WebSocket, which needs the token) no longer counts.
    pub max_connections: usize,
    /// After a failed `accept` (`EMFILE`: no file descriptor left), wait
    /// this long before the next instead of trying again at once.
    pub accept_pause: Duration,
}

impl Default for Limits {
    /// 10 s, 128 connections, 100 ms: a browser sends its head at once and
    /// keeps a handful of connections per origin.
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 128,
            accept_pause: Duration::from_millis(100),
        }
    }
}

/// Serves `door` on `listener` with the default [`Limits`] until the task
/// is dropped.
pub async fn serve(listener: TcpListener, door: Arc<Door>) {
    serve_with(vec![listener], door, Limits::default()).await;
}

/// Serves `door` on every one of `listeners` (127.0.0.1 and `[::1]`), all
/// within one `limits`, until the task is dropped.
pub async fn serve_with(listeners: Vec<TcpListener>, door: Arc<Door>, limits: Limits) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    loop {
        // A slot first: beyond the cap, connections wait unaccepted.
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let stream = match accept_any(&listeners).await {
            Ok(stream) => stream,
            Err(_) => {
                tokio::time::sleep(limits.accept_pause).await;
                continue;
            }
        };
        let door = door.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let door = door.clone();
                async move { Ok::<_, std::convert::Infallible>(answer(&door, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout)
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades()
                .await;
            drop(slot);
        });
    }
}

/// The next connection on any of `listeners`.
async fn accept_any(listeners: &[TcpListener]) -> std::io::Result<tokio::net::TcpStream> {
    std::future::poll_fn(|cx| {
        for l in listeners {
            if let std::task::Poll::Ready(r) = l.poll_accept(cx) {
                return std::task::Poll::Ready(r.map(|(s, _)| s));
            }
        }
        std::task::Poll::Pending
    })
    .await
}

/// One request's answer, with the headers every answer carries. Only the
/// app's own files may be pages; every other answer (the cluster's,
/// a refusal, a redirect) is never stored and never becomes one.
async fn answer(door: &Door, req: Request<Incoming>) -> Response<Body> {
    let mut app = false;
    let mut resp = match admit(door, &req) {
        Err(refusal) => refuse(&refusal),
        Ok((Route::ToApp, _)) => {
            let mut r = text(StatusCode::PERMANENT_REDIRECT, "");
            if let Ok(v) = HeaderValue::from_str(&format!("/{}/ui/", door.token)) {
                r.headers_mut().insert(header::LOCATION, v);
            }
            r
        }
        Ok((Route::App(name), _)) => {
            app = true;
            app_file(door, &req, &name)
        }
        Ok((Route::Stop, _)) => {
            door.haunted.store(true, Ordering::SeqCst);
            text(StatusCode::ACCEPTED, "stopping")
        }
        Ok((Route::Storage, _)) => json(StatusCode::OK, door.store.json()),
        Ok((Route::StorageKey(key), _)) => store_key(door, req, &key).await,
        Ok((Route::Saved, _)) => crate::saved::serve_all(door, &req),
        Ok((Route::SavedKey(key), _)) => crate::saved::serve_one(door, req, &key).await,
        Ok((Route::Forwards, _)) => forwards(door, req).await,
        Ok((Route::StopForward(id), _)) => match door.forwards.stop(id) {
            true => text(StatusCode::NO_CONTENT, ""),
            false => text(
                StatusCode::NOT_FOUND,
                &format!("no forward {id} is running"),
            ),
        },
        Ok((Route::Open(i), _)) => open_context(door, i),
        Ok((Route::Api | Route::Exec, rest)) => {
            let hold = door.upstream.hold();
            match door.upstream.start().await {
                Err(why) => text(StatusCode::BAD_GATEWAY, &why),
                Ok(()) => {
                    match crate::relay::forward(door.upstream.socket(), req, &rest, hold).await {
                        Ok(r) => r,
                        Err(e) => text(
                            StatusCode::BAD_GATEWAY,
                            &format!("kubectl proxy did not answer: {e}"),
                        ),
                    }
                }
            }
        }
    };
    if !app {
        headers::not_a_page(resp.headers_mut());
    }
    secure(resp.headers_mut());
    resp
}

/// The rules, in order: our `Host`, the token, our own page, the path.
/// Returns the route and the path after the token (query included).
fn admit(door: &Door, req: &Request<Incoming>) -> Result<(Route, String), Refusal> {
    let h = req.headers();
    let get = |name: header::HeaderName| h.get(name).and_then(|v| v.to_str().ok());
    if !gate::host_is_ours(get(header::HOST), &door.host) {
        if !gate::host_is_our_address(get(header::HOST), door.port) {
            return Err(Refusal::Host);
        }
        if gate::from_a_browser(|name| h.contains_key(name)) {
            return Err(Refusal::BrowserByAddress);
        }
    }
    let rest = gate::strip_token(req.uri().path(), &door.token).ok_or(Refusal::NotFound)?;
    let route = gate::route(rest, req.method().as_str(), door.mode)?;
    // Opening the app in a tab is a navigation from wherever the link was
    // (the redirect file is `file://`, so cross-site): allowed for the
    // page, as any link is. Its answer goes to our own origin, not to the
    // page that navigated, and it cannot be framed.
    let navigation = matches!(route, Route::App(_) | Route::ToApp)
        && req.method() == hyper::Method::GET
        && get_str(h, "sec-fetch-mode") == Some("navigate")
        && get_str(h, "sec-fetch-dest") == Some("document");
    if !navigation
        && !gate::same_origin(
            get(header::ORIGIN),
            get_str(h, "sec-fetch-site"),
            &door.host,
        )
    {
        return Err(Refusal::CrossSite);
    }
    let rest = match req.uri().query() {
        Some(q) => format!("{rest}?{q}"),
        None => rest.to_string(),
    };
    // In every mode: a WebSocket only where the app opens one; a shell
    // only as one.
    match (h.get(header::UPGRADE), &route) {
        (Some(up), Route::Api | Route::Exec) => {
            let protocol = up.to_str().unwrap_or_default();
            gate::upgrade(&rest, req.method().as_str(), protocol, door.mode)?;
        }
        (None, Route::Exec) => {
            return Err(Refusal::Upgrade(
                "a shell passes only as a WebSocket".into(),
            ));
        }
        _ => {}
    }
    Ok((route, rest))
}

fn get_str<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

/// `GET` the port-forwards, or `POST` one to start (`forward::Forwards::answer`).
async fn forwards(door: &Door, req: Request<Incoming>) -> Response<Body> {
    let method = req.method().as_str().to_string();
    let limited = http_body_util::Limited::new(req.into_body(), crate::forward::MAX_BODY);
    let Ok(body) = limited.collect().await.map(|b| b.to_bytes()) else {
        return text(
            StatusCode::PAYLOAD_TOO_LARGE,
            "a port-forward request is small",
        );
    };
    let a = door.forwards.answer(&method, &body).await;
    let status = StatusCode::from_u16(a.status).unwrap_or(StatusCode::BAD_GATEWAY);
    match a.json {
        true => json(status, a.body),
        false => text(status, &a.body),
    }
}

/// `PUT` (the body is the value) or `DELETE` of one key of the store.
async fn store_key(door: &Door, req: Request<Incoming>, key: &str) -> Response<Body> {
    let value = if req.method() == hyper::Method::PUT {
        let limited = http_body_util::Limited::new(req.into_body(), crate::store::MAX_VALUE);
        let bytes = match limited.collect().await {
            Ok(b) => b.to_bytes(),
            Err(_) => {
                return text(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &crate::store::StoreError::TooLarge.to_string(),
                );
            }
        };
        match String::from_utf8(bytes.to_vec()) {
            Ok(v) => Some(v),
            Err(_) => return text(StatusCode::BAD_REQUEST, "a stored value is UTF-8 text"),
        }
    } else {
        None
    };
    match door.store.set(key, value.as_deref()) {
        Ok(()) => text(StatusCode::NO_CONTENT, ""),
        Err(e @ crate::store::StoreError::Io(_)) => {
            text(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string())
        }
        Err(e) => text(StatusCode::PAYLOAD_TOO_LARGE, &e.to_string()),
    }
}

/// `GET /glass/open/<i>`: a redirect to the app of the `i`th context,
/// on its own origin. Only a navigation from our own page gets here (the
/// rules in `admit`), and a script of ours cannot read where a redirect
/// goes, so no page ever holds another context's token. The fragment (the
/// page to open) is kept by the browser.
fn open_context(door: &Door, i: usize) -> Response<Body> {
    let Some(url) = door.contexts.get(i) else {
        return text(
            StatusCode::NOT_FOUND,
            &format!("this launcher serves no context {i}"),
        );
    };
    let mut r = text(StatusCode::SEE_OTHER, "");
    if let Ok(v) = HeaderValue::from_str(url) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

/// A JSON answer.
pub(crate) fn json(status: StatusCode, body: String) -> Response<Body> {
    let mut r = Response::new(
        Full::new(Bytes::from(body))
            .map_err(|never| match never {})
            .boxed(),
    );
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// A file of the app.
fn app_file(door: &Door, req: &Request<Incoming>, name: &str) -> Response<Body> {
    if req.method() != hyper::Method::GET && req.method() != hyper::Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "the app's files are read-only",
        );
    }
    let accept = get_str(req.headers(), "accept-encoding");
    let Some(asset) = assets::get(name, accept, &door.session) else {
        return text(StatusCode::NOT_FOUND, "not found");
    };
    if (name.is_empty() || name == "index.html")
        && let Ok(mut f) = door.open_file.lock()
        && let Some(path) = f.take()
    {
        let _ = std::fs::remove_file(path);
    }
    let body = if req.method() == hyper::Method::HEAD {
        Bytes::new()
    } else {
        Bytes::from(asset.body.into_owned())
    };
    let mut r = Response::new(Full::new(body).map_err(|never| match never {}).boxed());
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(asset.cache));
    h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if let Some(e) = asset.encoding {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(e));
    }
    if let Ok(v) = HeaderValue::from_str(&door.csp) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    r
}

/// Headers on every answer: no sniffing, no referrer (the URL holds the
/// token), no window or resource shared with another origin.
fn secure(h: &mut HeaderMap) {
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

fn refuse(r: &Refusal) -> Response<Body> {
    let status = StatusCode::from_u16(r.status()).unwrap_or(StatusCode::FORBIDDEN);
    text(status, &r.to_string())
}

pub(crate) fn text(status: StatusCode, body: &str) -> Response<Body> {
    let mut r = Response::new(
        Full::new(Bytes::from(body.to_string()))
            .map_err(|never| match never {})
            .boxed(),
    );
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}
