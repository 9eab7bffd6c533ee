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

use super::Error;
use crate::transport::Request;

/// Marks a request as a person's explicit request to read a Secret's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reveal;

/// True when `path` addresses core secrets: `/api/v1/secrets`,
/// `/api/v1/namespaces/<ns>/secrets`, or anything below either. Segments are
/// compared percent-decoded, as the apiserver reads them (`secre%74s` is
/// `secrets`), and empty segments are ignored.
pub fn is_secrets_path(path: &str) -> bool {
    let segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect();
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    matches!(
        segs.as_slice(),
        ["api", _, "secrets", ..] | ["api", _, "namespaces", _, "secrets", ..]
    )
}

/// `%XX` escapes decoded; anything malformed is kept as written.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(v) = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// True when the request asks for metadata, or for a Table without objects.
fn data_free(request: &Request) -> bool {
    let accept = request
        .headers()
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let first = accept.split(',').next().unwrap_or("");
    if first.contains("as=PartialObjectMetadata") {
        return true;
    }
    if first.contains("as=Table") {
        let whole_objects = request
            .uri()
            .query()
            .unwrap_or("")
            .split('&')
            .any(|p| p == "includeObject=Object");
        return !whole_objects;
    }
    false
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
    use crate::rest::table::{METADATA_ACCEPT, METADATA_LIST_ACCEPT, TABLE_ACCEPT};

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
        ] {
            assert!(is_secrets_path(p), "{p}");
        }
        for p in [
            "/api/v1/namespaces/secrets/configmaps",
            "/api/v1/namespaces/shop/configmaps/secrets",
            "/apis/demo.example/v1/secrets",
            "/api/v1/configmaps",
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
                Some(TABLE_ACCEPT)
            ))
            .is_ok()
        );
        assert!(
            check(&req(
                "GET",
                "/api/v1/secrets?includeObject=Object",
                Some(TABLE_ACCEPT)
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
    fn a_reveal_passes() {
        let mut r = req("GET", "/api/v1/namespaces/shop/secrets/db", None);
        r.extensions_mut().insert(Reveal);
        assert!(check(&r).is_ok());
    }
}
