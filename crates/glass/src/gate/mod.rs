//! The front door's rules, as plain functions of a request's parts: which
//! `Host` is ours, whether the token is there (compared in constant time),
//! whether the request came from our own page, which API paths may pass
//! (for `--read-only`, an allowlist of reads), and which may become a
//! WebSocket (watches and followed pod logs in every mode; a shell in a
//! container, `pods/<name>/exec`, only when the run allows it).
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
        "upgrade refused: {0}; only watches (watch=true on a list), followed pod logs (pods/<name>/log?follow=true) and, unless --read-only or --no-exec, a shell (pods/<name>/exec) become WebSockets"
    )]
    Upgrade(String),
}

/// What this run lets through beyond reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// `--read-only`: only reads pass.
    pub read_only: bool,
    /// A shell in a container (`pods/<name>/exec` as a WebSocket) may pass:
    /// never with `--read-only` or `--no-exec`.
    pub exec: bool,
}

impl Mode {
    /// The mode of a run started with `--read-only` or not, and `--no-exec`
    /// or not.
    pub fn new(read_only: bool, no_exec: bool) -> Self {
        Mode {
            read_only,
            exec: !read_only && !no_exec,
        }
    }
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
    /// A shell in a container: `GET /api/v1/namespaces/<ns>/pods/<name>/exec?…`,
    /// forwarded as [`Route::Api`] is, but only as a WebSocket upgrade
    /// ([`upgrade`]) and only in a run whose [`Mode`] allows it.
    Exec,
    /// `POST /glass/stop`: the page found a Service Worker on our origin
    /// that Kubeglass never registers, so the token may have been seen;
    /// the launcher stops, and the token dies with it.
    Stop,
    /// `GET /glass/storage`: the context's whole store (see `store`).
    Storage,
    /// `PUT /glass/storage/<key>` (a value) or `DELETE` (none): one key.
    StorageKey(String),
    /// `GET /glass/saved` (the keys) or `DELETE` (forget them all): the
    /// context's saved tables (see `saved`).
    Saved,
    /// `GET` or `PUT /glass/saved/<key>`: one saved table.
    SavedKey(String),
    /// `GET /glass/forwards` (the running port-forwards) or `POST` (start
    /// one): not in `--read-only`.
    Forwards,
    /// `DELETE /glass/forwards/<id>`: stop one.
    StopForward(u32),
    /// `GET /glass/open/<i>`: the header's menu opening another context
    /// (a redirect to its app, on its own origin).
    Open(usize),
}

/// The path of the context's store; one key is `/glass/storage/<key>`.
pub const STORAGE_PATH: &str = "/glass/storage";

/// The path of the context's saved tables; one is `/glass/saved/<key>`.
pub const SAVED_PATH: &str = "/glass/saved";

/// The launcher's own path: the page asks it to stop.
pub const STOP_PATH: &str = "/glass/stop";

/// Classifies `rest` (the path after the token, query included) for
/// `method`: the app, or an API path the rules admit. `--read-only` admits
/// only GETs of discovery, `/version`, `/openapi`, and objects, lists and
/// watches with at most one readable subresource. A pod's `exec` is
/// [`Route::Exec`] when `mode.exec`; every other connect-style subresource
/// is refused in every mode.
pub fn route(rest: &str, method: &str, mode: Mode) -> Result<Route, Refusal> {
    let read_only = mode.read_only;
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
    if let Some(r) = saved_route(path, method) {
        // In every mode: what the page already read, kept for its next visit.
        return r;
    }
    if let Some(r) = forwards_route(path, method, read_only) {
        return r;
    }
    if let Some(r) = open_route(path, method) {
        // In every mode: opening another context's app reads nothing.
        return r;
    }
    let first = path[1..].split('/').next();
    if !matches!(first, Some("api" | "apis" | "version" | "openapi")) {
        return Err(Refusal::NotFound);
    }
    let segments = segments(path)?;
    let sub = subresource(&segments);
    if mode.exec && is_pod_exec(&segments) {
        return match method {
            "GET" => Ok(Route::Exec),
            _ => Err(Refusal::Path(
                "a shell is opened by a WebSocket GET only".into(),
            )),
        };
    }
    if let Some(s) = &sub
        && CONNECT.contains(&s.as_str())
    {
        if is_pod_exec(&segments) {
            return Err(Refusal::Path(
                "a shell (pods/<name>/exec) is refused: this run was started with --read-only or --no-exec".into(),
            ));
        }
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

/// The port-forwards' routes (`kubeglass_kubectl::forwards`); `None` for a
/// path outside them. A forward opens a port into the cluster: never in
/// `--read-only`.
fn forwards_route(path: &str, method: &str, read_only: bool) -> Option<Result<Route, Refusal>> {
    use kubeglass_kubectl::forwards::FORWARDS_PATH;
    let rest = path.strip_prefix(FORWARDS_PATH)?;
    if !rest.is_empty() && !rest.starts_with('/') {
        return None;
    }
    if read_only {
        return Some(Err(Refusal::ReadOnly(
            "a port-forward opens a port into the cluster".into(),
        )));
    }
    let refuse = |why: String| Some(Err(Refusal::Path(why)));
    match (rest.strip_prefix('/'), method) {
        (None, "GET" | "POST") => Some(Ok(Route::Forwards)),
        (None, _) => refuse(format!("{FORWARDS_PATH} takes GET or POST")),
        (Some(id), "DELETE") => match id.parse::<u32>() {
            Ok(n) if id == n.to_string() => Some(Ok(Route::StopForward(n))),
            _ => refuse(format!(
                "{FORWARDS_PATH}/<id>: {id:?} is not a forward's number"
            )),
        },
        (Some(_), _) => refuse(format!("{FORWARDS_PATH}/<id> takes DELETE")),
    }
}

/// `GET /glass/open/<i>`, `i` a number as the session writes it; `None`
/// for a path outside it.
fn open_route(path: &str, method: &str) -> Option<Result<Route, Refusal>> {
    use kubeglass_kubectl::session::OPEN_PATH;
    let index = path.strip_prefix(OPEN_PATH)?.strip_prefix('/')?;
    let refuse = |why: String| Some(Err(Refusal::Path(why)));
    match (index.parse::<usize>(), method) {
        (Ok(i), "GET") if index == i.to_string() => Some(Ok(Route::Open(i))),
        (Ok(_), "GET") | (Err(_), _) => refuse(format!(
            "{OPEN_PATH}/<i>: {index:?} is not a context's number"
        )),
        (Ok(_), _) => refuse(format!("{OPEN_PATH}/<i> takes GET only")),
    }
}

/// The saved tables' routes: `GET` of the keys or `DELETE` of them all,
/// `GET` or `PUT` of one whose key the store accepts; `None` for a path
/// outside them.
fn saved_route(path: &str, method: &str) -> Option<Result<Route, Refusal>> {
    let rest = path.strip_prefix(SAVED_PATH)?;
    let refuse = |why: String| Some(Err(Refusal::Path(why)));
    if rest.is_empty() {
        return match method {
            "GET" | "DELETE" => Some(Ok(Route::Saved)),
            _ => refuse(format!("{SAVED_PATH} takes GET or DELETE")),
        };
    }
    let key = rest.strip_prefix('/')?;
    if !crate::store::key_is_valid(key) {
        return refuse(crate::store::StoreError::BadKey.to_string());
    }
    match method {
        "GET" | "PUT" => Some(Ok(Route::SavedKey(key.to_string()))),
        _ => refuse(format!("{SAVED_PATH}/<key> takes GET or PUT")),
    }
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
/// subresource is refused too. A pod's `exec` (only the core API's, with a
/// namespace) may become one when `mode.exec`. A parameter counts as the
/// API server reads it: the first of its name, percent-decoded.
pub fn upgrade(rest: &str, method: &str, protocol: &str, mode: Mode) -> Result<(), Refusal> {
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let refuse = |why: &str| Err(Refusal::Upgrade(format!("{method} {path}: {why}")));
    if !protocol.trim().eq_ignore_ascii_case("websocket") {
        return refuse(&format!("{:?} is not websocket", protocol.trim()));
    }
    if method != "GET" {
        return refuse("not a GET");
    }
    let segments = segments(path)?;
    if is_pod_exec(&segments) {
        return match mode.exec {
            true => Ok(()),
            false if mode.read_only => refuse("a shell, in a --read-only run"),
            false => refuse("a shell, in a run started with --no-exec"),
        };
    }
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

/// True for `api/v1/namespaces/<ns>/pods/<name>/exec` exactly: the core
/// API's pod exec, nothing after it (a path the API server would route
/// elsewhere is not a shell).
fn is_pod_exec(segments: &[String]) -> bool {
    matches!(
        segments.iter().map(String::as_str).collect::<Vec<_>>()[..],
        ["api", "v1", "namespaces", _, "pods", _, "exec"]
    )
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
mod tests;
