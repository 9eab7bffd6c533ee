//! client-go's retry rules for one request: which outcomes are sent again, after how long.
//!
//! # The rules, and where they differ from client-go
//!
//! Retries follow client-go's `with_retry.go`: an answer of 429 or 5xx that
//! carries `Retry-After` is sent again after that long, up to 10 times, and a
//! GET whose connection was reset or hit EOF while reading is sent again a
//! second later, up to the same 10 times; writes are not repeated;
//! each attempt is counted by code, and the retries on their own (the X-ray
//! page shows them). Deliberate deviations:
//!
//! - A 5xx is repeated only for GET and HEAD. client-go repeats writes too,
//!   but a 504 may come after the write was applied, and a repeated POST could
//!   create a second object; a 429 is repeated for any verb, since priority
//!   and fairness refused it before it ran.
//! - A GET whose connection breaks *in the middle of the body* is asked again
//!   (a Kubeglass choice). client-go's `IsRetryableError` (connection reset,
//!   probable EOF) fabricates `Retry-After: 1` only when the request itself
//!   fails, before an answer; an error reading the body is returned to the
//!   caller ("unexpected error when reading response body. Please retry").
//!   Kubeglass reads lists as they arrive, over minutes at 150,000 pods, and
//!   a proxy that restarts mid-list would otherwise cost the reflector a
//!   backoff and a whole relist; a GET changes nothing, so asking again is
//!   safe.
//!
//! Retries need the client's clock to wait on; a client without one (as in the
//! scripted tests of other layers) never repeats.

use super::{Error, MAX_RETRIES, secrets};
use crate::transport::{Request, TransportError};

/// The wait before repeating a GET whose connection broke (client-go makes
/// up a `Retry-After: 1` for a connection reset or an unexpected EOF).
pub(super) const RESET_RETRY_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// What to do with one attempt's outcome.
pub(super) enum Attempt {
    /// Use this outcome.
    Done,
    /// Wait, then send the request again.
    Retry(std::time::Duration),
}

/// One attempt's outcome, for [`super::RestClient::with_retries`].
pub(super) struct Tried<T> {
    /// The answer's status code (none when the connection broke).
    pub(super) code: Option<u16>,
    /// The answer's `Retry-After`.
    pub(super) retry_after: Option<std::time::Duration>,
    /// The connection broke, before the answer or in its body.
    pub(super) broken: bool,
    /// What the caller gets if this attempt is the last.
    pub(super) outcome: Result<T, Error>,
}

impl<T> Tried<T> {
    /// No answer: the transport failed.
    pub(super) fn failed(e: TransportError) -> Self {
        Tried {
            code: None,
            retry_after: None,
            broken: matches!(e, TransportError::Read(_)),
            outcome: Err(e.into()),
        }
    }
}

/// client-go's retry rules (`rest/with_retry.go`, `checkWait`), for
/// requests whose body we hold:
/// - a 429 or 5xx answer with `Retry-After` is repeated after that long, up
///   to [`MAX_RETRIES`] times. A 429 is repeated for any verb (priority and
///   fairness refused it before it ran); a 5xx only for GET and HEAD: a
///   write that timed out (504) may have been applied, and repeating a
///   POST could create a second object. (client-go repeats writes too.)
/// - a GET whose connection was reset or ended early (client-go's
///   `IsConnectionReset`/`IsProbableEOF`, our [`TransportError::Read`]) is
///   repeated a second later, up to the same limit; a write is not, as in
///   client-go, since it may have been applied.
pub(super) fn next_attempt(
    method: &http::Method,
    status: Option<u16>,
    retry_after: Option<std::time::Duration>,
    broken: bool,
    retries: u32,
) -> Attempt {
    if retries >= MAX_RETRIES {
        return Attempt::Done;
    }
    let safe = method == http::Method::GET || method == http::Method::HEAD;
    match (status, retry_after) {
        (Some(429), Some(wait)) => Attempt::Retry(wait),
        (Some(code), Some(wait)) if code >= 500 && safe => Attempt::Retry(wait),
        (None, _) if broken && method == http::Method::GET => Attempt::Retry(RESET_RETRY_WAIT),
        _ => Attempt::Done,
    }
}

/// A copy of `r` to send again (an `http::Request` is not `Clone`; the only
/// extension the client sets, the Secret guard's `Reveal`, is carried over).
pub(crate) fn copy_request(r: &Request) -> Request {
    let mut c = http::Request::new(r.body().clone());
    *c.method_mut() = r.method().clone();
    *c.uri_mut() = r.uri().clone();
    *c.version_mut() = r.version();
    *c.headers_mut() = r.headers().clone();
    if let Some(reveal) = r.extensions().get::<secrets::Reveal>() {
        c.extensions_mut().insert(*reveal);
    }
    c
}
