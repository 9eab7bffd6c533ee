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

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::Error;
use crate::names::percent_decode;
use crate::transport::Request;

/// Marks a request as a person's explicit request to read a Secret's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reveal;

/// True when `path` addresses core secrets: `/api/v1/secrets`,
/// `/api/v1/namespaces/<ns>/secrets`, the old watch forms
/// `/api/v1/watch/[namespaces/<ns>/]secrets`, or anything below any of them.
/// Segments are compared percent-decoded, as the apiserver reads them
/// (`secre%74s` is `secrets`), and empty segments are ignored.
pub fn is_secrets_path(path: &str) -> bool {
    let segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect();
    let mut segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    if segs.get(2) == Some(&"watch") && segs.first() == Some(&"api") {
        segs.remove(2);
    }
    matches!(
        segs.as_slice(),
        ["api", _, "secrets", ..] | ["api", _, "namespaces", _, "secrets", ..]
    )
}

/// One media range of an `Accept` header: its type and parameters, and
/// whether its `q` is above zero (a `q=0` range is "not acceptable").
struct MediaRange<'a> {
    mime: &'a str,
    params: Vec<(String, &'a str)>,
    wanted: bool,
}

fn media_ranges(accept: &str) -> Vec<MediaRange<'_>> {
    accept
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|entry| {
            let mut parts = entry.split(';').map(str::trim);
            let mime = parts.next().unwrap_or("");
            let params: Vec<(String, &str)> = parts
                .filter_map(|p| p.split_once('='))
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().trim_matches('"')))
                .collect();
            let wanted = params
                .iter()
                .find(|(k, _)| k == "q")
                .is_none_or(|(_, q)| q.parse::<f32>().map_or(true, |q| q > 0.0));
            MediaRange {
                mime,
                params,
                wanted,
            }
        })
        .collect()
}

impl MediaRange<'_> {
    fn param(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    /// The server-side conversion this range asks for (`PartialObjectMetadata`,
    /// `Table`, …) from `meta.k8s.io`, if any.
    fn conversion(&self) -> Option<&str> {
        (self.param("g") == Some("meta.k8s.io"))
            .then(|| self.param("as"))
            .flatten()
    }
}

/// True when every range the request accepts asks for metadata, or for a
/// Table without objects; a request with no `Accept` gets the whole object,
/// and so does any plain fallback (`application/json` after a metadata
/// range), because the server may pick it.
fn data_free(request: &Request) -> bool {
    let Some(accept) = request
        .headers()
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let ranges: Vec<MediaRange> = media_ranges(accept)
        .into_iter()
        .filter(|r| r.wanted)
        .collect();
    if ranges.is_empty() {
        return false;
    }
    let whole_objects = request
        .uri()
        .query()
        .unwrap_or("")
        .split('&')
        .any(|p| percent_decode(p) == "includeObject=Object");
    ranges.iter().all(|r| {
        r.mime == "application/json"
            && match r.conversion() {
                Some("PartialObjectMetadata" | "PartialObjectMetadataList") => true,
                Some("Table") => !whole_objects,
                _ => false,
            }
    })
}

/// The annotation `kubectl apply` writes: the whole manifest as last applied,
/// which for a Secret means its `data` too.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Removes from a Secret's metadata what can hold its data
/// ([`LAST_APPLIED`]), so a metadata-only read of a Secret holds no values.
/// Metadata reads bring annotations back, and `kubectl apply` keeps the whole
/// manifest in one, so every cache of Secret metadata applies this.
pub fn redact_metadata(meta: &mut ObjectMeta) {
    if let Some(a) = meta.annotations.as_mut() {
        a.remove(LAST_APPLIED);
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
    fn every_acceptable_range_must_be_data_free() {
        let path = "/api/v1/namespaces/shop/secrets/db";
        let meta = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";
        // A metadata first choice with a plain fallback: the server may pick the fallback.
        for accept in [
            format!("{meta},application/json"),
            format!("{meta};q=0,application/json"),
            format!("{meta}, */*"),
            // The conversion must come from meta.k8s.io.
            "application/json;as=PartialObjectMetadata;v=v1;g=other.example".to_string(),
            "application/json;as=Secret".to_string(),
            // Only refused ranges is no acceptable range at all.
            format!("{meta};q=0"),
            String::new(),
        ] {
            assert!(
                check(&req("GET", path, Some(&accept))).is_err(),
                "{accept:?}"
            );
        }
        // Refused plain JSON (q=0) next to metadata is still data-free,
        // and so are two data-free choices.
        for accept in [
            format!("application/json;q=0,{meta}"),
            format!("{meta}, application/json;as=Table;v=v1;g=meta.k8s.io"),
            format!("{meta};q=0.5"),
        ] {
            assert!(
                check(&req("GET", path, Some(&accept))).is_ok(),
                "{accept:?}"
            );
        }
        assert!(
            check(&req(
                "GET",
                "/api/v1/secrets?includeObject=Objec%74",
                Some(TABLE_ONLY_ACCEPT)
            ))
            .is_err(),
            "the query is read decoded too"
        );
    }

    #[test]
    fn redaction_removes_the_last_applied_manifest_only() {
        let mut meta = ObjectMeta {
            annotations: Some(
                [
                    (
                        LAST_APPLIED.to_string(),
                        r#"{"data":{"k":"c2VjcmV0"}}"#.to_string(),
                    ),
                    ("team".to_string(), "shop".to_string()),
                ]
                .into(),
            ),
            ..ObjectMeta::default()
        };
        redact_metadata(&mut meta);
        let a = meta.annotations.expect("annotations");
        assert!(!a.contains_key(LAST_APPLIED));
        assert_eq!(a.get("team").map(String::as_str), Some("shop"));
    }

    #[test]
    fn a_reveal_passes() {
        let mut r = req("GET", "/api/v1/namespaces/shop/secrets/db", None);
        r.extensions_mut().insert(Reveal);
        assert!(check(&r).is_ok());
    }
}
