//! The Secret guard: no request the client sends can fetch a Secret's data unless it is marked as a reveal a person asked for.
//!
//! Every request to the core `secrets` resource (a collection, one object,
//! a watch, or a write whose answer would echo the object) must ask for
//! metadata only (`as=PartialObjectMetadata[List]`) or for a server-side
//! Table without the object (`includeObject` other than `Object`). Anything
//! else is refused with [`Error::SecretData`] before it reaches the
//! transport. The one way through is a request carrying the [`Reveal`]
//! extension, which only [`crate::api::Api::reveal`] adds: the app calls it
//! when a person confirms "Reveal" on a Secret's page, and keeps the answer
//! nowhere but on that page.
//!
//! # The guard, end to end
//!
//! `rest::secrets` is the Secret guard: `RestClient` refuses, before the
//! transport, any request to core `secrets` that asks for more than metadata
//! or a Table without objects, unless it carries the `Reveal` extension that
//! only `Api::reveal` adds. A Secret's object page watches metadata only and
//! reveals on a confirmed click; the values live in that page's signal.
//! Tools keep copies of a Secret, data and all, in its annotations
//! (`kubectl apply`'s last-applied, kapp's `kapp.k14s.io/original`), so
//! every annotation value of a Secret is hidden before any cache:
//! `SharedInformer::new`, where every informer is made, adds
//! `cache::redact_secret_metadata` after whatever transform the view asked
//! for when the path is core Secrets (so a view cannot forget it), and the
//! one-off metadata reads (`Api::get_metadata`, `list_metadata`,
//! `list_table_rows`) do the same; the page shows the keys, and Reveal
//! brings the values with the data. `TableRowObject`'s decoder drops the
//! last-applied annotation from every table row of any kind.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::Error;
use crate::names::percent_decode;
pub use crate::rest::table::LAST_APPLIED;
use crate::rest::table::{METADATA_ACCEPT, METADATA_LIST_ACCEPT, TABLE_ACCEPT, TABLE_ONLY_ACCEPT};
use crate::transport::Request;

/// Marks a request as a person's explicit request to read a Secret's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reveal;

/// True when `path` addresses core secrets: `/api/v1/secrets`,
/// `/api/v1/namespaces/<ns>/secrets`, the old watch forms
/// `/api/v1/watch/[namespaces/<ns>/]secrets`, or anything below any of them.
///
/// The path is read as the apiserver reads it: percent-decoded first (so
/// `secre%74s` is `secrets` and `%2F` is a separator), then split, with
/// empty segments ignored. A browser also treats `\` as a separator and
/// resolves `.` and `..`; no request of ours has either, so a path with a
/// dot segment counts as a Secrets path whatever it names.
pub fn is_secrets_path(path: &str) -> bool {
    let decoded = percent_decode(path);
    let segs: Vec<&str> = decoded
        .split(['/', '\\'])
        .filter(|s| !s.is_empty())
        .collect();
    if segs.iter().any(|s| *s == "." || *s == "..") {
        return true;
    }
    let segs: Vec<&str> = match segs.as_slice() {
        ["api", v, "watch", rest @ ..] => [&["api", *v][..], rest].concat(),
        _ => segs,
    };
    matches!(
        segs.as_slice(),
        ["api", _, "secrets", ..] | ["api", _, "namespaces", _, "secrets", ..]
    )
}

/// The only `Accept` headers a request for Secrets may carry: exactly what
/// the client sends for metadata and for tables without the plain-JSON
/// fallback. An allowlist rather than a parser, because the apiserver's
/// negotiation (exact, case-sensitive parameter names, the last of a
/// repeated parameter, `q=0` handling that differs between versions) is
/// not something a second parser here can be trusted to agree with.
const DATA_FREE_ACCEPT: [&str; 5] = [
    METADATA_ACCEPT,
    METADATA_LIST_ACCEPT,
    TABLE_ONLY_ACCEPT,
    // kube-core's own metadata requests (`list_metadata`, `watch_metadata`,
    // `get_metadata`), with the parameters in its order.
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
];

/// The values of `key` in a query string, keys and values percent-decoded.
fn query_values<'a>(query: &'a str, key: &'a str) -> impl Iterator<Item = String> + 'a {
    query.split('&').filter_map(move |pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(k) == key).then(|| percent_decode(v))
    })
}

/// True when the request's `Accept` is one of [`DATA_FREE_ACCEPT`] and, for
/// a Table, every `includeObject` asks for `None` or `Metadata`.
fn data_free(request: &Request) -> bool {
    let Some(accept) = request
        .headers()
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    if !DATA_FREE_ACCEPT.contains(&accept) {
        return false;
    }
    let query = request.uri().query().unwrap_or("");
    query_values(query, "includeObject").all(|v| v == "None" || v == "Metadata")
}

/// What a Secret's annotation holds in every cache of Secret metadata: its
/// key stays, so a person sees which annotations there are, and its value
/// waits for a Reveal.
pub const HIDDEN_VALUE: &str = "(hidden until Reveal)";

/// Replaces the value of every annotation of a Secret with [`HIDDEN_VALUE`],
/// so a metadata-only read of a Secret holds none of its data. Metadata
/// reads bring annotations back, and tools keep the whole manifest, data and
/// all, in one: `kubectl apply` in [`LAST_APPLIED`], kapp in
/// `kapp.k14s.io/original`, others under names nobody can list. So no value
/// is trusted: every cache of Secret metadata applies this, and the values
/// come only with the Secret a person reveals. Labels stay (they are short,
/// and selectors need them).
pub fn redact_metadata(meta: &mut ObjectMeta) {
    if let Some(a) = meta.annotations.as_mut() {
        for v in a.values_mut() {
            *v = HIDDEN_VALUE.to_string();
        }
    }
}

/// Refuses `request` if it could bring back a Secret's data without a [`Reveal`].
pub fn check(request: &Request) -> Result<(), Error> {
    if is_secrets_path(request.uri().path())
        && !data_free(request)
        && request.extensions().get::<Reveal>().is_none()
    {
        return Err(Error::SecretData(format!(
            "{} {}",
            request.method(),
            request.uri().path()
        )));
    }
    Ok(())
}

/// The table `Accept` header for a request to `path`: [`TABLE_ONLY_ACCEPT`](crate::rest::table::TABLE_ONLY_ACCEPT)
/// for core Secrets, [`TABLE_ACCEPT`](crate::rest::table::TABLE_ACCEPT) for everything else.
pub fn table_accept_for(path: &str) -> &'static str {
    if is_secrets_path(path) {
        TABLE_ONLY_ACCEPT
    } else {
        TABLE_ACCEPT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::table::{
        METADATA_ACCEPT, METADATA_LIST_ACCEPT, TABLE_ACCEPT, TABLE_ONLY_ACCEPT,
    };

    fn req(method: &str, uri: &str, accept: Option<&str>) -> Request {
        let mut b = http::Request::builder().method(method).uri(uri);
        if let Some(a) = accept {
            b = b.header(http::header::ACCEPT, a);
        }
        b.body(Vec::new()).expect("request")
    }

    #[test]
    fn secrets_paths_are_recognised() {
        for p in [
            "/api/v1/secrets",
            "/api/v1/namespaces/shop/secrets",
            "/api/v1/namespaces/shop/secrets/db",
            "/api/v1/namespaces/shop/secre%74s/db",
            "/api//v1/secrets/",
            "/%61pi/v1/secrets",
            "/api/v1/watch/secrets",
            "/api/v1/watch/namespaces/shop/secrets",
            "/api/v1/watch/namespaces/shop/secrets/db",
        ] {
            assert!(is_secrets_path(p), "{p}");
        }
        for p in [
            "/api/v1/namespaces/secrets/configmaps",
            "/api/v1/namespaces/shop/configmaps/secrets",
            "/apis/demo.example/v1/secrets",
            "/api/v1/configmaps",
            "/api/v1/watch/configmaps",
            "/api/v1/watch/namespaces/secrets/configmaps",
        ] {
            assert!(!is_secrets_path(p), "{p}");
        }
    }

    #[test]
    fn whole_secrets_are_refused_and_metadata_or_tables_pass() {
        let path = "/api/v1/namespaces/shop/secrets/db";
        assert!(matches!(
            check(&req("GET", path, None)),
            Err(Error::SecretData(_))
        ));
        assert!(check(&req("GET", path, Some("application/json"))).is_err());
        assert!(check(&req("GET", "/api/v1/secrets?watch=true", None)).is_err());
        assert!(
            check(&req("PATCH", path, None)).is_err(),
            "a write echoes the object"
        );
        assert!(check(&req("GET", path, Some(METADATA_ACCEPT))).is_ok());
        assert!(check(&req("GET", "/api/v1/secrets", Some(METADATA_LIST_ACCEPT))).is_ok());
        assert!(check(&req("PATCH", path, Some(METADATA_ACCEPT))).is_ok());
        assert!(
            check(&req(
                "GET",
                "/api/v1/secrets?includeObject=Metadata",
                Some(TABLE_ONLY_ACCEPT)
            ))
            .is_ok()
        );
        assert!(
            check(&req(
                "GET",
                "/api/v1/secrets?includeObject=Metadata",
                Some(TABLE_ACCEPT)
            ))
            .is_err(),
            "the plain-JSON fallback of other tables would bring the data"
        );
        assert!(
            check(&req(
                "GET",
                "/api/v1/secrets?includeObject=Object",
                Some(TABLE_ONLY_ACCEPT)
            ))
            .is_err()
        );
        // A plain JSON first choice with a metadata fallback is still plain JSON.
        assert!(
            check(&req(
                "GET",
                path,
                Some(
                    "application/json,application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"
                )
            ))
            .is_err()
        );
        assert!(check(&req("GET", "/api/v1/namespaces/shop/configmaps/db", None)).is_ok());
    }

    #[test]
    fn only_the_clients_own_data_free_accept_headers_pass() {
        let path = "/api/v1/namespaces/shop/secrets/db";
        let meta = METADATA_ACCEPT;
        for accept in [
            // A plain fallback the server may pick.
            format!("{meta},application/json"),
            format!("{meta};q=0,application/json"),
            format!("{meta}, */*"),
            format!("application/json;q=0,{meta}"),
            // Parameter names are case-sensitive for the apiserver.
            "application/json;AS=PartialObjectMetadata;V=v1;G=meta.k8s.io".to_string(),
            // A tab before `as` hides the parameter from the server.
            "application/json;\tas=PartialObjectMetadata;v=v1;g=meta.k8s.io".to_string(),
            // The server keeps the last of a repeated parameter.
            format!("{meta};as=Table"),
            // An unknown version is refused by the server, which may then fall back.
            "application/json;as=PartialObjectMetadata;v=v2;g=meta.k8s.io, application/json;q=0"
                .to_string(),
            "application/json;as=PartialObjectMetadata;v=v1;g=other.example".to_string(),
            "application/json;as=Secret".to_string(),
            TABLE_ACCEPT.to_string(),
            String::new(),
        ] {
            assert!(
                check(&req("GET", path, Some(&accept))).is_err(),
                "{accept:?}"
            );
        }
        for accept in [METADATA_ACCEPT, METADATA_LIST_ACCEPT, TABLE_ONLY_ACCEPT] {
            assert!(check(&req("GET", path, Some(accept))).is_ok(), "{accept:?}");
        }
        for query in [
            "includeObject=Object",
            "includeObject=Objec%74",
            "include%4Fbject=Object",
            "includeObject=Metadata&includeObject=Object",
            "includeObject=object",
        ] {
            let uri = format!("/api/v1/secrets?{query}");
            assert!(
                check(&req("GET", &uri, Some(TABLE_ONLY_ACCEPT))).is_err(),
                "{query}"
            );
            assert!(
                check(&req("GET", &uri, Some(METADATA_LIST_ACCEPT))).is_err(),
                "{query}"
            );
        }
        assert!(
            check(&req(
                "GET",
                "/api/v1/secrets?includeObject=None",
                Some(TABLE_ONLY_ACCEPT)
            ))
            .is_ok()
        );
        // The metadata requests kube-core builds, as the reflector sends them.
        use kube_core::params::{GetParams, ListParams, WatchParams};
        let r = kube_core::Request::new("/api/v1/namespaces/shop/secrets");
        for built in [
            r.list_metadata(&ListParams::default()),
            r.watch_metadata(&WatchParams::default(), "0"),
            r.get_metadata("db", &GetParams::default()),
        ] {
            let built = built.expect("a request");
            assert!(check(&built).is_ok(), "{:?}", built.headers());
        }
    }

    #[test]
    fn paths_are_read_as_the_server_and_the_browser_read_them() {
        for p in [
            "/api/v1/namespaces/shop%2Fsecrets",
            "/api/v1%2Fsecrets",
            "/api\\v1\\secrets",
            "/api/v1/namespaces/shop/configmaps/../../shop/secrets/db",
            "/api/v1/namespaces/shop/configmaps/%2e%2e/x",
            "/api/v1/./secrets",
        ] {
            assert!(is_secrets_path(p), "{p}");
        }
    }

    #[test]
    fn redaction_keeps_every_annotation_key_and_no_value() {
        let mut meta = ObjectMeta {
            annotations: Some(
                [
                    (
                        LAST_APPLIED.to_string(),
                        r#"{"data":{"k":"c2VjcmV0"}}"#.to_string(),
                    ),
                    (
                        "kapp.k14s.io/original".to_string(),
                        r#"{"data":{"k":"c2VjcmV0"}}"#.to_string(),
                    ),
                    ("team".to_string(), "shop".to_string()),
                ]
                .into(),
            ),
            labels: Some([("app".to_string(), "db".to_string())].into()),
            ..ObjectMeta::default()
        };
        redact_metadata(&mut meta);
        let a = meta.annotations.expect("annotations");
        assert_eq!(
            a.keys().map(String::as_str).collect::<Vec<_>>(),
            ["kapp.k14s.io/original", LAST_APPLIED, "team"]
        );
        assert!(a.values().all(|v| v == HIDDEN_VALUE), "{a:?}");
        let labels = meta.labels.expect("labels");
        assert_eq!(labels.get("app").map(String::as_str), Some("db"));
        // Nothing to do is fine.
        let mut bare = ObjectMeta::default();
        redact_metadata(&mut bare);
        assert_eq!(bare.annotations, None);
    }

    #[test]
    fn a_reveal_passes() {
        let mut r = req("GET", "/api/v1/namespaces/shop/secrets/db", None);
        r.extensions_mut().insert(Reveal);
        assert!(check(&r).is_ok());
    }
}
