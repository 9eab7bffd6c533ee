//! What the fake API server answers: a body, a stream the test feeds, or a failure.

use futures::channel::mpsc;

use kubeglass_client::transport::TransportError;

/// The scripted answer to one request.
pub enum Reply {
    /// A complete response.
    Body {
        /// HTTP status code.
        status: u16,
        /// Extra headers.
        headers: Vec<(&'static str, String)>,
        /// The body.
        body: Vec<u8>,
    },
    /// A streamed response whose chunks the test pushes through a [`StreamHandle`].
    Stream {
        /// HTTP status code.
        status: u16,
        /// Where the chunks come from.
        chunks: mpsc::UnboundedReceiver<Result<Vec<u8>, TransportError>>,
    },
    /// A failure below HTTP.
    Fail(TransportError),
}

impl Reply {
    /// A 2xx/4xx/5xx answer with a JSON body.
    pub fn json(status: u16, body: serde_json::Value) -> Self {
        Reply::Body {
            status,
            headers: Vec::new(),
            body: body.to_string().into_bytes(),
        }
    }

    /// An API `Status` error answer.
    pub fn status(code: u16, reason: &str, message: &str) -> Self {
        Self::json(
            code,
            serde_json::json!({
                "kind": "Status", "apiVersion": "v1", "status": "Failure",
                "message": message, "reason": reason, "code": code
            }),
        )
    }

    /// A streamed 200 answer and the handle that feeds it.
    pub fn stream() -> (Self, StreamHandle) {
        let (tx, rx) = mpsc::unbounded();
        (
            Reply::Stream {
                status: 200,
                chunks: rx,
            },
            StreamHandle { tx },
        )
    }
}

/// Feeds a scripted streamed response.
#[derive(Clone)]
pub struct StreamHandle {
    tx: mpsc::UnboundedSender<Result<Vec<u8>, TransportError>>,
}

impl StreamHandle {
    /// Sends raw bytes.
    pub fn chunk(&self, bytes: impl Into<Vec<u8>>) {
        let _ = self.tx.unbounded_send(Ok(bytes.into()));
    }

    /// Sends one watch event as a line.
    pub fn event(&self, kind: &str, object: serde_json::Value) {
        let line = serde_json::json!({"type": kind, "object": object}).to_string() + "\n";
        self.chunk(line);
    }

    /// Breaks the connection with `error`.
    pub fn fail(&self, error: TransportError) {
        let _ = self.tx.unbounded_send(Err(error));
    }

    /// Ends the response normally.
    pub fn close(&self) {
        self.tx.close_channel();
    }

    /// True once the client dropped the response (cancelled the request).
    pub fn is_cancelled(&self) -> bool {
        self.tx.is_closed()
    }
}

/// An `http::Response` with `status`, `headers` and `body`.
pub(super) fn into_response<B>(
    status: u16,
    headers: &[(&'static str, String)],
    body: B,
) -> http::Response<B> {
    let mut r = http::Response::new(body);
    *r.status_mut() =
        http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    for (k, v) in headers {
        if let Ok(v) = http::HeaderValue::from_str(v) {
            r.headers_mut().insert(*k, v);
        }
    }
    r
}
