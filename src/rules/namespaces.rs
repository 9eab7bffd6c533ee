//! Which namespace the app works in: remembered, else the launcher's context namespace, else all; and the choices the menu offers.

use std::collections::BTreeSet;

use kubeglass_client::names::validate_namespace;

/// The namespace the app opens in: the one remembered (an empty string
/// remembers "all namespaces"), else the context's namespace from the
/// launcher, else all (None). Names that could not be part of a request
/// path are ignored.
pub fn initial_namespace(remembered: Option<&str>, context: Option<&str>) -> Option<String> {
    let valid = |n: &&str| validate_namespace(n).is_ok();
    match remembered {
        Some("") => None,
        Some(n) if valid(&n) => Some(n.to_string()),
        _ => context.filter(valid).map(str::to_string),
    }
}

/// What remembering `choice` stores (the empty string for all namespaces).
pub fn remembered(choice: Option<&str>) -> String {
    choice.unwrap_or_default().to_string()
}

/// Reads a namespace a person typed: trimmed, empty for all namespaces,
/// or why it cannot be one.
pub fn typed_namespace(text: &str) -> Result<Option<String>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    validate_namespace(t)
        .map(|()| Some(t.to_string()))
        .map_err(|e| e.to_string())
}

/// The menu's choices, sorted: the namespaces listed, the current one and
/// the context's, even when they cannot be listed.
pub fn choices<'a>(
    listed: impl IntoIterator<Item = &'a str>,
    current: Option<&str>,
    context: Option<&str>,
) -> Vec<String> {
    let mut all: BTreeSet<String> = listed.into_iter().map(str::to_string).collect();
    all.extend(current.map(str::to_string));
    all.extend(context.map(str::to_string));
    all.retain(|n| validate_namespace(n).is_ok());
    all.into_iter().collect()
}

/// "in demo-shop", "in all namespaces".
pub fn scope_label(namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("in {ns}"),
        None => "in all namespaces".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_then_context_then_all() {
        assert_eq!(
            initial_namespace(Some("shop"), Some("ctx")),
            Some("shop".into())
        );
        assert_eq!(
            initial_namespace(Some(""), Some("ctx")),
            None,
            "all, remembered"
        );
        assert_eq!(initial_namespace(None, Some("ctx")), Some("ctx".into()));
        assert_eq!(
            initial_namespace(Some("../x"), Some("ctx")),
            Some("ctx".into())
        );
        assert_eq!(initial_namespace(None, Some("Bad Name")), None);
        assert_eq!(initial_namespace(None, None), None);
        assert_eq!(remembered(None), "");
    }

    #[test]
    fn typed_names_are_checked_and_choices_merged() {
        assert_eq!(typed_namespace(" demo-shop "), Ok(Some("demo-shop".into())));
        assert_eq!(typed_namespace(""), Ok(None));
        assert!(typed_namespace("a/b").is_err());
        assert_eq!(
            choices(["b", "a"], Some("typed"), Some("ctx")),
            ["a", "b", "ctx", "typed"]
        );
        assert_eq!(choices(["a", "../x"], Some("a"), None), ["a"]);
        assert_eq!(scope_label(Some("x")), "in x");
    }
}
