//! The front door's forward path in one process: the real `serve::serve`
//! on 127.0.0.1 in front of a fake kubectl proxy (hyper on a Unix socket,
//! answering with the headers kube-apiserver and a hostile one could send,
//! and recording every request that reached it). A fake: the real kubectl
//! and apiserver are in e2e/tests/launcher.test.mjs.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::HeaderMap;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use kubectl_glass::serve::{self, Door};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UnixListener};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";
/// The run's host name, as the launcher makes one (random there).
const NAME: &str = "fedcba9876543210fedcba9876543210.localhost";
const SECRET: &str = r#"{"kind":"Secret","data":{"password":"czNjcjN0"}}"#;

/// One request as kubectl received it.
#[derive(Debug, Clone)]
struct Seen {
    uri: String,
    headers: HeaderMap,
}

/// A fake `kubectl proxy` on a Unix socket in a folder of its own.
struct FakeKubectl {
    seen: Arc<Mutex<Vec<Seen>>>,
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl FakeKubectl {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("lock").clone()
    }
}

/// What the fake answers: a WebSocket that says "hello" for an upgrade,
/// else a Secret with every header an API server (or a hostile one behind
/// an aggregated API) might add.
async fn fake_answer(mut req: Request<Incoming>) -> Response<Full<Bytes>> {
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

async fn fake_kubectl() -> FakeKubectl {
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
async fn door(kubectl: &FakeKubectl, read_only: bool) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let door = Arc::new(Door {
        token: TOKEN.into(),
        host: format!("{NAME}:{port}"),
        port,
        read_only,
        socket: kubectl.socket.clone(),
        session: "{}".into(),
        csp: "default-src 'self'".into(),
        open_file: Mutex::new(None),
        haunted: Default::default(),
        store: kubectl_glass::store::Store::in_memory(),
    });
    tokio::spawn(serve::serve(listener, door));
    port
}

/// What came back: the status, the headers, and the body (for a `101`,
/// what the upgraded connection carried until it closed).
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

/// Sends `method path` with `headers` (plus our `Host`, unless `headers`
/// names one) to the door.
async fn ask(port: u16, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    ask_with_body(port, method, path, headers, "").await
}

/// [`ask`] with a body.
async fn ask_with_body(
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

fn api(path: &str) -> String {
    format!("/{TOKEN}{path}")
}

fn values(h: &HeaderMap, name: &str) -> Vec<String> {
    h.get_all(name)
        .iter()
        .map(|v| v.to_str().unwrap_or("?").to_string())
        .collect()
}

const WEBSOCKET: &[(&str, &str)] = &[
    ("connection", "Upgrade"),
    ("upgrade", "websocket"),
    ("sec-websocket-version", "13"),
    ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
];

#[tokio::test]
async fn an_answer_from_the_cluster_is_never_stored_whatever_the_api_server_said() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, false).await;
    let a = ask(port, "GET", &api("/api/v1/namespaces/demo/secrets/db"), &[]).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.body, SECRET, "the body passes as it came");
    assert_eq!(
        values(&a.headers, "cache-control"),
        ["no-store"],
        "kube-apiserver's `no-cache, private` lets the browser keep it on disk"
    );
}

#[tokio::test]
async fn an_answer_from_the_cluster_cannot_become_a_page_or_act_on_the_origin() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, false).await;
    let a = ask(port, "GET", &api("/api/v1/namespaces/demo/secrets/db"), &[]).await;
    assert_eq!(
        values(&a.headers, "content-security-policy"),
        ["sandbox; default-src 'none'"]
    );
    for gone in [
        "set-cookie",
        "clear-site-data",
        "refresh",
        "link",
        "access-control-allow-origin",
        "x-something-new",
    ] {
        assert_eq!(values(&a.headers, gone), Vec::<String>::new(), "{gone}");
    }
    for (kept, v) in [
        ("content-type", "application/json"),
        ("audit-id", "8f5c1c1e-1111-2222-3333-444455556666"),
        ("x-kubernetes-pf-flowschema-uid", "fs-uid"),
        ("x-kubernetes-pf-prioritylevel-uid", "pl-uid"),
        ("warning", "299 - \"v1 ComponentStatus is deprecated\""),
        ("retry-after", "1"),
        ("date", "Wed, 21 Oct 2026 07:28:00 GMT"),
    ] {
        assert_eq!(values(&a.headers, kept), [v], "{kept}");
    }
    // The door's own answers are no pages either.
    let refused = ask(port, "GET", "/api/v1/namespaces", &[]).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
    assert_eq!(
        values(&refused.headers, "content-security-policy"),
        ["sandbox; default-src 'none'"]
    );
    // A 101 carries what a handshake needs and nothing else.
    let socket = ask(port, "GET", &api("/api/v1/pods?watch=true"), WEBSOCKET).await;
    assert_eq!(socket.status, StatusCode::SWITCHING_PROTOCOLS);
    assert_eq!(values(&socket.headers, "set-cookie"), Vec::<String>::new());
    assert_eq!(values(&socket.headers, "upgrade"), ["websocket"]);
}

#[tokio::test]
async fn earlier_origins_are_refused_so_a_browser_only_ever_uses_the_runs_name() {
    // 127.0.0.1:port and localhost:port are origins other pages may have
    // used (and planted a Service Worker on) before this run.
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, false).await;
    let path = api("/api/v1/namespaces/demo/secrets/db");
    for earlier in ["localhost", "[::1]"] {
        let host = format!("{earlier}:{port}");
        let a = ask(port, "GET", &path, &[("host", &host)]).await;
        assert_eq!(a.status, StatusCode::MISDIRECTED_REQUEST, "{}", a.body);
        assert!(
            a.body.contains("only to the address kubectl glass printed"),
            "{}",
            a.body
        );
    }
    let address = format!("127.0.0.1:{port}");
    for browser in [
        ("sec-fetch-dest", "document"),
        ("sec-fetch-site", "none"),
        ("origin", "null"),
    ] {
        let a = ask(port, "GET", &path, &[("host", &address), browser]).await;
        assert_eq!(
            a.status,
            StatusCode::MISDIRECTED_REQUEST,
            "{browser:?}: {}",
            a.body
        );
        assert!(
            a.body.contains("open the URL kubectl glass printed"),
            "{}",
            a.body
        );
    }
    for earlier in ["127.0.0.1", "localhost"] {
        let origin = format!("http://{earlier}:{port}");
        let b = ask(port, "GET", &path, &[("origin", &origin)]).await;
        assert_eq!(b.status, StatusCode::FORBIDDEN, "{}", b.body);
    }
    assert!(kubectl.seen().is_empty(), "{:?}", kubectl.seen());
    let ours = ask(port, "GET", &path, &[]).await;
    assert_eq!(ours.status, StatusCode::OK);
    // A program (no Origin, no Sec-Fetch-Site or -Dest; Node's fetch sends
    // Sec-Fetch-Mode) may use the address.
    let program = ask(
        port,
        "GET",
        &path,
        &[("host", &address), ("sec-fetch-mode", "cors")],
    )
    .await;
    assert_eq!(program.status, StatusCode::OK, "{}", program.body);
}

#[tokio::test]
async fn the_store_is_read_whole_and_written_a_key_at_a_time_never_reaching_kubectl() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, true).await;
    let store = |rest: &str| format!("/{TOKEN}/glass/storage{rest}");
    let origin = format!("http://{NAME}:{port}");
    let page = [
        ("origin", origin.as_str()),
        ("sec-fetch-site", "same-origin"),
    ];
    assert_eq!(ask(port, "GET", &store(""), &page).await.body, "{}");
    let put = ask_with_body(port, "PUT", &store("/kubeglass.theme"), &page, "dark").await;
    assert_eq!(put.status, StatusCode::NO_CONTENT, "{}", put.body);
    let whole = ask(port, "GET", &store(""), &page).await;
    assert_eq!(whole.status, StatusCode::OK);
    assert_eq!(whole.body, r#"{"kubeglass.theme":"dark"}"#);
    assert_eq!(values(&whole.headers, "cache-control"), ["no-store"]);
    // Another origin can neither read nor write it, even with the token.
    let evil = [
        ("origin", "http://127.0.0.1:8080"),
        ("sec-fetch-site", "cross-site"),
    ];
    assert_eq!(
        ask(port, "GET", &store(""), &evil).await.status,
        StatusCode::FORBIDDEN
    );
    let put = ask_with_body(port, "PUT", &store("/kubeglass.theme"), &evil, "light").await;
    assert_eq!(put.status, StatusCode::FORBIDDEN);
    // Without the token it is not there at all.
    let bare = ask(port, "GET", "/glass/storage", &page).await;
    assert_eq!(bare.status, StatusCode::NOT_FOUND);
    let gone = ask(port, "DELETE", &store("/kubeglass.theme"), &page).await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT);
    assert_eq!(ask(port, "GET", &store(""), &page).await.body, "{}");
    let bad = ask_with_body(port, "PUT", &store("/a%2Fb"), &page, "x").await;
    assert_eq!(bad.status, StatusCode::FORBIDDEN, "{}", bad.body);
    assert!(kubectl.seen().is_empty(), "{:?}", kubectl.seen());
}

#[tokio::test]
async fn only_allowlisted_request_headers_reach_kubectl() {
    let kubectl = fake_kubectl().await;
    let port = door(&kubectl, false).await;
    let sent = [
        (
            "accept",
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
        ),
        ("accept-encoding", "gzip"),
        ("user-agent", "Chromium"),
        ("origin", &*format!("http://{NAME}:{port}")),
        ("cookie", "a=b"),
        ("authorization", "Bearer someone-else"),
        ("proxy-authorization", "Basic eDp5"),
        ("impersonate-user", "system:admin"),
        ("impersonate-group", "system:masters"),
        ("impersonate-uid", "0"),
        ("impersonate-extra-scopes", "all"),
        ("x-remote-user", "admin"),
        ("x-forwarded-for", "10.0.0.1"),
        ("sec-fetch-site", "same-origin"),
        ("audit-id", "chosen-by-the-page"),
    ];
    let a = ask(port, "GET", &api("/api/v1/namespaces/demo/pods"), &sent).await;
    assert_eq!(a.status, StatusCode::OK);
    let seen = kubectl.seen();
    assert_eq!(seen.len(), 1);
    let mut names: Vec<&str> = seen[0].headers.keys().map(|k| k.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["accept", "accept-encoding", "host", "origin", "user-agent"],
        "{:?}",
        seen[0].headers
    );
    assert_eq!(values(&seen[0].headers, "host"), ["localhost"]);
    assert_eq!(
        seen[0].uri, "/api/v1/namespaces/demo/pods",
        "the token stays here"
    );
}

#[tokio::test]
async fn upgrades_pass_only_for_watches_and_followed_logs_in_every_mode() {
    for read_only in [false, true] {
        let kubectl = fake_kubectl().await;
        let port = door(&kubectl, read_only).await;
        for ok in [
            "/api/v1/namespaces/demo/configmaps?watch=true&resourceVersion=0",
            "/api/v1/pods?watch=1",
            "/api/v1/namespaces/demo/pods/web-1/log?follow=true",
        ] {
            let a = ask(port, "GET", &api(ok), WEBSOCKET).await;
            assert_eq!(
                a.status,
                StatusCode::SWITCHING_PROTOCOLS,
                "{ok}: {}",
                a.body
            );
            assert_eq!(a.body, "hello", "{ok}: the two connections are joined");
        }
        let passed = kubectl.seen().len();
        assert_eq!(passed, 3, "read_only={read_only}");
        for refused in [
            "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/console",
            "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/vnc",
            "/api/v1/namespaces/demo/pods/web-1/log",
            "/api/v1/namespaces/demo/pods/web-1/log?follow=false",
            "/api/v1/namespaces/demo/pods",
            "/api/v1/namespaces/demo/pods?watch=false",
            "/api/v1/namespaces/demo/pods/web-1?watch=true",
            "/api/v1/watch/namespaces/demo/pods",
            "/api/v1/namespaces/demo/pods/web-1/exec?command=sh",
            "/api/v1/namespaces/demo/pods/web-1/attach",
            "/api/v1/namespaces/demo/pods/web-1/portforward?ports=80",
            "/api/v1/namespaces/demo/services/web:80/proxy/",
            "/api/v1/nodes/n/proxy/",
        ] {
            let a = ask(port, "GET", &api(refused), WEBSOCKET).await;
            assert_eq!(
                a.status,
                StatusCode::FORBIDDEN,
                "{refused} read_only={read_only}: {}",
                a.body
            );
        }
        let console = ask(
            port,
            "GET",
            &api(
                "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/console",
            ),
            WEBSOCKET,
        )
        .await;
        if !read_only {
            assert!(
                console.body.contains("upgrade refused")
                    && console.body.contains("only watches (watch=true on a list)"),
                "a clear body: {}",
                console.body
            );
        }
        let spdy = [("connection", "Upgrade"), ("upgrade", "SPDY/3.1")];
        let a = ask(port, "GET", &api("/api/v1/pods?watch=true"), &spdy).await;
        assert_eq!(a.status, StatusCode::FORBIDDEN, "SPDY: {}", a.body);
        let uris: Vec<String> = kubectl.seen().iter().map(|s| s.uri.clone()).collect();
        assert_eq!(
            uris.len(),
            passed,
            "read_only={read_only}: refused upgrades reached kubectl: {uris:?}"
        );
    }
}
