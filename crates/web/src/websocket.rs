//! Watches and followed logs over WebSocket, so they do not hold one of the browser's six HTTP/1.1 connections.
//!
//! kubectl proxy passes `Upgrade: websocket` through and the apiserver sends
//! each watch event as one text message, and a followed log as binary
//! messages of up to 2 KiB cut anywhere (docs/kubectl-proxy.md). A browser
//! WebSocket cannot set headers, so only watches with the default `Accept`
//! (plain JSON) go this way; metadata-only and Table watches, which need an
//! `Accept` header, use fetch streams. When the socket cannot be opened the
//! same request is sent with fetch, which also turns a refusal (403, 410…)
//! into the server's `Status` — a failed WebSocket handshake says nothing.

use std::cell::Cell;
use std::rc::Rc;

use futures::channel::{mpsc, oneshot};
use futures::future::LocalBoxFuture;
use futures::{FutureExt, StreamExt};
use js_sys::{ArrayBuffer, Uint8Array};
use kubeglass_client::transport::{ByteStream, Request, Transport, TransportError};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{BinaryType, CloseEvent, MessageEvent, WebSocket};

use crate::{ConnectionCounts, FetchTransport};

/// Closes the socket and releases its callbacks when the stream is dropped.
struct SocketGuard {
    socket: WebSocket,
    counts: Rc<ConnectionCounts>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_close: Closure<dyn FnMut(CloseEvent)>,
    _on_error: Closure<dyn FnMut(JsValue)>,
    _on_open: Closure<dyn FnMut(JsValue)>,
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        self.socket.set_onmessage(None);
        self.socket.set_onclose(None);
        self.socket.set_onerror(None);
        self.socket.set_onopen(None);
        let _ = self.socket.close();
        self.counts
            .websockets
            .set(self.counts.websockets.get().saturating_sub(1));
    }
}

/// How a socket's messages map onto the byte stream the client reads.
#[derive(Debug, Clone, Copy)]
enum Framing {
    /// A watch: each message is one JSON event (a newline is added).
    EventPerMessage,
    /// A log: messages are pieces of one byte stream.
    Bytes,
}

/// Sends watches and followed logs over WebSocket, and everything else with fetch.
#[derive(Debug, Clone)]
pub struct WebSocketTransport {
    fetch: FetchTransport,
    /// `ws://host` or `wss://host` of the API.
    pub(crate) ws_base: String,
    /// Set once a socket failed to open: later watches go straight to fetch.
    disabled: Rc<Cell<bool>>,
    /// The same for followed logs (a server may take one and not the other).
    logs_disabled: Rc<Cell<bool>>,
}

impl WebSocketTransport {
    /// Watches over WebSocket to the same host as `fetch`'s base (the page's
    /// own origin when that base is empty or a path such as `/<token>`).
    pub fn new(fetch: FetchTransport) -> Self {
        let base = fetch.base().to_string();
        // An empty base or a path (`/<token>`) is on the page's own origin.
        let ws_base = if base.is_empty() || base.starts_with('/') {
            let origin = web_sys::window()
                .map(|w| w.location())
                .map(|l| {
                    let proto = if l.protocol().ok().as_deref() == Some("https:") {
                        "wss:"
                    } else {
                        "ws:"
                    };
                    format!("{proto}//{}", l.host().unwrap_or_default())
                })
                .unwrap_or_default();
            format!("{origin}{base}")
        } else if let Some(rest) = base.strip_prefix("https://") {
            format!("wss://{rest}")
        } else if let Some(rest) = base.strip_prefix("http://") {
            format!("ws://{rest}")
        } else {
            base
        };
        Self {
            fetch,
            ws_base,
            disabled: Rc::default(),
            logs_disabled: Rc::default(),
        }
    }

    /// True while watches still try WebSocket first.
    pub fn websockets_enabled(&self) -> bool {
        !self.disabled.get()
    }

    /// True while followed logs still try WebSocket first.
    pub fn log_websockets_enabled(&self) -> bool {
        !self.logs_disabled.get()
    }

    /// The fetch transport used for everything but plain JSON watches.
    pub fn fetch(&self) -> &FetchTransport {
        &self.fetch
    }

    fn wants_socket(&self, request: &Request) -> Option<Framing> {
        if request.method() != http::Method::GET {
            return None;
        }
        let has = |param: &str| {
            request
                .uri()
                .query()
                .is_some_and(|q| q.split('&').any(|p| p == param))
        };
        let plain_json = request
            .headers()
            .get(http::header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_none_or(|a| a.trim() == "application/json" || a.trim() == "*/*");
        if (has("watch=true") || has("watch=1")) && plain_json {
            return (!self.disabled.get()).then_some(Framing::EventPerMessage);
        }
        // A pod's followed log (`…/pods/<name>/log?follow=true`).
        let is_log =
            request.uri().path().ends_with("/log") && request.uri().path().contains("/pods/");
        (is_log
            && has("follow=true")
            && request.headers().get(http::header::ACCEPT).is_none()
            && !self.logs_disabled.get())
        .then_some(Framing::Bytes)
    }

    async fn open(&self, request: &Request, framing: Framing) -> Result<ByteStream, ()> {
        let url = format!("{}{}", self.ws_base, request.uri());
        let socket = match framing {
            Framing::EventPerMessage => WebSocket::new(&url),
            // The apiserver answers a log socket with a subprotocol header
            // even when none was asked for, which browsers refuse; asking
            // for `binary.k8s.io` gets the raw bytes.
            Framing::Bytes => WebSocket::new_with_str(&url, "binary.k8s.io"),
        }
        .map_err(|_| ())?;
        socket.set_binary_type(BinaryType::Arraybuffer);
        let (tx, rx) = mpsc::unbounded::<Result<Vec<u8>, TransportError>>();
        let (open_tx, open_rx) = oneshot::channel::<bool>();
        let open_tx = Rc::new(Cell::new(Some(open_tx)));

        let msg_tx = tx.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            let mut bytes = if let Some(text) = data.as_string() {
                text.into_bytes()
            } else if let Some(buf) = data.dyn_ref::<ArrayBuffer>() {
                Uint8Array::new(buf).to_vec()
            } else {
                return;
            };
            match framing {
                // One message is one event; the line decoder wants a newline.
                Framing::EventPerMessage => bytes.push(b'\n'),
                // The server's first message is an empty one (a ping).
                Framing::Bytes if bytes.is_empty() => return,
                Framing::Bytes => {}
            }
            let _ = msg_tx.unbounded_send(Ok(bytes));
        });
        let close_tx = tx.clone();
        let close_open = open_tx.clone();
        let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |e: CloseEvent| {
            if let Some(o) = close_open.take() {
                let _ = o.send(false);
            }
            if e.code() != 1000 && e.code() != 1005 {
                let _ = close_tx.unbounded_send(Err(TransportError::Read(format!(
                    "websocket closed with code {}",
                    e.code()
                ))));
            }
            close_tx.close_channel();
        });
        let err_open = open_tx.clone();
        let on_error = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            if let Some(o) = err_open.take() {
                let _ = o.send(false);
            }
        });
        let ok_open = open_tx;
        let on_open = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            if let Some(o) = ok_open.take() {
                let _ = o.send(true);
            }
        });
        socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        socket.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        let counts = self.fetch.counts();
        counts.websockets.set(counts.websockets.get() + 1);
        counts.total.set(counts.total.get() + 1);
        let guard = SocketGuard {
            socket,
            counts,
            _on_message: on_message,
            _on_close: on_close,
            _on_error: on_error,
            _on_open: on_open,
        };
        if open_rx.await != Ok(true) {
            return Err(());
        }
        let stream = rx.map(move |chunk| {
            let _keep = &guard;
            chunk
        });
        Ok(stream.boxed_local())
    }
}

impl Transport for WebSocketTransport {
    fn send(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<Vec<u8>>, TransportError>> {
        self.fetch.send(request)
    }

    fn stream(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<ByteStream>, TransportError>> {
        async move {
            let mut socket_failed = None;
            if let Some(framing) = self.wants_socket(&request) {
                match self.open(&request, framing).await {
                    Ok(body) => {
                        return http::Response::builder()
                            .status(200)
                            .body(body)
                            .map_err(|e| TransportError::Read(e.to_string()));
                    }
                    // Ask again with fetch: it reports why (or works where sockets do not).
                    Err(()) => socket_failed = Some(framing),
                }
            }
            let answer = self.fetch.stream(request).await;
            if answer.as_ref().is_ok_and(|r| r.status().is_success()) {
                // The server accepts the request but not over WebSocket: stop trying.
                match socket_failed {
                    Some(Framing::EventPerMessage) => self.disabled.set(true),
                    Some(Framing::Bytes) => self.logs_disabled.set(true),
                    None => {}
                }
            }
            answer
        }
        .boxed_local()
    }
}
