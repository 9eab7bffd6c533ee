//! Which watch requests may be shared, and the key they are shared under.

use sha2::{Digest, Sha256};

use crate::transport::Request;

/// What a shareable watch request asks for.
pub(super) struct Key {
    /// The bus channel and lock name.
    pub(super) channel: String,
    /// For the X-ray page.
    pub(super) what: String,
    /// The version it watches from, if a number.
    pub(super) from: Option<u64>,
}

/// Query parameters that differ between two requests for the same events.
const PER_REQUEST: [&str; 3] = ["resourceVersion", "timeoutSeconds", "allowWatchBookmarks"];

impl Key {
    /// The key of a watch that may be shared; None for any other request
    /// (not a GET watch, a streaming list).
    pub(super) fn of(request: &Request) -> Option<Key> {
        if request.method() != http::Method::GET {
            return None;
        }
        let mut same = Vec::new();
        let (mut watch, mut from) = (false, None);
        for (k, v) in query_pairs(request.uri().query().unwrap_or("")) {
            match k.as_str() {
                "watch" => watch = v == "1" || v == "true",
                "sendInitialEvents" => return None,
                "resourceVersion" => from = Some(v.clone()),
                _ => {}
            }
            if !PER_REQUEST.contains(&k.as_str()) {
                same.push(format!("{k}={v}"));
            }
        }
        if !watch {
            return None;
        }
        same.sort();
        let accept = request
            .headers()
            .get(http::header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let asked = format!("{}?{}", request.uri().path(), same.join("&"));
        let digest = Sha256::digest(format!("{asked}\n{accept}").as_bytes());
        // Shown without `watch=true`, which every one of them says.
        let what = asked.replace("?watch=true&", "?").replace("?watch=1&", "?");
        let what = what
            .strip_suffix("?watch=true")
            .or_else(|| what.strip_suffix("?watch=1"))
            .unwrap_or(&what)
            .to_owned();
        let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
        let form = if accept.contains("as=Table") {
            " (Table rows)"
        } else if accept.contains("as=PartialObjectMetadata") {
            " (metadata)"
        } else {
            ""
        };
        Some(Key {
            channel: format!("kubeglass-watch-{hex}"),
            what: format!("{what}{form}"),
            from: from.and_then(|v| v.parse().ok()),
        })
    }
}

/// The query's pairs, percent-decoding left as it is (only compared).
fn query_pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query.split('&').filter(|p| !p.is_empty()).map(|p| {
        let (k, v) = p.split_once('=').unwrap_or((p, ""));
        (k.to_owned(), v.to_owned())
    })
}

/// `request` again, watching from `rv`.
pub(super) fn from_version(request: &Request, rv: u64) -> Request {
    let uri = request.uri();
    let mut query: Vec<String> = query_pairs(uri.query().unwrap_or(""))
        .filter(|(k, _)| k != "resourceVersion")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    query.push(format!("resourceVersion={rv}"));
    let mut again = http::Request::builder()
        .method(request.method().clone())
        .uri(format!("{}?{}", uri.path(), query.join("&")))
        .body(request.body().clone())
        .expect("a request rebuilt from a valid one");
    *again.headers_mut() = request.headers().clone();
    again
}
