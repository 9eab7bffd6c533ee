//! One validation of the names that go into request paths: namespaces, object names, and discovery's groups, versions, plurals and kinds.
//!
//! Every string that reaches a request path comes from a person (a URL, a
//! prompt) or from the cluster (an Event's `involvedObject`, an owner
//! reference, a discovery document), and either may be hostile: a namespace
//! of `prod/secrets/db#` or a name of `%2e%2e` would make a path that points
//! at another object, or at a whole collection. [`crate::api::Api`] and the
//! discovery cache refuse such strings, so no request can be built with one,
//! and the app uses the same checks to decide whether a string may become a
//! link.
//!
//! # Where the checks apply
//!
//! `names` validates namespaces (DNS-1123 labels), object names (no `/ % #
//! ? \`, control characters, `.` or `..`) and discovered groups, versions,
//! plurals and kinds. `Api<K>` built with a bad namespace or resource sends
//! nothing, every verb checks its name, `ResourceInfo::collection_path`
//! returns an error; the app's route parser uses the same checks, and a link
//! built from cluster data that fails them is drawn as text.

/// A path segment or URL component with its `%XX` escapes decoded, as the
/// apiserver and the browser read it; malformed escapes are kept as written,
/// and bytes that are not UTF-8 become U+FFFD.
pub fn percent_decode(s: &str) -> String {
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

/// Why a string cannot be used in a request path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The string is empty.
    #[error("the {what} is empty")]
    Empty {
        /// What was checked ("namespace", "name", …).
        what: &'static str,
    },
    /// Longer than the API allows.
    #[error("the {what} {value:?} is longer than {max} characters")]
    TooLong {
        /// What was checked.
        what: &'static str,
        /// The string as given.
        value: String,
        /// The limit.
        max: usize,
    },
    /// Not a DNS-1123 label (lower-case letters, digits and `-`, starting
    /// and ending with a letter or digit).
    #[error(
        "the {what} {value:?} is not a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit)"
    )]
    NotLabel {
        /// What was checked.
        what: &'static str,
        /// The string as given.
        value: String,
    },
    /// Not a DNS-1123 subdomain (labels joined by `.`).
    #[error("the {what} {value:?} is not a DNS-1123 subdomain")]
    NotSubdomain {
        /// What was checked.
        what: &'static str,
        /// The string as given.
        value: String,
    },
    /// A character that would change the request path or query.
    #[error("the {what} {value:?} contains {found}, which cannot be part of a request path")]
    BadCharacter {
        /// What was checked.
        what: &'static str,
        /// The string as given.
        value: String,
        /// The character, described.
        found: String,
    },
    /// `.` or `..`, which a URL resolves as a path step.
    #[error("the {what} {value:?} is a path step, not a name")]
    PathStep {
        /// What was checked.
        what: &'static str,
        /// The string as given.
        value: String,
    },
    /// Not an API kind (a letter, then letters and digits).
    #[error("the kind {value:?} is not a valid kind name")]
    NotKind {
        /// The string as given.
        value: String,
    },
}

/// A DNS-1123 subdomain: at most 253 characters, dot-separated parts of
/// lower-case letters, digits and `-`, each starting and ending with a
/// letter or digit (how pods, Services and label-key prefixes are named).
pub fn is_subdomain(s: &str) -> bool {
    s.len() <= 253
        && s.split('.').all(|part| {
            let b = part.as_bytes();
            !b.is_empty()
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        })
}

fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// A namespace: a DNS-1123 label of at most 63 characters.
pub fn validate_namespace(ns: &str) -> Result<(), NameError> {
    let what = "namespace";
    if ns.is_empty() {
        return Err(NameError::Empty { what });
    }
    if ns.len() > 63 {
        return Err(NameError::TooLong {
            what,
            value: ns.into(),
            max: 63,
        });
    }
    if !is_label(ns) {
        return Err(NameError::NotLabel {
            what,
            value: ns.into(),
        });
    }
    Ok(())
}

/// An object name as it may appear in a request path: not empty, not `.`
/// or `..`, and free of `/`, `%`, `#`, `?` and control characters. (Each
/// kind has stricter rules of its own, which the server enforces; these are
/// the ones that keep a path pointing where it says.)
pub fn validate_name(name: &str) -> Result<(), NameError> {
    let what = "name";
    if name.is_empty() {
        return Err(NameError::Empty { what });
    }
    if name == "." || name == ".." {
        return Err(NameError::PathStep {
            what,
            value: name.into(),
        });
    }
    if name.len() > 253 {
        return Err(NameError::TooLong {
            what,
            value: name.into(),
            max: 253,
        });
    }
    if let Some(c) = name
        .chars()
        .find(|c| matches!(c, '/' | '%' | '#' | '?' | '\\') || c.is_control())
    {
        let found = if c.is_control() {
            format!("the control character U+{:04X}", c as u32)
        } else {
            format!("'{c}'")
        };
        return Err(NameError::BadCharacter {
            what,
            value: name.into(),
            found,
        });
    }
    Ok(())
}

/// An API group: `""` (the core group) or a DNS-1123 subdomain.
pub fn validate_group(group: &str) -> Result<(), NameError> {
    if group.is_empty() {
        return Ok(());
    }
    if group.len() > 253 || !group.split('.').all(is_label) {
        return Err(NameError::NotSubdomain {
            what: "API group",
            value: group.into(),
        });
    }
    Ok(())
}

/// An API version (`v1`, `v1beta2`, …): a DNS-1123 label.
pub fn validate_version(version: &str) -> Result<(), NameError> {
    if !is_label(version) {
        return Err(NameError::NotLabel {
            what: "API version",
            value: version.into(),
        });
    }
    Ok(())
}

/// A resource's plural name (`deployments`): a DNS-1123 label.
pub fn validate_plural(plural: &str) -> Result<(), NameError> {
    if !is_label(plural) {
        return Err(NameError::NotLabel {
            what: "resource name",
            value: plural.into(),
        });
    }
    Ok(())
}

/// A kind (`Deployment`): an ASCII letter, then ASCII letters and digits.
pub fn validate_kind(kind: &str) -> Result<(), NameError> {
    let mut chars = kind.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric())
        && kind.len() <= 63;
    if !ok {
        return Err(NameError::NotKind { value: kind.into() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_are_dns_labels() {
        for ok in ["default", "demo-shop", "a", "kube-system", "n1"] {
            assert_eq!(validate_namespace(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "prod/secrets/db#",
            "Prod",
            "-x",
            "x-",
            "a.b",
            "%2e%2e",
            "..",
            "a b",
            &"x".repeat(64),
        ] {
            assert!(validate_namespace(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn names_cannot_change_the_path() {
        for ok in [
            "web-1",
            "kube-root-ca.crt",
            "system:controller:deployment",
            "a.b.c",
            "UPPER",
        ] {
            assert_eq!(validate_name(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "a/b",
            "%2e%2e",
            "x#y",
            "x?watch=1",
            "a\\b",
            "a\nb",
            "a\u{7f}",
        ] {
            assert!(validate_name(bad).is_err(), "{bad:?}");
        }
        let e = validate_name("%2e%2e").expect_err("a %").to_string();
        assert!(e.contains("'%'"), "{e}");
    }

    #[test]
    fn discovery_names_are_well_formed() {
        assert!(validate_group("").is_ok());
        assert!(validate_group("apps").is_ok());
        assert!(validate_group("demo.kubeglass.dev").is_ok());
        assert!(validate_group("apps/../../api").is_err());
        assert!(validate_group("a..b").is_err());
        assert!(validate_version("v1beta1").is_ok());
        assert!(validate_version("v1/x").is_err());
        assert!(validate_plural("deployments").is_ok());
        assert!(validate_plural("secrets/x").is_err());
        assert!(validate_plural("").is_err());
        assert!(validate_kind("Deployment").is_ok());
        assert!(validate_kind("1Deployment").is_err());
        assert!(validate_kind("<script>").is_err());
    }
}
