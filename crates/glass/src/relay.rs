//! Passing a request to kubectl proxy's socket: the answer streams back
//! as it arrives, an upgrade joins the two connections, and the request
//! holds its context's proxy (`upstream::Hold`) until it has ended.

use std::path::Path;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;

use crate::headers;
use crate::serve::Body;
use crate::upstream::Hold;

/// Why a request could not be passed to kubectl.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    /// The socket did not take the connection.
    #[error("{0}")]
    Connect(#[from] std::io::Error),
    /// HTTP between us and kubectl failed.
    #[error("{0}")]
    Http(#[from] hyper::Error),
    /// The path did not make a request line.
    #[error("{0}")]
    Uri(#[from] hyper::http::uri::InvalidUri),
}

/// Passes `req` to kubectl on `socket` as `rest` (path and query after the
/// token), with `Host: localhost` (kubectl's accepted hosts) and only the
/// headers `headers::to_kubectl` lets through; the gate has allowed any
/// upgrade it asks for. The answer's body streams back as it arrives, with
/// only the headers `headers::to_browser` lets through; a `101 Switching
/// Protocols` joins the two upgraded connections. `hold` is kept until
/// the answer's body has been dropped, or the upgraded connection closed.
pub async fn forward(
    socket: &Path,
    mut req: Request<Incoming>,
    rest: &str,
    hold: Hold,
) -> Result<Response<Body>, ForwardError> {
    let stream = UnixStream::connect(socket).await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = conn.with_upgrades().await;
    });
    let upgrading = req.headers().contains_key(header::UPGRADE);
    let from_browser = upgrading.then(|| hyper::upgrade::on(&mut req));
    let (mut parts, body) = req.into_parts();
    parts.uri = rest.parse()?;
    parts.headers = headers::to_kubectl(&parts.headers, upgrading);
    parts
        .headers
        .insert(header::HOST, HeaderValue::from_static("localhost"));
    let mut resp = sender
        .send_request(Request::from_parts(parts, body))
        .await?;
    let switching = resp.status() == StatusCode::SWITCHING_PROTOCOLS && upgrading;
    if switching && let Some(from_browser) = from_browser {
        let from_kubectl = hyper::upgrade::on(&mut resp);
        tokio::spawn(async move {
            if let (Ok(a), Ok(b)) = (from_browser.await, from_kubectl.await) {
                let _ =
                    tokio::io::copy_bidirectional(&mut TokioIo::new(a), &mut TokioIo::new(b)).await;
            }
            drop(hold);
        });
        let (mut parts, body) = resp.into_parts();
        parts.headers = headers::to_browser(&parts.headers, switching);
        return Ok(Response::from_parts(parts, body.boxed()));
    }
    let (mut parts, body) = resp.into_parts();
    parts.headers = headers::to_browser(&parts.headers, switching);
    // The body owns the hold: a stream keeps the proxy until it ends.
    let body = body.map_frame(move |f| {
        let _ = &hold;
        f
    });
    Ok(Response::from_parts(parts, body.boxed()))
}

/// `GET /version` through kubectl's socket: the status, once kubectl
/// answers at all (any status is the cluster's answer).
pub async fn version_status(socket: &Path) -> Result<u16, ForwardError> {
    let stream = UnixStream::connect(socket).await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let req = Request::get("/version")
        .header(header::HOST, "localhost")
        .body(Empty::<Bytes>::new())
        .map_err(|e| ForwardError::Connect(std::io::Error::other(e)))?;
    let resp = sender.send_request(req).await?;
    Ok(resp.status().as_u16())
}
