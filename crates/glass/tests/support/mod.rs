//! What the door's tests share: the real `serve::serve` on 127.0.0.1 in
//! front of a fake kubectl proxy (hyper on a Unix socket, answering with
//! the headers kube-apiserver and a hostile one could send, and recording
//! every request that reached it), and a client that asks it. A fake: the
//! real kubectl and apiserver are in e2e/tests/launcher.test.mjs.
#![allow(dead_code)] // each test file uses its own share.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::HeaderMap;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use kubectl_glass::gate::Mode;
use kubectl_glass::serve::{self, Door};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UnixListener};

pub const TOKEN: &str = "0123456789abcdef0123456789abcdef";
/// The run's host name, as the launcher makes one (random there).
pub const NAME: &str = "fedcba9876543210fedcba9876543210.localhost";
pub const SECRET: &str = r#"{"kind":"Secret","data":{"password":"czNjcjN0"}}"#;

/// One request as kubectl received it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub uri: String,
    pub headers: HeaderMap,
}

/// A fake `kubectl proxy` on a Unix socket in a folder of its own.
pub struct FakeKubectl {
    pub seen: Arc<Mutex<Vec<Seen>>>,
    pub socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl FakeKubectl {
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("lock").clone()
    }
}

/// What the fake answers: a WebSocket that says "hello" for an upgrade,
/// else a Secret with every header an API server (or a hostile one behind
/// an aggregated API) might add.
pub async fn fake_answer(mut req: Request<Incoming>) -> Response<Full<Bytes>> {
    if req.headers().contains_key("upgrade") {
        let upgraded = hyper::upgrade::on(&mut req);
        tokio::spawn(async move {
            if let Ok(u) = upgraded.await {
                let mut io = TokioIo::new(u);
                let _ = io.write_all(b"hello").await;
                let _ = io.shutdown().await;
            }
        });
        return Response::builder()
            .status(StatusCode::SWITCHING_PROTOCOLS)
            .header("connection", "Upgrade")
            .header("upgrade", "websocket")
            .header("sec-websocket-accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
            .header("set-cookie", "session=planted")
            .body(Full::new(Bytes::new()))
            .expect("response");
    }
    Response::builder()
        .header("cache-control", "no-cache, private")
        .header("content-type", "application/json")
        .header("audit-id", "8f5c1c1e-1111-2222-3333-444455556666")
        .header("x-kubernetes-pf-flowschema-uid", "fs-uid")
        .header("x-kubernetes-pf-prioritylevel-uid", "pl-uid")
        .header("warning", "299 - \"v1 ComponentStatus is deprecated\"")
        .header("retry-after", "1")
        .header("date", "Wed, 21 Oct 2026 07:28:00 GMT")
        .header("set-cookie", "session=planted; Path=/")
        .header("clear-site-data", "\"*\"")
        .header("refresh", "0;url=https://evil.example/")
        .header(
            "link",
            "<https://evil.example/x.js>; rel=preload; as=script",
        )
        .header("access-control-allow-origin", "*")
        .header("content-security-policy", "default-src *")
        .header("x-something-new", "y")
        .body(Full::new(Bytes::from_static(SECRET.as_bytes())))
        .expect("response")
}

pub async fn fake_kubectl() -> FakeKubectl {
    let dir = tempfile::tempdir().expect("tempdir");
    let socket = dir.path().join("proxy.sock");
    let listener = UnixListener::bind(&socket).expect("bind the socket");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let record = record.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req: Request<Incoming>| {
                    record.lock().expect("lock").push(Seen {
                        uri: req.uri().to_string(),
                        headers: req.headers().clone(),
                    });
                    async move { Ok::<_, std::convert::Infallible>(fake_answer(req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .with_upgrades()
                    .await;
            });
        }
    });
    FakeKubectl {
        seen,
        socket,
        _dir: dir,
    }
}

/// The door in front of `kubectl`, on a free port; returns the port.
pub async fn door(kubectl: &FakeKubectl, mode: Mode) -> u16 {
    door_with(kubectl, mode, &[]).await
}

/// [`door`] in a launcher that serves these contexts' apps too (the
/// header's menu), in this order.
pub async fn door_with(kubectl: &FakeKubectl, mode: Mode, contexts: &[&str]) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let door = Arc::new(Door {
        token: TOKEN.into(),
        host: format!("{NAME}:{port}"),
        port,
        mode,
        upstream: kubectl_glass::upstream::Upstream::at(kubectl.socket.clone()),
        contexts: contexts.iter().map(|c| c.to_string()).collect(),
        session: "{}".into(),
        csp: "default-src 'self'".into(),
        open_file: Mutex::new(None),
        haunted: Default::default(),
        store: kubectl_glass::store::Store::in_memory(),
        saved: kubectl_glass::saved::Saved::in_memory(),
        forwards: kubectl_glass::forward::Forwards::new("kubectl".into(), None, "test".into()),
    });
    tokio::spawn(serve::serve(listener, door));
    port
}

/// What came back: the status, the headers, and the body (for a `101`,
/// what the upgraded connection carried until it closed).
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

/// Sends `method path` with `headers` (plus our `Host`, unless `headers`
/// names one) to the door.
pub async fn ask(port: u16, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    ask_with_body(port, method, path, headers, "").await
}

/// [`ask`] with a body.
pub async fn ask_with_body(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(async move {
        let _ = conn.with_upgrades().await;
    });
    let mut req = Request::builder().method(method).uri(path);
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req = req.header("host", format!("{NAME}:{port}"));
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("request");
    let mut resp = sender.send_request(req).await.expect("an answer");
    let (status, headers) = (resp.status(), resp.headers().clone());
    let body = if status == StatusCode::SWITCHING_PROTOCOLS {
        let mut io = TokioIo::new(hyper::upgrade::on(&mut resp).await.expect("upgraded"));
        let mut text = String::new();
        let _ = io.read_to_string(&mut text).await;
        text
    } else {
        let bytes = resp.into_body().collect().await.expect("body").to_bytes();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Answer {
        status,
        headers,
        body,
    }
}

pub fn api(path: &str) -> String {
    format!("/{TOKEN}{path}")
}

pub fn values(h: &HeaderMap, name: &str) -> Vec<String> {
    h.get_all(name)
        .iter()
        .map(|v| v.to_str().unwrap_or("?").to_string())
        .collect()
}

pub const WEBSOCKET: &[(&str, &str)] = &[
    ("connection", "Upgrade"),
    ("upgrade", "websocket"),
    ("sec-websocket-version", "13"),
    ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
];
