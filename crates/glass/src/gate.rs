//! The front door's rules, as plain functions of a request's parts: which
//! `Host` is ours, whether the token is there (compared in constant time),
//! whether the request came from our own page, and which API paths may pass
//! (for `--read-only`, an allowlist of reads).
//!
//! docs/security.md lists what each rule closes and the test that shows it.

use percent_encoding::percent_decode_str;
use subtle::ConstantTimeEq;

/// Why a request is refused, with the status it gets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// No token, or the wrong one: 404, as if nothing were here.
    #[error("not found")]
    NotFound,
    /// A `Host` other than ours (DNS rebinding).
    #[error("this server answers only to 127.0.0.1:{0} and localhost:{0}")]
    Host(u16),
    /// Sent by another site's page (`Origin` or `Sec-Fetch-Site`).
    #[error("cross-site request refused")]
    CrossSite,
    /// A path the API allowlist does not admit.
    #[error("{0}")]
    Path(String),
    /// `--read-only`: not a read.
    #[error("read-only: {0}")]
    ReadOnly(String),
}

impl Refusal {
    /// The HTTP status it is answered with.
    pub fn status(&self) -> u16 {
        match self {
            Self::NotFound => 404,
            Self::Host(_) => 421,
            Self::CrossSite | Self::Path(_) | Self::ReadOnly(_) => 403,
        }
    }
}

/// True when `host` (the `Host` header) names this listener: 127.0.0.1 or
/// localhost with our port, nothing else. A page on `evil.example` whose
/// name resolves to 127.0.0.1 sends `Host: evil.example:port`.
pub fn host_is_ours(host: Option<&str>, port: u16) -> bool {
    let Some(host) = host else { return false };
    let Some((name, p)) = host.rsplit_once(':') else {
        return false;
    };
    p == port.to_string() && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
}

/// Splits `path` into the token segment and the rest, when the first
/// segment equals `token`. The comparison takes the same time wherever the
/// first difference is, so the token cannot be guessed byte by byte.
pub fn strip_token<'a>(path: &'a str, token: &str) -> Option<&'a str> {
    let after = path.strip_prefix('/')?;
    let (first, rest) = match after.find('/') {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, ""),
    };
    let same: bool = first.as_bytes().ct_eq(token.as_bytes()).into();
    same.then_some(rest)
}

/// True unless the browser says another site sent the request: an
/// `Origin` other than ours, or `Sec-Fetch-Site` other than `same-origin`
/// or `none` (typed or bookmarked). Another port on 127.0.0.1 is
/// `same-site`, not `same-origin`, and is refused. A request with neither
/// header comes from a program, not a page (curl, the tests).
pub fn same_origin(origin: Option<&str>, fetch_site: Option<&str>, port: u16) -> bool {
    let origin_ok = origin.is_none_or(|o| {
        o == format!("http://127.0.0.1:{port}") || o == format!("http://localhost:{port}")
    });
    let site_ok = fetch_site.is_none_or(|s| s == "same-origin" || s == "none");
    origin_ok && site_ok
}

/// Subresources that open a connection into a workload or node (a shell,
/// a port, a proxied request): never passed, in any mode. kubectl proxy's
/// `--reject-paths` (hack/reject-paths) refuses the built-in ones too.
const CONNECT: &[&str] = &["exec", "attach", "portforward", "proxy"];

/// Subresources `--read-only` lets a GET read: they answer with an object
/// or the log. Anything else (an aggregated API's `console`, `vnc`, a new
/// connect-style subresource) is refused: an allowlist, not a blocklist.
const READABLE: &[&str] = &["status", "scale", "log"];

/// What a path under the token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The app: `/ui/…`; the file's name (empty for index.html).
    App(String),
    /// The token alone, or `/ui` without its slash: redirect to `/ui/`.
    ToApp,
    /// The API, forwarded to kubectl as it came (`/api/…?…`).
    Api,
    /// `POST /glass/stop`: the page found a Service Worker on our origin
    /// that Kubeglass never registers, so the token may have been seen;
    /// the launcher stops, and the token dies with it.
    Stop,
}

/// The launcher's own path: the page asks it to stop.
pub const STOP_PATH: &str = "/glass/stop";

/// Classifies `rest` (the path after the token, query included) for
/// `method`: the app, or an API path the rules admit. `read_only` admits
/// only GETs of discovery, `/version`, `/openapi`, and objects, lists and
/// watches with at most one readable subresource.
pub fn route(rest: &str, method: &str, read_only: bool) -> Result<Route, Refusal> {
    let path = rest.split_once('?').map_or(rest, |(p, _)| p);
    if path.is_empty() || path == "/ui" {
        return Ok(Route::ToApp);
    }
    if let Some(file) = path.strip_prefix("/ui/") {
        return Ok(Route::App(file.to_string()));
    }
    if path == STOP_PATH {
        // In every mode: stopping writes nothing to the cluster.
        return match method {
            "POST" => Ok(Route::Stop),
            _ => Err(Refusal::Path(format!("{STOP_PATH} takes POST only"))),
        };
    }
    let first = path[1..].split('/').next();
    if !matches!(first, Some("api" | "apis" | "version" | "openapi")) {
        return Err(Refusal::NotFound);
    }
    let segments = segments(path)?;
    let sub = subresource(&segments);
    if let Some(s) = &sub
        && CONNECT.contains(&s.as_str())
    {
        return Err(Refusal::Path(format!(
            "the {s} subresource is never passed"
        )));
    }
    if read_only {
        if method != "GET" {
            return Err(Refusal::ReadOnly(format!("{method} is not a read")));
        }
        if let Some(s) = sub
            && !READABLE.contains(&s.as_str())
        {
            return Err(Refusal::ReadOnly(format!(
                "the {s} subresource is not a read"
            )));
        }
        if too_deep(&segments) {
            return Err(Refusal::ReadOnly(format!("{path} is not a read")));
        }
    }
    Ok(Route::Api)
}

/// The path's segments, percent-decoded, as the API server will route them.
/// Empty, `.` and `..` segments and encoded slashes are refused: kubectl
/// and the API server would clean or redirect them, and the rules must
/// judge the path that is served.
fn segments(path: &str) -> Result<Vec<String>, Refusal> {
    let bad = || Refusal::Path(format!("malformed path {path:?}"));
    let body = path.strip_prefix('/').ok_or_else(bad)?;
    body.split('/')
        .map(|raw| {
            let s = percent_decode_str(raw).decode_utf8().map_err(|_| bad())?;
            if s.is_empty() || s == "." || s == ".." || s.contains('/') {
                return Err(bad());
            }
            Ok(s.into_owned())
        })
        .collect()
}

/// The API group/version prefix's length: `api/v1` (2) or `apis/g/v` (3);
/// None for discovery, `/version` and `/openapi`.
fn prefix_len(segments: &[String]) -> Option<usize> {
    match segments.first().map(String::as_str) {
        Some("api") if segments.len() > 2 => Some(2),
        Some("apis") if segments.len() > 3 => Some(3),
        _ => None,
    }
}

/// The resource part after the group/version: `watch` (the old watch
/// prefix) and `namespaces/<ns>` dropped, leaving `resource[/name[/sub…]]`.
/// `namespaces/<name>/status` (a namespace's own subresource) reads as
/// resource `status`, which is harmless: it names no subresource beyond.
fn resource_part(segments: &[String]) -> &[String] {
    let Some(n) = prefix_len(segments) else {
        return &[];
    };
    let mut r = &segments[n..];
    if r.first().is_some_and(|s| s == "watch") {
        r = &r[1..];
    }
    if r.len() >= 3 && r[0] == "namespaces" {
        r = &r[2..];
    }
    r
}

/// The subresource a path names (`pods/x/exec` → exec), if any.
fn subresource(segments: &[String]) -> Option<String> {
    resource_part(segments).get(2).cloned()
}

/// True when a resource path goes past `resource/name/sub`, or `/version`
/// has more after it (`/openapi/v3/…` may be as deep as it likes).
fn too_deep(segments: &[String]) -> bool {
    match segments.first().map(String::as_str) {
        Some("version") => segments.len() > 1,
        Some("openapi") => false,
        _ => resource_part(segments).len() > 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn only_our_host_and_port_are_answered() {
        assert!(host_is_ours(Some("127.0.0.1:47123"), 47123));
        assert!(host_is_ours(Some("localhost:47123"), 47123));
        assert!(host_is_ours(Some("LocalHost:47123"), 47123));
        for bad in [
            "evil.example:47123",
            "127.0.0.1",
            "127.0.0.1:47124",
            "127.0.0.1:047123",
            "localhost.evil.example:47123",
            "[::1]:47123",
            "127.0.0.1:47123:47123",
        ] {
            assert!(!host_is_ours(Some(bad), 47123), "{bad}");
        }
        assert!(!host_is_ours(None, 47123));
    }

    #[test]
    fn the_token_must_be_the_whole_first_segment() {
        assert_eq!(
            strip_token(&format!("/{TOKEN}/api/v1"), TOKEN),
            Some("/api/v1")
        );
        assert_eq!(strip_token(&format!("/{TOKEN}"), TOKEN), Some(""));
        assert_eq!(strip_token(&format!("/{TOKEN}x/api"), TOKEN), None);
        assert_eq!(strip_token(&format!("/{}/api", &TOKEN[..31]), TOKEN), None);
        assert_eq!(strip_token("/api/v1", TOKEN), None);
        assert_eq!(strip_token("/", TOKEN), None);
        assert_eq!(strip_token("", TOKEN), None);
    }

    #[test]
    fn another_origin_or_site_is_refused_and_programs_pass() {
        assert!(same_origin(
            Some("http://127.0.0.1:47123"),
            Some("same-origin"),
            47123
        ));
        assert!(same_origin(Some("http://localhost:47123"), None, 47123));
        assert!(same_origin(None, Some("none"), 47123));
        assert!(same_origin(None, None, 47123));
        assert!(!same_origin(Some("http://127.0.0.1:8080"), None, 47123));
        assert!(!same_origin(Some("null"), None, 47123));
        assert!(!same_origin(Some("https://evil.example"), None, 47123));
        assert!(!same_origin(None, Some("same-site"), 47123), "another port");
        assert!(!same_origin(None, Some("cross-site"), 47123));
    }

    #[test]
    fn the_app_and_its_redirect() {
        assert_eq!(route("", "GET", false), Ok(Route::ToApp));
        assert_eq!(route("/ui", "GET", true), Ok(Route::ToApp));
        assert_eq!(route("/ui/", "GET", true), Ok(Route::App(String::new())));
        assert_eq!(
            route("/ui/main.css?x=1", "GET", true),
            Ok(Route::App("main.css".into()))
        );
        assert_eq!(route("/healthz", "GET", false), Err(Refusal::NotFound));
        assert_eq!(route("/logs/", "GET", false), Err(Refusal::NotFound));
    }

    #[test]
    fn the_page_can_ask_the_launcher_to_stop_in_every_mode_by_post_only() {
        for ro in [false, true] {
            assert_eq!(route("/glass/stop", "POST", ro), Ok(Route::Stop));
            assert!(route("/glass/stop", "GET", ro).is_err());
        }
        assert_eq!(
            route("/glass/stop/x", "POST", false),
            Err(Refusal::NotFound)
        );
    }

    #[test]
    fn connect_subresources_never_pass_whatever_the_spelling() {
        for path in [
            "/api/v1/namespaces/a/pods/b/exec?command=sh",
            "/api/v1/namespaces/a/pods/b/attach",
            "/api/v1/namespaces/a/pods/b/portforward",
            "/api/v1/namespaces/a/pods/b/proxy/metrics",
            "/api/v1/namespaces/a/services/b:80/proxy/",
            "/api/v1/nodes/n/proxy/configz",
            "/api/v1/namespaces/a/pods/b/%65xec",
            "/apis/x.io/v1/namespaces/a/things/b/proxy",
        ] {
            for ro in [false, true] {
                assert!(route(path, "GET", ro).is_err(), "{path} read_only={ro}");
                assert!(route(path, "POST", ro).is_err(), "{path} read_only={ro}");
            }
        }
        for odd in [
            "/api/v1/namespaces/a/pods/b/../b/exec",
            "/api//v1/pods",
            "/api/v1/namespaces/a/pods/b%2Fexec",
            "/api/v1/./pods",
        ] {
            assert!(
                matches!(route(odd, "GET", false), Err(Refusal::Path(_))),
                "{odd}"
            );
        }
    }

    #[test]
    fn read_only_is_an_allowlist_of_reads() {
        for ok in [
            "/api",
            "/apis",
            "/api/v1",
            "/apis/apps/v1",
            "/version",
            "/openapi/v3/apis/apps/v1",
            "/api/v1/pods?watch=1&resourceVersion=5",
            "/api/v1/namespaces",
            "/api/v1/namespaces/demo",
            "/api/v1/namespaces/demo/pods",
            "/api/v1/namespaces/demo/pods/web-1",
            "/api/v1/namespaces/demo/pods/web-1/log?follow=true",
            "/api/v1/watch/namespaces/demo/pods",
            "/apis/apps/v1/namespaces/demo/deployments/web/scale",
            "/apis/apps/v1/namespaces/demo/deployments/web/status",
            "/apis/metrics.k8s.io/v1beta1/nodes",
        ] {
            assert_eq!(route(ok, "GET", true), Ok(Route::Api), "{ok}");
        }
        for (path, method) in [
            ("/api/v1/namespaces/demo/configmaps", "POST"),
            ("/api/v1/namespaces/demo/configmaps/x", "PATCH"),
            ("/api/v1/namespaces/demo/configmaps/x", "patch"),
            ("/api/v1/namespaces/demo/configmaps/x", "DELETE"),
            ("/api/v1/namespaces/demo/pods", "HEAD"),
            (
                "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/console",
                "GET",
            ),
            ("/apis/x.io/v1/namespaces/a/things/b/status/deeper", "GET"),
            ("/api/v1/namespaces/a/pods/b/eviction", "GET"),
            ("/version/more", "GET"),
        ] {
            assert!(
                matches!(route(path, method, true), Err(Refusal::ReadOnly(_))),
                "{method} {path}: {:?}",
                route(path, method, true)
            );
        }
        // Without --read-only, writes pass (RBAC decides).
        assert_eq!(
            route("/api/v1/namespaces/demo/configmaps/x", "PATCH", false),
            Ok(Route::Api)
        );
        assert_eq!(
            route("/api/v1/namespaces/a/pods/b/eviction", "POST", false),
            Ok(Route::Api)
        );
    }
}
