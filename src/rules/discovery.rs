//! The API page's rules: which resources a search finds, and when discovery is out of date (the CRDs held, by name and resourceVersion, compared delivery by delivery).

use std::collections::BTreeMap;

use kubeglass_client::discovery::ResourceInfo;

use crate::rules::filter::{Filter, Test};

/// True when `r` matches the search, read with the one filter grammar:
/// text is part of its plural, kind or group, or one of its short names or
/// categories exactly; a `/pattern/` (`test`, its compiled form) matches
/// any of them; an empty search matches everything.
pub fn matches_search(r: &ResourceInfo, search: &Filter, test: &Test) -> bool {
    match search {
        Filter::All => true,
        Filter::Text(q) => {
            r.plural.contains(q.as_str())
                || r.kind.to_lowercase().contains(q.as_str())
                || r.group.contains(q.as_str())
                || r.short_names.iter().any(|s| s == q)
                || r.categories.iter().any(|c| c == q)
        }
        Filter::Pattern(_) => [&r.plural, &r.kind, &r.group]
            .into_iter()
            .chain(&r.short_names)
            .chain(&r.categories)
            .any(|s| test(s)),
    }
}

/// The CRDs of the last delivery.
#[derive(Debug, Clone, Default)]
pub struct CrdChanges {
    seen: Option<BTreeMap<String, String>>,
}

impl CrdChanges {
    /// Takes the CRDs held now (name → resourceVersion) and says whether
    /// one was added, removed or changed since the last delivery, so
    /// discovery must be read again. The first delivery is the baseline:
    /// discovery was read just before it.
    pub fn changed(&mut self, now: BTreeMap<String, String>) -> bool {
        let changed = self.seen.as_ref().is_some_and(|before| *before != now);
        self.seen = Some(now);
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crds(items: &[(&str, &str)]) -> BTreeMap<String, String> {
        items
            .iter()
            .map(|(n, rv)| (n.to_string(), rv.to_string()))
            .collect()
    }

    #[test]
    fn a_search_finds_part_of_a_name_or_a_whole_short_name_or_category() {
        let r: ResourceInfo = serde_json::from_value(serde_json::json!({
            "group": "apps", "version": "v1", "plural": "deployments",
            "singular": "deployment", "kind": "Deployment", "namespaced": true,
            "verbs": ["list"], "short_names": ["deploy"], "categories": ["all"],
            "subresources": [], "preferred": true}))
        .expect("resource info");
        let search = |q: &str| {
            let f = Filter::parse(q);
            // A stand-in for the browser's RegExp: `^` anchors, else a literal.
            let test = f
                .test(|p: &str| -> Result<Test, String> {
                    let p = p.to_lowercase();
                    Ok(match p.strip_prefix('^') {
                        Some(start) => {
                            let start = start.to_string();
                            Box::new(move |t: &str| t.to_lowercase().starts_with(&start))
                        }
                        None => Box::new(move |t: &str| t.to_lowercase().contains(&p)),
                    })
                })
                .expect("compiles");
            matches_search(&r, &f, &test)
        };
        for q in [
            "",
            "deploy",
            "Dep",
            "ployment",
            "app",
            "all",
            "/^deploy/",
            "/^app/",
        ] {
            assert!(search(q), "{q:?}");
        }
        assert!(!search("al"), "a category is matched whole");
        assert!(!search("pods"));
        assert!(!search("/^ployment/"));
    }

    #[test]
    fn discovery_is_read_again_when_a_crd_comes_goes_or_changes() {
        let mut c = CrdChanges::default();
        assert!(
            !c.changed(crds(&[("dbs.demo", "1")])),
            "the first delivery is the baseline"
        );
        assert!(!c.changed(crds(&[("dbs.demo", "1")])), "nothing new");
        assert!(
            c.changed(crds(&[("dbs.demo", "1"), ("caches.demo", "2")])),
            "added"
        );
        assert!(
            c.changed(crds(&[("dbs.demo", "3"), ("caches.demo", "2")])),
            "changed"
        );
        assert!(c.changed(crds(&[("caches.demo", "2")])), "removed");
        assert!(!c.changed(crds(&[("caches.demo", "2")])));
    }
}
