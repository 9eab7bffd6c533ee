//! The app inside the binary, served from memory: each file with its type,
//! its cache policy and, when the browser takes it, the brotli or gzip copy
//! `make app` compressed at build time (hack/compress.mjs).

use std::borrow::Cow;

use rust_embed::RustEmbed;

/// `dist/` as `make app` built it when this binary was compiled.
#[derive(RustEmbed)]
#[folder = "../../dist"]
#[allow_missing = true]
struct Dist;

pub use kubeglass_kubectl::session::SESSION_FILE;

/// The policy `hack/csp.py` wrote beside index.html (its `<meta>` tag
/// holds the same), without the directives a `<meta>` cannot carry.
const CSP_FILE: &str = "csp.txt";

/// True when this binary was built with the app inside.
pub fn embedded() -> bool {
    Dist::get("index.html").is_some() && Dist::get(CSP_FILE).is_some()
}

/// The `Content-Security-Policy` header: the build's policy plus what only
/// a header can say (no framing) and no workers of any kind, so a page on
/// this origin cannot register a Service Worker.
pub fn content_security_policy() -> Option<String> {
    let file = Dist::get(CSP_FILE)?;
    let policy = String::from_utf8_lossy(&file.data).trim().to_string();
    Some(format!(
        "{policy}; frame-ancestors 'none'; worker-src 'none'; manifest-src 'none'"
    ))
}

/// One file as it is sent.
#[derive(Debug)]
pub struct Asset {
    /// The bytes, perhaps compressed.
    pub body: Cow<'static, [u8]>,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// `Content-Encoding`, when compressed.
    pub encoding: Option<&'static str>,
    /// `Cache-Control`.
    pub cache: &'static str,
}

/// The file `name` (empty for index.html), compressed as `accept_encoding`
/// allows. The session file is the launcher's own, `session`. Compressed
/// copies and the policy file are not served by their own names.
pub fn get(name: &str, accept_encoding: Option<&str>, session: &str) -> Option<Asset> {
    let name = if name.is_empty() { "index.html" } else { name };
    if name == SESSION_FILE {
        return Some(Asset {
            body: Cow::Owned(session.as_bytes().to_vec()),
            content_type: "application/json",
            encoding: None,
            cache: NO_STORE,
        });
    }
    if name == CSP_FILE || name.ends_with(".br") || name.ends_with(".gz") {
        return None;
    }
    let content_type = content_type(name)?;
    let cache = if is_hashed(name) { IMMUTABLE } else { NO_STORE };
    for (encoding, suffix) in [("br", ".br"), ("gzip", ".gz")] {
        if accepts(accept_encoding, encoding)
            && let Some(f) = Dist::get(&format!("{name}{suffix}"))
        {
            return Some(Asset {
                body: f.data,
                content_type,
                encoding: Some(encoding),
                cache,
            });
        }
    }
    Dist::get(name).map(|f| Asset {
        body: f.data,
        content_type,
        encoding: None,
        cache,
    })
}

const NO_STORE: &str = "no-store";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The type of a file the app is built of; None for anything else.
fn content_type(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.')?.1;
    Some(match ext {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" => "application/json",
        _ => return None,
    })
}

/// True for Trunk's content-hashed names (`main-<hex>.css`,
/// `kubeglass-<hex>_bg.wasm`): they never change, so they may be cached
/// for good. index.html names them and is never cached. The hash is a u64
/// written without leading zeros, so it is 16 hex digits or fewer (CI saw a
/// build named `kubeglass-b3135f02f362caf`, 15).
fn is_hashed(name: &str) -> bool {
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-').is_some_and(|(_, hash)| {
        (8..=16).contains(&hash.len()) && hash.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// True when `accept_encoding` takes `coding` (and not with `q=0`).
fn accepts(accept_encoding: Option<&str>, coding: &str) -> bool {
    accept_encoding.is_some_and(|a| {
        a.split(',').any(|part| {
            let mut it = part.split(';').map(str::trim);
            let name = it.next().unwrap_or("");
            let refused = it.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            });
            name.eq_ignore_ascii_case(coding) && !refused
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names_are_immutable_and_the_rest_are_not() {
        assert!(is_hashed("kubeglass-61be01d306410230_bg.wasm"));
        assert!(is_hashed("kubeglass-61be01d306410230.js"));
        assert!(is_hashed("main-fcfa15f98391bda9.css"));
        assert!(is_hashed("kubeglass-b3135f02f362caf_bg.wasm"), "15 digits");
        assert!(!is_hashed("index.html"));
        assert!(!is_hashed("kubeglass-context.json"));
        assert!(!is_hashed("main-fcfa15f98391bdz9.css"));
    }

    #[test]
    fn accept_encoding_is_read_as_browsers_send_it() {
        let chrome = Some("gzip, deflate, br, zstd");
        assert!(accepts(chrome, "br"));
        assert!(accepts(chrome, "gzip"));
        assert!(!accepts(Some("gzip;q=1.0, br;q=0"), "br"));
        assert!(accepts(Some("gzip;q=1.0, br;q=0"), "gzip"));
        assert!(!accepts(Some("identity"), "gzip"));
        assert!(!accepts(None, "gzip"));
        assert!(!accepts(Some("brotli"), "br"));
    }

    #[test]
    fn only_the_apps_own_kinds_of_file_have_a_type() {
        assert_eq!(content_type("x_bg.wasm"), Some("application/wasm"));
        assert_eq!(content_type("index.html"), Some("text/html; charset=utf-8"));
        assert_eq!(content_type("Cargo.toml"), None);
        assert_eq!(content_type("noext"), None);
    }

    #[test]
    fn the_session_is_the_launchers_and_never_cached() {
        let a = get(SESSION_FILE, Some("br"), "{\"context\":\"x\"}").expect("session");
        assert_eq!(a.body.as_ref(), b"{\"context\":\"x\"}");
        assert_eq!(a.cache, "no-store");
        assert_eq!(a.encoding, None);
        assert!(get("csp.txt", None, "").is_none());
    }
}
