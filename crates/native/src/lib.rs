//! kubeglass-native: kubeglass-client's `Transport` and `Clock` on a native
//! machine, so the same client code runs against the real apiserver in tests
//! and benchmarks (through `kubectl proxy`, plain HTTP).
//!
//! Each request runs on a thread of its own with a blocking HTTP client
//! (ureq) and reports back through a channel, so the futures stay
//! runtime-agnostic. A stream's thread stops when its receiver is dropped,
//! which closes the connection.
#![warn(missing_docs)]

use std::io::Read;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::FutureExt;
use futures::channel::{mpsc, oneshot};
use futures::future::LocalBoxFuture;
use futures::stream::StreamExt;
use kubeglass_client::clock::{Clock, PassiveClock, Timestamp};
use kubeglass_client::transport::{ByteStream, Request, Transport, TransportError};

/// Sends requests to `base` (e.g. `http://127.0.0.1:8001`) with ureq.
#[derive(Debug, Clone)]
pub struct NativeTransport {
    base: String,
    agent: ureq::Agent,
}

impl NativeTransport {
    /// A transport for `base`, giving up on whole-body requests after `timeout`.
    pub fn new(base: impl Into<String>, timeout: Duration) -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .build();
        Self {
            base: base.into().trim_end_matches('/').to_string(),
            agent: config.new_agent(),
        }
    }

    fn streaming_agent(&self) -> ureq::Agent {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(None)
            .timeout_connect(Some(Duration::from_secs(10)))
            .build()
            .new_agent()
    }
}

fn map_err(e: ureq::Error) -> TransportError {
    match e {
        ureq::Error::Timeout(_) => TransportError::Timeout(Duration::ZERO),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            TransportError::Connect(io.to_string())
        }
        ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
            TransportError::Connect(e.to_string())
        }
        other => TransportError::Read(other.to_string()),
    }
}

fn run(
    agent: &ureq::Agent,
    base: &str,
    request: Request,
) -> Result<http::Response<ureq::Body>, TransportError> {
    let (parts, body) = request.into_parts();
    let url = format!("{base}{}", parts.uri);
    let mut builder = http::Request::builder().method(parts.method).uri(url);
    for (k, v) in &parts.headers {
        builder = builder.header(k, v);
    }
    let req = builder
        .body(body)
        .map_err(|e| TransportError::Connect(e.to_string()))?;
    agent.run(req).map_err(map_err)
}

impl Transport for NativeTransport {
    fn send(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<Vec<u8>>, TransportError>> {
        let (tx, rx) = oneshot::channel();
        let agent = self.agent.clone();
        let base = self.base.clone();
        std::thread::spawn(move || {
            let result = run(&agent, &base, request).and_then(|resp| {
                let (parts, mut body) = resp.into_parts();
                let bytes = body
                    .with_config()
                    .limit(256 * 1024 * 1024)
                    .read_to_vec()
                    .map_err(map_err)?;
                Ok(http::Response::from_parts(parts, bytes))
            });
            let _ = tx.send(result);
        });
        async move { rx.await.unwrap_or(Err(TransportError::Aborted)) }.boxed_local()
    }

    fn stream(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<ByteStream>, TransportError>> {
        let (head_tx, head_rx) = oneshot::channel();
        let agent = self.streaming_agent();
        let base = self.base.clone();
        std::thread::spawn(move || {
            let resp = match run(&agent, &base, request) {
                Ok(r) => r,
                Err(e) => {
                    let _ = head_tx.send(Err(e));
                    return;
                }
            };
            let (parts, body) = resp.into_parts();
            let (tx, rx) = mpsc::unbounded::<Result<Vec<u8>, TransportError>>();
            if head_tx
                .send(Ok(http::Response::from_parts(parts, rx)))
                .is_err()
            {
                return;
            }
            let mut reader = body.into_reader();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        if tx.unbounded_send(Ok(buf[..n].to_vec())).is_err() {
                            break; // dropped: stop reading, the connection closes
                        }
                    }
                    Err(e) => {
                        let _ = tx.unbounded_send(Err(TransportError::Read(e.to_string())));
                        break;
                    }
                }
            }
        });
        async move {
            let head = head_rx.await.unwrap_or(Err(TransportError::Aborted))?;
            Ok(head.map(|rx| rx.boxed_local() as ByteStream))
        }
        .boxed_local()
    }
}

/// The machine's clock; `sleep` parks a helper thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl PassiveClock for SystemClock {
    fn now(&self) -> Timestamp {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
    }
}

/// The operating system's randomness, through the standard library's
/// randomly keyed hasher (a fresh key for every call).
impl kubeglass_client::clock::Entropy for SystemClock {
    fn random_u64(&self) -> u64 {
        use std::hash::{BuildHasher, Hasher};
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
    }
}

impl Clock for SystemClock {
    fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()> {
        let (tx, rx) = oneshot::channel::<()>();
        let until = Instant::now() + duration;
        std::thread::spawn(move || {
            std::thread::sleep(until.saturating_duration_since(Instant::now()));
            let _ = tx.send(());
        });
        async move {
            let _ = rx.await;
        }
        .boxed_local()
    }
}
