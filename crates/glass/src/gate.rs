//! The front door's rules, as plain functions of a request's parts: which
//! `Host` is ours, whether the token is there (compared in constant time),
//! whether the request came from our own page, which API paths may pass
//! (for `--read-only`, an allowlist of reads), and which may become a
//! WebSocket (watches and followed pod logs, in every mode).
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
    /// A `Host` other than ours (DNS rebinding, or an address other than
    /// the printed one).
    #[error("this server answers only to the address kubectl glass printed")]
    Host,
    /// A browser's request to `127.0.0.1:port`, which answers programs only.
    #[error(
        "127.0.0.1 answers programs (curl, scripts) only; in a browser, open the URL kubectl glass printed"
    )]
    BrowserByAddress,
    /// Sent by another site's page (`Origin` or `Sec-Fetch-Site`).
    #[error("cross-site request refused")]
    CrossSite,
    /// A path the API allowlist does not admit.
    #[error("{0}")]
    Path(String),
    /// `--read-only`: not a read.
    #[error("read-only: {0}")]
    ReadOnly(String),
    /// A connection upgrade the app never asks for.
    #[error(
        "upgrade refused: {0}; only watches (watch=true on a list) and followed pod logs (pods/<name>/log?follow=true) become WebSockets"
    )]
    Upgrade(String),
}

impl Refusal {
    /// The HTTP status it is answered with.
    pub fn status(&self) -> u16 {
        match self {
            Self::NotFound => 404,
            Self::Host | Self::BrowserByAddress => 421,
            Self::CrossSite | Self::Path(_) | Self::ReadOnly(_) | Self::Upgrade(_) => 403,
        }
    }
}

/// True when `host` (the `Host` header) is `ours`, this run's
/// `<name>.localhost:<port>` (ASCII case aside: a browser lowers it). A
/// page on `evil.example` whose name resolves to 127.0.0.1 sends
/// `Host: evil.example:port`; `127.0.0.1:port` and `localhost:port` are
/// origins other pages may have used before this run (and planted a
/// Service Worker on), so they are refused too.
pub fn host_is_ours(host: Option<&str>, ours: &str) -> bool {
    host.is_some_and(|h| h.eq_ignore_ascii_case(ours))
}

/// True when `host` is `127.0.0.1:port`: how programs (curl, the tests,
/// the benchmarks) reach the door, since only a browser resolves
/// `<name>.localhost` by itself. A browser's request there is refused
/// (see [`from_a_browser`]): a page on that origin may have planted a
/// worker before this run.
pub fn host_is_our_address(host: Option<&str>, port: u16) -> bool {
    host == Some(&*format!("127.0.0.1:{port}"))
}

/// True when a browser sent the request: it has an `Origin`,
/// `Sec-Fetch-Site` or `Sec-Fetch-Dest`, which a browser adds (every
/// navigation and fetch gets the last two) and a page cannot remove.
/// `Sec-Fetch-Mode` alone is not a browser: Node's `fetch` sends it.
/// `has` says whether a header (lower-case name) is present.
pub fn from_a_browser(has: impl Fn(&str) -> bool) -> bool {
    ["origin", "sec-fetch-site", "sec-fetch-dest"]
        .iter()
        .any(|h| has(h))
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
/// `Origin` other than ours (`http://` and `ours`, the `Host` of
/// [`host_is_ours`]), or `Sec-Fetch-Site` other than `same-origin` or
/// `none` (typed or bookmarked). Another port or name on the loopback is
/// `same-site`, not `same-origin`, and is refused. A request with neither
/// header comes from a program, not a page (curl, the tests).
pub fn same_origin(origin: Option<&str>, fetch_site: Option<&str>, ours: &str) -> bool {
    let origin_ok = origin.is_none_or(|o| {
        o.strip_prefix("http://")
            .is_some_and(|h| h.eq_ignore_ascii_case(ours))
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
    /// `GET /glass/storage`: the context's whole store (see `store`).
    Storage,
    /// `PUT /glass/storage/<key>` (a value) or `DELETE` (none): one key.
    StorageKey(String),
}

/// The path of the context's store; one key is `/glass/storage/<key>`.
pub const STORAGE_PATH: &str = "/glass/storage";

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
    if let Some(r) = storage_route(path, method) {
        // In every mode: the store holds the app's preferences, not the cluster's.
        return r;
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

/// The store's routes: `GET` of the whole, `PUT` or `DELETE` of a key
/// the store accepts; `None` for a path outside it.
fn storage_route(path: &str, method: &str) -> Option<Result<Route, Refusal>> {
    let rest = path.strip_prefix(STORAGE_PATH)?;
    let refuse = |why: String| Some(Err(Refusal::Path(why)));
    if rest.is_empty() {
        return match method {
            "GET" => Some(Ok(Route::Storage)),
            _ => refuse(format!("{STORAGE_PATH} takes GET only")),
        };
    }
    let raw = rest.strip_prefix('/')?;
    // The page encodes the key (the discovery cache's has a space).
    let key = percent_decode_str(raw).decode_utf8().unwrap_or_default();
    if !crate::store::key_is_valid(&key) {
        return refuse(crate::store::StoreError::BadKey.to_string());
    }
    match method {
        "PUT" | "DELETE" => Some(Ok(Route::StorageKey(key.to_string()))),
        _ => refuse(format!("{STORAGE_PATH}/<key> takes PUT or DELETE")),
    }
}

/// Whether a request asking for a connection upgrade (`Upgrade:
/// protocol`) may pass: `rest` is the path after the token with its query.
/// Only what the app opens a WebSocket for (crates/web's
/// `WebSocketTransport`): a GET watch of a collection (`watch=true` or
/// `watch=1`, the old `/watch/` prefix not included) and a GET of a pod's
/// log with `follow=true` (or `1`). Everything else that can upgrade (exec,
/// attach, port-forward, a proxy, an aggregated API's `console` or `vnc`)
/// is refused in every mode: an allowlist, so a new connect-style
/// subresource is refused too. A parameter counts as the API server reads
/// it: the first of its name, percent-decoded.
pub fn upgrade(rest: &str, method: &str, protocol: &str) -> Result<(), Refusal> {
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let refuse = |why: &str| Err(Refusal::Upgrade(format!("{method} {path}: {why}")));
    if !protocol.trim().eq_ignore_ascii_case("websocket") {
        return refuse(&format!("{:?} is not websocket", protocol.trim()));
    }
    if method != "GET" {
        return refuse("not a GET");
    }
    let segments = segments(path)?;
    let Some(n) = prefix_len(&segments) else {
        return refuse("not a resource");
    };
    let on = |name: &str| matches!(first_param(query, name).as_deref(), Some("true" | "1"));
    let r = resource_part(&segments);
    let legacy = segments[n] == "watch";
    if r.len() == 1 && !legacy {
        return if on("watch") {
            Ok(())
        } else {
            refuse("a list, not a watch")
        };
    }
    let log = segments[0] == "api" && !legacy && r.len() == 3 && r[0] == "pods" && r[2] == "log";
    match log {
        true if on("follow") => Ok(()),
        true => refuse("a log that is not followed"),
        false => refuse("neither a watch nor a pod's log"),
    }
}

/// The first value of the query parameter `name`, decoded as a form is
/// (`+` is a space), as Go's `url.ParseQuery` reads it.
fn first_param(query: &str, name: &str) -> Option<String> {
    let decode = |s: &str| {
        percent_decode_str(&s.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (decode(k) == name).then(|| decode(v))
    })
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

    const OURS: &str = "k0123456789abcdef.localhost:47123";

    #[test]
    fn only_our_host_and_port_are_answered() {
        assert!(host_is_ours(Some(OURS), OURS));
        assert!(host_is_ours(
            Some("K0123456789ABCDEF.LocalHost:47123"),
            OURS
        ));
        for bad in [
            "127.0.0.1:47123",
            "localhost:47123",
            "[::1]:47123",
            "evil.example:47123",
            "k0123456789abcdef.localhost",
            "k0123456789abcdef.localhost:47124",
            "k0123456789abcdef.localhost:047123",
            "x.k0123456789abcdef.localhost:47123",
            "k0123456789abcdef.localhost.evil.example:47123",
            "k0123456789abcdef.localhost:47123:47123",
        ] {
            assert!(!host_is_ours(Some(bad), OURS), "{bad}");
        }
        assert!(!host_is_ours(None, OURS));
    }

    #[test]
    fn programs_may_use_the_address_and_browsers_may_not() {
        assert!(host_is_our_address(Some("127.0.0.1:47123"), 47123));
        for bad in [
            "127.0.0.1:47124",
            "localhost:47123",
            "[::1]:47123",
            "127.0.0.1",
        ] {
            assert!(!host_is_our_address(Some(bad), 47123), "{bad}");
        }
        assert!(!from_a_browser(|_| false));
        assert!(!from_a_browser(|n| n == "sec-fetch-mode"), "Node's fetch");
        for h in ["origin", "sec-fetch-site", "sec-fetch-dest"] {
            assert!(from_a_browser(|n| n == h), "{h}");
        }
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
        let ours = format!("http://{OURS}");
        assert!(same_origin(Some(&ours), Some("same-origin"), OURS));
        assert!(!same_origin(Some("http://127.0.0.1:47123"), None, OURS));
        assert!(!same_origin(Some("http://localhost:47123"), None, OURS));
        assert!(!same_origin(Some(&format!("https://{OURS}")), None, OURS));
        assert!(same_origin(None, Some("none"), OURS));
        assert!(same_origin(None, None, OURS));
        assert!(!same_origin(Some("http://127.0.0.1:8080"), None, OURS));
        assert!(!same_origin(Some("null"), None, OURS));
        assert!(!same_origin(Some("https://evil.example"), None, OURS));
        assert!(!same_origin(None, Some("same-site"), OURS), "another port");
        assert!(!same_origin(None, Some("cross-site"), OURS));
    }

    #[test]
    fn the_store_takes_a_get_of_the_whole_and_a_put_or_delete_of_a_key_in_every_mode() {
        for ro in [false, true] {
            assert_eq!(route("/glass/storage", "GET", ro), Ok(Route::Storage));
            assert_eq!(
                route("/glass/storage/kubeglass.theme", "PUT", ro),
                Ok(Route::StorageKey("kubeglass.theme".into()))
            );
            assert_eq!(
                route("/glass/storage/kubeglass.theme", "DELETE", ro),
                Ok(Route::StorageKey("kubeglass.theme".into()))
            );
        }
        assert!(matches!(
            route("/glass/storage", "PUT", false),
            Err(Refusal::Path(_))
        ));
        assert!(matches!(
            route("/glass/storage/k", "GET", false),
            Err(Refusal::Path(_))
        ));
        assert_eq!(
            route("/glass/storage/kubeglass.discovery.v2%2001ab", "PUT", false),
            Ok(Route::StorageKey("kubeglass.discovery.v2 01ab".into()))
        );
        for bad in [
            "/glass/storage/a%2Fb",
            "/glass/storage/a/b",
            "/glass/storage/..",
            "/glass/storage/",
            "/glass/storage/%FF",
        ] {
            assert!(
                matches!(route(bad, "PUT", false), Err(Refusal::Path(_))),
                "{bad}"
            );
        }
        assert_eq!(
            route("/glass/storagex", "GET", false),
            Err(Refusal::NotFound)
        );
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
    fn watches_and_followed_logs_may_become_websockets() {
        for ok in [
            "/api/v1/namespaces?watch=true",
            "/api/v1/pods?watch=1&resourceVersion=5",
            "/api/v1/namespaces/demo/configmaps?resourceVersion=0&watch=true",
            "/apis/apps/v1/namespaces/demo/deployments?watch=true&sendInitialEvents=true",
            "/apis/x.io/v1/things?w%61tch=true",
            "/api/v1/namespaces/demo/pods/web-1/log?follow=true&container=app",
            "/api/v1/namespaces/demo/pods/web-1/log?tailLines=10&follow=1",
        ] {
            assert_eq!(upgrade(ok, "GET", "websocket"), Ok(()), "{ok}");
            assert_eq!(upgrade(ok, "GET", " WebSocket"), Ok(()), "{ok}");
        }
    }

    #[test]
    fn nothing_else_may_become_a_websocket() {
        for path in [
            "/api/v1/pods",
            "/api/v1/pods?watch=false",
            "/api/v1/pods?watch=false&watch=true",
            "/api/v1/pods?follow=true",
            "/api/v1/namespaces/demo/pods/web-1?watch=true",
            "/api/v1/watch/namespaces/demo/pods?watch=true",
            "/api/v1/watch/pods",
            "/api/v1/namespaces/demo/pods/web-1/log",
            "/api/v1/namespaces/demo/pods/web-1/log?follow=0",
            "/api/v1/namespaces/demo/pods/web-1/exec?command=sh&watch=true",
            "/api/v1/namespaces/demo/pods/web-1/attach?follow=true",
            "/api/v1/namespaces/demo/pods/web-1/portforward?ports=80",
            "/api/v1/namespaces/demo/services/web:80/proxy/?watch=true",
            "/api/v1/nodes/n/proxy/logs/?follow=true",
            "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/console",
            "/apis/subresources.kubevirt.io/v1/namespaces/a/virtualmachineinstances/v/vnc?watch=1",
            "/apis/x.io/v1/namespaces/a/pods/b/log?follow=true",
            "/api/v1/namespaces/demo/pods/web-1/status?watch=true",
            "/api/v1?watch=true",
            "/apis?watch=true",
            "/version?watch=true",
            "/openapi/v3?watch=true",
        ] {
            let got = upgrade(path, "GET", "websocket");
            assert!(
                matches!(got, Err(Refusal::Upgrade(_) | Refusal::Path(_))),
                "{path}: {got:?}"
            );
        }
        let watch = "/api/v1/pods?watch=true";
        for protocol in ["SPDY/3.1", "h2c", ""] {
            let got = upgrade(watch, "GET", protocol);
            assert!(matches!(got, Err(Refusal::Upgrade(_))), "{protocol}");
        }
        let log = "/api/v1/namespaces/demo/pods/web-1/log?follow=true";
        for path in [watch, log] {
            let got = upgrade(path, "POST", "websocket");
            assert!(matches!(got, Err(Refusal::Upgrade(_))), "POST {path}");
        }
        let why = upgrade(
            "/apis/k.io/v1/namespaces/a/vms/v/console",
            "GET",
            "websocket",
        )
        .expect_err("a console")
        .to_string();
        assert!(
            why.contains("console") && why.contains("only watches"),
            "{why}"
        );
        assert_eq!(Refusal::Upgrade(String::new()).status(), 403);
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
