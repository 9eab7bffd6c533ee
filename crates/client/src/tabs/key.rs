//! Which watch requests may be shared, and the key they are shared under.

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
/// (`watch` too: every one of them says it.)
const PER_REQUEST: [&str; 4] = [
    "watch",
    "resourceVersion",
    "timeoutSeconds",
    "allowWatchBookmarks",
];

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
        let asked = match same.is_empty() {
            true => request.uri().path().to_owned(),
            false => format!("{}?{}", request.uri().path(), same.join("&")),
        };
        let form = if accept.contains("as=Table") {
            " (Table rows)"
        } else if accept.contains("as=PartialObjectMetadata") {
            " (metadata)"
        } else {
            ""
        };
        Some(Key {
            // The names of the channel and the lock: what is asked, in
            // full (both take any text), so two watches never share one.
            channel: format!("kubeglass-watch {asked}\n{accept}"),
            what: format!("{asked}{form}"),
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
    let mut again = crate::rest::retry::copy_request(request);
    if let Ok(u) = format!("{}?{}", uri.path(), query.join("&")).parse() {
        *again.uri_mut() = u;
    }
    again
}
