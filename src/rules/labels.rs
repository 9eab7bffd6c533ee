//! Label edits as a person types them (`tier=gold, old-`), checked by apimachinery's rules before anything is sent.
//!
//! A key is a qualified name: an optional DNS-1123 subdomain prefix (at
//! most 253 characters) and `/`, then a name of at most 63 characters that
//! starts and ends with a letter or digit and holds only letters, digits,
//! `-`, `_` and `.` between. A value is empty, or follows the name's rule.

/// One change: set `key` to a value, or remove it (None).
pub type LabelChange = (String, Option<String>);

/// The longest name part of a key, and the longest value.
const MAX_NAME: usize = 63;
/// The longest prefix of a key.
const MAX_PREFIX: usize = 253;

/// Why `name` (a key's name part, or a value) breaks the rule, if it does.
fn name_problem(name: &str) -> Option<String> {
    if name.len() > MAX_NAME {
        return Some(format!("must be at most {MAX_NAME} characters"));
    }
    let b = name.as_bytes();
    let edge = |c: u8| c.is_ascii_alphanumeric();
    if !b.first().copied().is_some_and(edge) || !b.last().copied().is_some_and(edge) {
        return Some("must start and end with a letter or digit".into());
    }
    if !b
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
    {
        return Some("may hold only letters, digits, '-', '_' and '.'".into());
    }
    None
}

/// Why `prefix` is not a DNS-1123 subdomain, if it is not.
fn prefix_problem(prefix: &str) -> Option<String> {
    if prefix.is_empty() || prefix.len() > MAX_PREFIX {
        return Some(format!("its prefix must be 1 to {MAX_PREFIX} characters"));
    }
    (!kubeglass_client::names::is_subdomain(prefix)).then(|| {
        "its prefix must be a DNS subdomain: lowercase letters, digits, '-' and '.'".into()
    })
}

/// Why `key` is not a valid label key, if it is not.
pub fn key_problem(key: &str) -> Option<String> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix.and_then(prefix_problem) {
        return Some(p);
    }
    if name.is_empty() {
        return Some("its name part is empty".into());
    }
    name_problem(name).map(|p| format!("its name part {p}"))
}

/// Why `value` is not a valid label value, if it is not.
pub fn value_problem(value: &str) -> Option<String> {
    if value.is_empty() {
        return None;
    }
    name_problem(value)
}

/// Parses `key=value, other-` into label changes: `key=value` sets (an
/// empty value is allowed), `key-` removes; commas or spaces separate
/// them. Errors say what is wrong with which part.
pub fn parse_label_changes(text: &str) -> Result<Vec<LabelChange>, String> {
    let mut out: Vec<LabelChange> = Vec::new();
    for part in text
        .split([',', ' ', '\t', '\n'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let change = match part.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => match part.strip_suffix('-') {
                Some(k) => (k.to_string(), None),
                None => {
                    return Err(format!(
                        "“{part}”: write key=value to set or key- to remove"
                    ));
                }
            },
        };
        if let Some(p) = key_problem(&change.0) {
            return Err(format!("“{}” is not a valid label key: {p}", change.0));
        }
        if let Some(v) = &change.1
            && let Some(p) = value_problem(v)
        {
            return Err(format!("“{v}” is not a valid label value: it {p}"));
        }
        if out.iter().any(|(k, _)| *k == change.0) {
            return Err(format!("“{}” is changed twice", change.0));
        }
        out.push(change);
    }
    if out.is_empty() {
        return Err("no label changes given".into());
    }
    Ok(out)
}

/// Parses annotation changes, one a line: `key=value` sets (the value is
/// the rest of the line, commas and spaces included; annotation values
/// are free text), `key-` removes. Keys follow the label keys' rule.
pub fn parse_annotation_changes(text: &str) -> Result<Vec<LabelChange>, String> {
    let mut out: Vec<LabelChange> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let change = match line.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), Some(v.to_string())),
            None => match line.strip_suffix('-') {
                Some(k) => (k.to_string(), None),
                None => {
                    return Err(format!(
                        "“{line}”: write key=value to set or key- to remove, one a line"
                    ));
                }
            },
        };
        if let Some(p) = key_problem(&change.0) {
            return Err(format!("“{}” is not a valid annotation key: {p}", change.0));
        }
        if out.iter().any(|(k, _)| *k == change.0) {
            return Err(format!("“{}” is changed twice", change.0));
        }
        out.push(change);
    }
    if out.is_empty() {
        return Err("no annotation changes given".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_and_removals_parse() {
        assert_eq!(
            parse_label_changes("tier=gold, old-  app.kubernetes.io/name=web empty="),
            Ok(vec![
                ("tier".into(), Some("gold".into())),
                ("old".into(), None),
                ("app.kubernetes.io/name".into(), Some("web".into())),
                ("empty".into(), Some(String::new())),
            ])
        );
    }

    #[test]
    fn apimachinery_rules_are_enforced() {
        let bad_keys = [
            "-lead",
            "trail-",
            "_x",
            "a b",
            "/name",
            "prefix/",
            "UPPER.example.com/x",
            "ex_ample.com/x",
            "-ex.com/x",
            "a//b",
            "héllo",
        ];
        for k in bad_keys {
            assert!(key_problem(k).is_some(), "{k:?} accepted");
            assert!(parse_label_changes(&format!("{k}=v")).is_err(), "{k:?}");
        }
        assert!(key_problem(&"a".repeat(63)).is_none());
        assert!(key_problem(&"a".repeat(64)).is_some(), "64-char name");
        assert!(key_problem(&format!("{}/x", "a".repeat(253))).is_none());
        assert!(key_problem(&format!("{}/x", "a".repeat(254))).is_some());
        assert!(key_problem("Mixed_Case.9").is_none(), "names allow case");
        for v in ["-v", "v-", "a/b", "a b", "ü"] {
            assert!(value_problem(v).is_some(), "{v:?} accepted");
        }
        assert!(value_problem(&"v".repeat(64)).is_some());
        assert!(value_problem("v1.2_3-x").is_none());
    }

    #[test]
    fn errors_say_which_part_and_why() {
        let e = parse_label_changes("ok=1, bad").expect_err("no = or -");
        assert!(e.contains("“bad”"), "{e}");
        let e = parse_label_changes("x=-v").expect_err("bad value");
        assert!(e.contains("start and end"), "{e}");
        assert!(
            parse_label_changes("a=1 a-")
                .expect_err("twice")
                .contains("twice")
        );
        assert_eq!(
            parse_label_changes(" , "),
            Err("no label changes given".into())
        );
    }

    #[test]
    fn annotations_take_the_rest_of_the_line_as_their_value() {
        assert_eq!(
            parse_annotation_changes("note=owned by shop, since 2024\n\nold-\nexample.com/x="),
            Ok(vec![
                ("note".into(), Some("owned by shop, since 2024".into())),
                ("old".into(), None),
                ("example.com/x".into(), Some(String::new())),
            ])
        );
        assert!(parse_annotation_changes("Bad Key=1").is_err());
        assert!(parse_annotation_changes("just words").is_err());
        assert!(parse_annotation_changes("a=1\na=2").is_err());
        assert!(parse_annotation_changes("  ").is_err());
    }
}
