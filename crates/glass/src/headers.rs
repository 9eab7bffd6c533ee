//! Which headers cross the front door, each way: two allowlists, and the
//! two headers every answer that is not the app's own file carries.
//!
//! Towards kubectl, nothing that could speak for the person (a `Cookie`, an
//! `Authorization` kubectl's transport would send instead of the person's
//! own credentials, `Impersonate-*`) or steer kubectl. Towards the browser,
//! nothing that could act on the origin (`Set-Cookie`, `Clear-Site-Data`,
//! `Refresh`, `Link` preloads): only what the app reads and what HTTP needs.
//! An answer from the cluster is never stored (`no-store`, whatever the API
//! server said: it sends `no-cache, private`, which lets a browser keep a
//! revealed Secret on disk) and never becomes a page (`sandbox`).

use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};

/// Request headers passed to kubectl: what the API server reads to choose
/// and decode a format, and who is asking (for its audit log).
const TO_KUBECTL: &[&str] = &[
    "accept",
    "accept-encoding",
    "content-type",
    "content-length",
    "user-agent",
    // The API server's WebSocket handshake wants one; it names our origin.
    "origin",
];

/// More request headers for an upgrade the gate allowed.
const TO_KUBECTL_UPGRADING: &[&str] = &[
    "upgrade",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-extensions",
];

/// The WebSocket subprotocols passed on: the raw and base64 byte streams
/// of a log, and the channel protocols of a shell (`v5` with its close
/// signal, `v4` before it). The API server also reads a bearer token from
/// a subprotocol (`base64url.bearer.authorization.k8s.io.…`): never passed.
const SUBPROTOCOLS: &[&str] = &[
    "binary.k8s.io",
    "base64.binary.k8s.io",
    "v5.channel.k8s.io",
    "v4.channel.k8s.io",
];

/// Response headers passed to the browser: the body's type, length and
/// encoding, and what the client reads (`Retry-After`, `Warning`, the
/// audit ID and priority-and-fairness IDs a problem report may quote).
const TO_BROWSER: &[&str] = &[
    "content-type",
    "content-length",
    "content-encoding",
    "date",
    "retry-after",
    "warning",
    "audit-id",
    "x-kubernetes-pf-flowschema-uid",
    "x-kubernetes-pf-prioritylevel-uid",
];

/// More response headers for `101 Switching Protocols`.
const TO_BROWSER_SWITCHING: &[&str] = &[
    "connection",
    "upgrade",
    "sec-websocket-accept",
    "sec-websocket-protocol",
    "sec-websocket-extensions",
];

/// The `Content-Security-Policy` of every answer that is not the app's own
/// file: opened as a page (a link, a navigation, a sniffed type), it runs
/// nothing, loads nothing and is an origin of its own.
pub const NOT_A_PAGE: &str = "sandbox; default-src 'none'";

/// The headers to send kubectl for a request that came with `from_browser`;
/// `upgrading` when the gate allowed its upgrade. `Host` is set by the
/// caller.
pub fn to_kubectl(from_browser: &HeaderMap, upgrading: bool) -> HeaderMap {
    let mut out = keep(from_browser, TO_KUBECTL);
    if upgrading {
        out.extend(keep(from_browser, TO_KUBECTL_UPGRADING));
        out.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
        if let Some(v) = subprotocols(from_browser) {
            out.insert(header::SEC_WEBSOCKET_PROTOCOL, v);
        }
    }
    out
}

/// The headers to send the browser for kubectl's answer `from_kubectl`;
/// `switching` for a `101 Switching Protocols`.
pub fn to_browser(from_kubectl: &HeaderMap, switching: bool) -> HeaderMap {
    let mut out = keep(from_kubectl, TO_BROWSER);
    if switching {
        out.extend(keep(from_kubectl, TO_BROWSER_SWITCHING));
    }
    out
}

/// Marks an answer as one that is never stored and never becomes a page,
/// replacing what the answer said about either.
pub fn not_a_page(h: &mut HeaderMap) {
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(NOT_A_PAGE),
    );
}

/// The headers of `h` named in `names`, every value of each.
fn keep(h: &HeaderMap, names: &[&'static str]) -> HeaderMap {
    let mut out = HeaderMap::new();
    for name in names {
        let name = HeaderName::from_static(name);
        for v in h.get_all(&name) {
            out.append(name.clone(), v.clone());
        }
    }
    out
}

/// The browser's `Sec-WebSocket-Protocol` list without the subprotocols
/// not in [`SUBPROTOCOLS`]; None when none is left.
fn subprotocols(h: &HeaderMap) -> Option<HeaderValue> {
    let kept: Vec<&str> = h
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|p| SUBPROTOCOLS.contains(p))
        .collect();
    if kept.is_empty() {
        return None;
    }
    HeaderValue::from_str(&kept.join(", ")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(HeaderName::from_static(k), HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn a_bearer_token_in_a_subprotocol_is_never_passed() {
        let h = map(&[
            ("upgrade", "websocket"),
            (
                "sec-websocket-protocol",
                "base64url.bearer.authorization.k8s.io.dG9rZW4, binary.k8s.io",
            ),
        ]);
        let out = to_kubectl(&h, true);
        assert_eq!(out["sec-websocket-protocol"], "binary.k8s.io");
        let only_token = map(&[(
            "sec-websocket-protocol",
            "base64url.bearer.authorization.k8s.io.dG9rZW4",
        )]);
        assert!(!to_kubectl(&only_token, true).contains_key("sec-websocket-protocol"));
    }

    #[test]
    fn upgrade_headers_pass_only_for_an_allowed_upgrade() {
        let h = map(&[
            ("connection", "keep-alive, Upgrade"),
            ("upgrade", "websocket"),
            ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ("sec-websocket-version", "13"),
        ]);
        let plain = to_kubectl(&h, false);
        assert!(plain.is_empty(), "{plain:?}");
        let up = to_kubectl(&h, true);
        assert_eq!(up["connection"], "Upgrade");
        assert_eq!(up["upgrade"], "websocket");
        assert_eq!(up["sec-websocket-version"], "13");
    }
}
