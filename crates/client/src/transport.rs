//! The transport boundary: the core builds `http::Request`s, a transport sends them.
//!
//! Two capabilities: [`Transport::send`] for a whole response (lists, gets,
//! writes) and [`Transport::stream`] for a body that arrives in chunks
//! (watches, logs). Dropping a stream must cancel the request (abort the
//! fetch, close the socket). Everything is single-threaded (`!Send`) because
//! the browser is.

use std::rc::Rc;
use std::time::Duration;

use futures::future::LocalBoxFuture;
use futures::stream::LocalBoxStream;

/// A request as the core builds it.
pub type Request = http::Request<Vec<u8>>;

/// A response body that arrives in chunks; chunks may split anywhere.
pub type ByteStream = LocalBoxStream<'static, Result<Vec<u8>, TransportError>>;

/// Failures below the HTTP layer. All are retryable: the API never saw or
/// never answered the request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The connection could not be made (e.g. `kubectl proxy` is not running).
    #[error("cannot reach the API server: {0}")]
    Connect(String),
    /// The client gave up waiting for a response.
    #[error("no response within {0:?}")]
    Timeout(Duration),
    /// The connection broke while the body was being read.
    #[error("connection lost while reading the response: {0}")]
    Read(String),
    /// The request was cancelled by its owner.
    #[error("request cancelled")]
    Aborted,
    /// The answer began and then stopped: nothing more arrived for this
    /// long (a proxy or a server that stalled mid-body).
    #[error("the answer stalled: nothing arrived for {0:?}")]
    Stalled(Duration),
}

/// Sends requests built by the core.
pub trait Transport {
    /// Sends `request` and reads the whole body, whatever the status code.
    fn send(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<Vec<u8>>, TransportError>>;

    /// Sends `request` and returns as soon as the headers arrive; the body
    /// follows as a stream. Dropping the stream cancels the request.
    fn stream(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<ByteStream>, TransportError>>;
}

impl<T: Transport + ?Sized> Transport for Rc<T> {
    fn send(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<Vec<u8>>, TransportError>> {
        (**self).send(request)
    }

    fn stream(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<ByteStream>, TransportError>> {
        (**self).stream(request)
    }
}

/// What a [`Duplex`] connection reports, in order: `Open` once (unless it
/// never opened), any number of `Message`s, then `Closed` once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DuplexEvent {
    /// The connection is open, speaking the subprotocol the server chose
    /// (empty when it chose none).
    Open {
        /// The chosen subprotocol.
        protocol: String,
    },
    /// One whole message.
    Message(Vec<u8>),
    /// The connection closed; `opened` is false when it never opened (a
    /// refused handshake says nothing more to a browser).
    Closed {
        /// The close code (1006 when the connection was lost).
        code: u16,
        /// The close reason, if any.
        reason: String,
        /// Whether `Open` came first.
        opened: bool,
    },
}

/// Sends messages on an open [`Duplex`] connection.
pub trait DuplexSender {
    /// Sends one binary message; false when the connection is not open.
    fn send(&self, message: &[u8]) -> bool;
    /// Closes the connection (normal closure).
    fn close(&self);
}

/// Message-oriented connections both ways (a WebSocket): what a shell in a
/// container speaks (`remotecommand`). Dropping the event stream closes the
/// connection.
pub trait Duplex {
    /// Opens `path` (an API path with its query, under the transport's
    /// base), offering `protocols` in order of preference.
    fn open(
        &self,
        path: &str,
        protocols: &[&str],
    ) -> (Rc<dyn DuplexSender>, LocalBoxStream<'static, DuplexEvent>);
}
