//! The command palette's rules: what a typed line asks for, the built-in words, and which resources to suggest first.

use kubeglass_client::discovery::ResourceInfo;

/// A page the palette knows by a word of its own, not from discovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `:events`, `:ev`.
    Events,
    /// `:changes`, `:timeline`.
    Changes,
    /// `:create`, `:new`.
    Create,
    /// `:top`, `:metrics`.
    Top,
    /// `:api`, `:api-resources`.
    Api,
    /// `:xray`.
    Xray,
    /// `:overview`, `:home`, `:q`.
    Overview,
    /// `:crd`, `:crds`: the CustomResourceDefinitions table.
    Crds,
}

/// The built-in page a (lowercased) word names, if any.
pub fn builtin(word: &str) -> Option<Builtin> {
    match word {
        "events" | "ev" | "event" => Some(Builtin::Events),
        "changes" | "timeline" => Some(Builtin::Changes),
        "create" | "new" => Some(Builtin::Create),
        "top" | "metrics" => Some(Builtin::Top),
        "api" | "apis" | "api-resources" => Some(Builtin::Api),
        "xray" | "x-ray" => Some(Builtin::Xray),
        "overview" | "home" | "q" => Some(Builtin::Overview),
        "crd" | "crds" => Some(Builtin::Crds),
        _ => None,
    }
}

/// A typed line: `:deploy kube-system` is the word `deploy` (lowercased:
/// kubectl's names are) and the namespace `kube-system` (as typed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The resource or page asked for.
    pub word: String,
    /// The namespace typed after it.
    pub namespace: Option<String>,
}

/// The command in `line`, or None for a blank one.
pub fn parse(line: &str) -> Option<Command> {
    let mut words = line.trim().trim_start_matches(':').split_whitespace();
    let word = words.next()?.to_lowercase();
    Some(Command {
        word,
        namespace: words.next().map(str::to_string),
    })
}

/// One suggested resource: its qualified name and how it is listed
/// (`deployments (deploy) — apps/v1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// `plural.group`, as a route names it.
    pub name: String,
    /// What the list shows.
    pub label: String,
}

/// Up to eight listable resources (in their preferred version) whose
/// plural, singular, kind or a short name starts with `query`, shortest
/// name first.
pub fn suggestions(resources: &[ResourceInfo], query: &str) -> Vec<Suggestion> {
    let q = query.to_lowercase();
    let mut out: Vec<Suggestion> = resources
        .iter()
        .filter(|r| r.preferred && r.supports("list"))
        .filter(|r| {
            q.is_empty()
                || r.plural.starts_with(&q)
                || r.singular.starts_with(&q)
                || r.kind.to_lowercase().starts_with(&q)
                || r.short_names.iter().any(|s| s.starts_with(&q))
        })
        .map(|r| {
            let short = if r.short_names.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.short_names.join(", "))
            };
            Suggestion {
                name: r.qualified_name(),
                label: format!("{}{short} — {}", r.plural, r.api_version()),
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.len().cmp(&b.name.len()).then(a.name.cmp(&b.name)));
    out.truncate(8);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info(group: &str, plural: &str, kind: &str, short: &[&str], verbs: &[&str]) -> ResourceInfo {
        serde_json::from_value(json!({"group": group, "version": "v1", "plural": plural,
            "singular": plural.trim_end_matches('s'), "kind": kind, "namespaced": true, "verbs": verbs,
            "short_names": short, "categories": [], "subresources": [], "preferred": true}))
        .expect("resource info")
    }

    #[test]
    fn a_line_is_a_word_and_perhaps_a_namespace() {
        assert_eq!(
            parse(" :Deploy kube-system "),
            Some(Command {
                word: "deploy".into(),
                namespace: Some("kube-system".into())
            })
        );
        assert_eq!(
            parse("pods"),
            Some(Command {
                word: "pods".into(),
                namespace: None
            })
        );
        assert_eq!(parse(" : "), None);
        assert_eq!(builtin("ev"), Some(Builtin::Events));
        assert_eq!(builtin("timeline"), Some(Builtin::Changes));
        assert_eq!(builtin("metrics"), Some(Builtin::Top));
        assert_eq!(builtin("crds"), Some(Builtin::Crds));
        assert_eq!(builtin("pods"), None);
    }

    #[test]
    fn suggestions_match_any_name_and_put_the_shortest_first() {
        let all = [
            info("apps", "deployments", "Deployment", &["deploy"], &["list"]),
            info("", "pods", "Pod", &["po"], &["list"]),
            info(
                "demo.kubeglass.dev",
                "databases",
                "Database",
                &["db"],
                &["list"],
            ),
            info("", "bindings", "Binding", &[], &["create"]),
        ];
        let names = |q: &str| {
            suggestions(&all, q)
                .into_iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names("db"), ["databases.demo.kubeglass.dev"]);
        assert_eq!(
            names("DEPLOYMENT"),
            ["deployments.apps"],
            "by kind, any case"
        );
        assert_eq!(names("b"), Vec::<String>::new(), "not listable");
        assert_eq!(names("")[0], "pods", "shortest first");
        assert_eq!(suggestions(&all, "po")[0].label, "pods (po) — v1");
    }
}
