//! Whether a resource name a page was given names something it can use: known to the server, with the verbs the page needs.

use kubeglass_client::discovery::ResourceInfo;

use crate::rules::problem::Problem;

/// Why a name did not resolve to something the page can use.
#[derive(Debug, Clone, PartialEq)]
pub enum Unresolved {
    /// Discovery could not be read.
    Failed(Problem),
    /// The server has no such resource.
    Unknown,
    /// It exists, without the verbs the page needs: "secrets cannot be
    /// listed and watched".
    Cannot(String),
}

/// What discovery answered for a name, judged against the `verbs` a page
/// needs.
pub fn usable(
    answer: Result<Option<ResourceInfo>, Problem>,
    verbs: &[&str],
) -> Result<ResourceInfo, Unresolved> {
    let info = answer
        .map_err(Unresolved::Failed)?
        .ok_or(Unresolved::Unknown)?;
    if verbs.iter().all(|v| info.supports(v)) {
        return Ok(info);
    }
    let words: Vec<&str> = verbs
        .iter()
        .map(|v| match *v {
            "list" => "listed",
            "watch" => "watched",
            "get" => "read",
            other => other,
        })
        .collect();
    Err(Unresolved::Cannot(format!(
        "{} cannot be {}",
        info.qualified_name(),
        words.join(" and ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info(verbs: &[&str]) -> ResourceInfo {
        serde_json::from_value(
            json!({"group": "example.com", "version": "v1", "plural": "widgets",
            "singular": "", "kind": "Widget", "namespaced": true, "verbs": verbs,
            "short_names": [], "categories": [], "subresources": [], "preferred": true}),
        )
        .expect("resource info")
    }

    #[test]
    fn a_name_is_usable_only_with_every_verb_the_page_needs() {
        let all = usable(
            Ok(Some(info(&["get", "list", "watch"]))),
            &["list", "watch"],
        );
        assert_eq!(all.map(|i| i.plural), Ok("widgets".to_string()));
        assert_eq!(
            usable(Ok(Some(info(&["get", "list"]))), &["list", "watch"]),
            Err(Unresolved::Cannot(
                "widgets.example.com cannot be listed and watched".into()
            ))
        );
        assert_eq!(usable(Ok(None), &[]), Err(Unresolved::Unknown));
        let down = Problem::Unreachable("refused".into());
        assert_eq!(
            usable(Err(down.clone()), &["list"]),
            Err(Unresolved::Failed(down))
        );
        assert!(usable(Ok(Some(info(&[]))), &[]).is_ok(), "no verbs needed");
    }
}
