//! The API's `Status` as one typed error, with client-go's predicates.

use std::fmt;
use std::time::Duration;

use kube_core::Status;

/// An error the API server answered with: its `Status`, the HTTP code and any `Retry-After`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The decoded `Status` (synthesised from the code and body when the body was not one).
    pub status: Status,
    /// The HTTP status code of the response (or the `code` of a watch ERROR event).
    pub code: u16,
    /// The server's `Retry-After`, if it sent one.
    pub retry_after: Option<Duration>,
}

impl std::error::Error for ApiError {}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reason = if self.status.reason.is_empty() {
            "Unknown"
        } else {
            &self.status.reason
        };
        if self.status.message.is_empty() {
            write!(f, "{reason} ({})", self.code)
        } else {
            write!(f, "{} ({reason}, {})", self.status.message, self.code)
        }
    }
}

/// Longest piece of a non-Status error body kept in a message.
const MAX_BODY_IN_MESSAGE: usize = 512;

impl ApiError {
    /// Builds the error from a non-2xx response: the body is decoded as a
    /// `Status` when it is one, and kept as (truncated) text otherwise.
    pub fn from_response(code: u16, body: &[u8], retry_after: Option<Duration>) -> Self {
        let status = match serde_json::from_slice::<Status>(body) {
            Ok(s) if s.code != 0 || !s.reason.is_empty() || !s.message.is_empty() => s,
            _ => {
                let text = String::from_utf8_lossy(body);
                let text = text.trim();
                let mut message: String = text.chars().take(MAX_BODY_IN_MESSAGE).collect();
                if message.is_empty() {
                    message = http::StatusCode::from_u16(code)
                        .ok()
                        .and_then(|c| c.canonical_reason())
                        .unwrap_or("unexpected response")
                        .to_string();
                }
                Status::failure(&message, reason_for_code(code)).with_code(code)
            }
        };
        Self::from_status(status, code, retry_after)
    }

    /// Wraps a `Status` (e.g. from a watch ERROR event); `fallback_code` is
    /// used when the status carries none.
    pub fn from_status(status: Status, fallback_code: u16, retry_after: Option<Duration>) -> Self {
        let code = if status.code != 0 {
            status.code
        } else {
            fallback_code
        };
        Self {
            status,
            code,
            retry_after,
        }
    }

    /// The server's reason, e.g. `NotFound`, `Expired`.
    pub fn reason(&self) -> &str {
        &self.status.reason
    }

    /// The server's human-readable message.
    pub fn message(&self) -> &str {
        &self.status.message
    }

    /// 404 NotFound.
    pub fn is_not_found(&self) -> bool {
        self.code == 404 || self.reason() == "NotFound"
    }

    /// Conflict: a stale resourceVersion on update (apimachinery's
    /// `IsConflict`): the reason says Conflict, or the code is 409 and the
    /// reason is not one apimachinery knows. AlreadyExists is also a 409, and
    /// is not a conflict: see [`ApiError::is_already_exists`].
    pub fn is_conflict(&self) -> bool {
        self.reason() == "Conflict" || (self.code == 409 && !KNOWN_REASONS.contains(&self.reason()))
    }

    /// AlreadyExists: a create of a name that is taken (apimachinery's
    /// `IsAlreadyExists`, by reason only).
    pub fn is_already_exists(&self) -> bool {
        self.reason() == "AlreadyExists"
    }

    /// 410 Gone / Expired: the requested resourceVersion is too old.
    pub fn is_gone(&self) -> bool {
        self.code == 410 || matches!(self.reason(), "Expired" | "Gone")
    }

    /// The requested resourceVersion is newer than the server has seen
    /// ("Too large resource version"); a list must fall back to a fresh read.
    pub fn is_too_large_resource_version(&self) -> bool {
        let cause = self.status.details.as_ref().is_some_and(|d| {
            d.causes
                .iter()
                .any(|c| c.reason == "ResourceVersionTooLarge")
        });
        cause
            || (self.code == 504 || self.reason() == "Timeout")
                && self
                    .message()
                    .to_ascii_lowercase()
                    .contains("too large resource version")
    }

    /// 403 Forbidden.
    pub fn is_forbidden(&self) -> bool {
        self.code == 403 || self.reason() == "Forbidden"
    }

    /// 401 Unauthorized.
    pub fn is_unauthorized(&self) -> bool {
        self.code == 401 || self.reason() == "Unauthorized"
    }

    /// 429 TooManyRequests.
    pub fn is_too_many_requests(&self) -> bool {
        self.code == 429 || self.reason() == "TooManyRequests"
    }

    /// 422 Invalid.
    pub fn is_invalid(&self) -> bool {
        self.code == 422 || self.reason() == "Invalid"
    }

    /// 504 / server timeout.
    pub fn is_timeout(&self) -> bool {
        self.code == 504 || matches!(self.reason(), "Timeout" | "ServerTimeout")
    }

    /// 5xx: the server failed; retrying may help.
    pub fn is_server_error(&self) -> bool {
        (500..600).contains(&self.code)
    }
}

/// The `StatusReason`s apimachinery knows (`knownReasons`): a code-only
/// check applies only when the reason is none of these.
const KNOWN_REASONS: &[&str] = &[
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "AlreadyExists",
    "Conflict",
    "Gone",
    "Invalid",
    "ServerTimeout",
    "StoreReadError",
    "Timeout",
    "TooManyRequests",
    "BadRequest",
    "MethodNotAllowed",
    "NotAcceptable",
    "RequestEntityTooLarge",
    "UnsupportedMediaType",
    "InternalError",
    "Expired",
    "ServiceUnavailable",
];

fn reason_for_code(code: u16) -> &'static str {
    match code {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        406 => "NotAcceptable",
        409 => "Conflict",
        410 => "Expired",
        415 => "UnsupportedMediaType",
        422 => "Invalid",
        429 => "TooManyRequests",
        500 => "InternalError",
        503 => "ServiceUnavailable",
        504 => "Timeout",
        _ => "Unknown",
    }
}

/// Parses a `Retry-After` header given in seconds (the form the API server uses).
pub fn parse_retry_after(value: Option<&http::HeaderValue>) -> Option<Duration> {
    let secs: u64 = value?.to_str().ok()?.trim().parse().ok()?;
    Some(Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_a_status_body() {
        let body = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"x\" is forbidden: User \"viewer\" cannot get resource","reason":"Forbidden","details":{"name":"x","kind":"pods"},"code":403}"#;
        let e = ApiError::from_response(403, body, None);
        assert!(e.is_forbidden());
        assert!(!e.is_not_found());
        assert!(e.message().contains("cannot get resource"));
        assert_eq!(e.to_string(), format!("{} (Forbidden, 403)", e.message()));
    }

    #[test]
    fn keeps_a_non_status_body_as_text() {
        let e = ApiError::from_response(502, b"<html>bad gateway</html>", None);
        assert_eq!(e.code, 502);
        assert_eq!(e.message(), "<html>bad gateway</html>");
        assert!(e.is_server_error());
    }

    #[test]
    fn an_empty_body_gets_the_canonical_reason() {
        let e = ApiError::from_response(429, b"", Some(Duration::from_secs(3)));
        assert!(e.is_too_many_requests());
        assert_eq!(e.message(), "Too Many Requests");
        assert_eq!(e.retry_after, Some(Duration::from_secs(3)));
    }

    #[test]
    fn recognises_expired_and_too_large_resource_versions() {
        let gone = br#"{"kind":"Status","status":"Failure","message":"too old resource version: 1 (25)","reason":"Expired","code":410}"#;
        assert!(ApiError::from_response(410, gone, None).is_gone());
        let too_large = br#"{"kind":"Status","status":"Failure","message":"Too large resource version: 99, current: 20","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}"#;
        let e = ApiError::from_response(504, too_large, None);
        assert!(e.is_too_large_resource_version());
        assert!(!e.is_gone());
    }

    // apimachinery's IsConflict and IsAlreadyExists: a 409 whose reason is
    // AlreadyExists is not a conflict; a 409 with a reason apimachinery does
    // not know is one, and so is the Conflict reason on any code.
    #[test]
    fn is_conflict_and_is_already_exists_as_apimachinery() {
        let exists = br#"{"kind":"Status","status":"Failure","message":"configmaps \"a\" already exists","reason":"AlreadyExists","code":409}"#;
        let e = ApiError::from_response(409, exists, None);
        assert!(e.is_already_exists());
        assert!(!e.is_conflict(), "AlreadyExists is not a conflict");
        let conflict = br#"{"kind":"Status","status":"Failure","message":"the object has been modified","reason":"Conflict","code":409}"#;
        let e = ApiError::from_response(409, conflict, None);
        assert!(e.is_conflict() && !e.is_already_exists());
        let unknown = br#"{"kind":"Status","status":"Failure","message":"x","reason":"SomethingNew","code":409}"#;
        assert!(ApiError::from_response(409, unknown, None).is_conflict());
        let bare = ApiError::from_response(409, b"", None);
        assert!(bare.is_conflict() && !bare.is_already_exists());
        let not_found =
            br#"{"kind":"Status","status":"Failure","message":"x","reason":"NotFound","code":409}"#;
        assert!(!ApiError::from_response(409, not_found, None).is_conflict());
    }

    #[test]
    fn parses_retry_after_seconds_only() {
        let v = http::HeaderValue::from_static("7");
        assert_eq!(parse_retry_after(Some(&v)), Some(Duration::from_secs(7)));
        let v = http::HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT");
        assert_eq!(parse_retry_after(Some(&v)), None);
        assert_eq!(parse_retry_after(None), None);
    }
}
