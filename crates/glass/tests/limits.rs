//! The front door cannot be starved: the real `serve::serve_with` on
//! 127.0.0.1 with real sockets, and limits small enough to reach in a test.
//! A connection that never finishes its request head is closed; beyond the
//! cap, a connection waits until another closes, and the ones already
//! served go on. (An accept that fails is in accept_errors.rs: it needs a
//! process of its own.) No kubectl is needed: the token alone is answered
//! by the door itself with a redirect to the app.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kubectl_glass::serve::{self, Door, Limits};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// A door with `limits` on a free port; returns the port.
async fn door(limits: Limits) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let door = Arc::new(Door {
        token: TOKEN.into(),
        host: format!("127.0.0.1:{port}"),
        port,
        mode: kubectl_glass::gate::Mode::new(false, true),
        upstream: kubectl_glass::upstream::Upstream::at(PathBuf::from("/nonexistent/proxy.sock")),
        contexts: Default::default(),
        session: "{}".into(),
        csp: "default-src 'self'".into(),
        open_file: Mutex::new(None),
        haunted: Default::default(),
        store: kubectl_glass::store::Store::in_memory(),
        saved: kubectl_glass::saved::Saved::in_memory(),
        forwards: kubectl_glass::forward::Forwards::new("kubectl".into(), None, "test".into()),
    });
    tokio::spawn(serve::serve_with(vec![listener], door, limits));
    port
}

/// Sends `GET /<token>` on `stream` and returns the status line of the
/// answer (the door answers it itself: a redirect to `/ui/`).
async fn ask(stream: &mut TcpStream, port: u16) -> String {
    let req = format!("GET /{TOKEN} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    stream.write_all(req.as_bytes()).await.expect("write");
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await.expect("read");
        assert!(n > 0, "closed before an answer: {got:?}");
        got.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    text.lines().next().unwrap_or_default().to_string()
}

async fn connect(port: u16) -> TcpStream {
    TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect")
}

/// True when the peer closes `stream` within `limit` (whatever it sent first).
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let mut sink = Vec::new();
    timeout(limit, stream.read_to_end(&mut sink)).await.is_ok()
}

#[tokio::test]
async fn a_connection_that_never_finishes_its_head_is_closed_while_others_are_served() {
    let port = door(Limits {
        header_read_timeout: Duration::from_millis(500),
        ..Limits::default()
    })
    .await;
    // Slowloris: a head begun and never finished, and a connection that
    // says nothing at all.
    let mut slow = connect(port).await;
    slow.write_all(b"GET /x HTTP/1.1\r\nHost: 127.0.0.1")
        .await
        .expect("write");
    let mut silent = connect(port).await;
    let mut normal = connect(port).await;
    assert_eq!(
        ask(&mut normal, port).await,
        "HTTP/1.1 308 Permanent Redirect"
    );
    assert!(
        closed_within(&mut slow, Duration::from_secs(5)).await,
        "a half-sent head kept its connection"
    );
    assert!(
        closed_within(&mut silent, Duration::from_secs(5)).await,
        "a silent connection was kept"
    );
    // The door still serves afterwards.
    let mut again = connect(port).await;
    assert_eq!(
        ask(&mut again, port).await,
        "HTTP/1.1 308 Permanent Redirect"
    );
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_and_are_served_once_others_close() {
    let port = door(Limits {
        max_connections: 4,
        header_read_timeout: Duration::from_secs(60),
        ..Limits::default()
    })
    .await;
    // One connection served and kept alive, three that say nothing: the
    // cap is reached.
    let mut kept = connect(port).await;
    assert_eq!(
        ask(&mut kept, port).await,
        "HTTP/1.1 308 Permanent Redirect"
    );
    let mut idle = Vec::new();
    for _ in 0..3 {
        idle.push(connect(port).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // The fifth waits, unanswered.
    let mut late = connect(port).await;
    let waiting = tokio::spawn(async move { ask(&mut late, port).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !waiting.is_finished(),
        "a connection beyond the cap was served"
    );
    // The one already served goes on being served.
    assert_eq!(
        ask(&mut kept, port).await,
        "HTTP/1.1 308 Permanent Redirect"
    );
    // One closes: the fifth is served.
    drop(idle.pop());
    let status = timeout(Duration::from_secs(5), waiting)
        .await
        .expect("served once a connection closed")
        .expect("the request task");
    assert_eq!(status, "HTTP/1.1 308 Permanent Redirect");
}
