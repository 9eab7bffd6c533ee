//! client-go's retry rules for one request: which outcomes are sent again, after how long.

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
pub(super) fn copy_request(r: &Request) -> Request {
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
