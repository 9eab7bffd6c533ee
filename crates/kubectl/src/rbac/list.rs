//! `kubectl auth can-i --list`: what the person may do in a namespace, from
//! one SelfSubjectRulesReview, broken down to one row per resource (with
//! its group), object name or non-resource URL, and each row's verbs
//! gathered, as kubectl prints them.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::json;

use kubeglass_client::rest::{Error, RestClient};

use super::Rule;
use crate::access::RULES_PATH;

/// A rules review's status.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RulesStatus {
    /// The resource rules (a role's rules, as the review words them).
    #[serde(default)]
    pub resource_rules: Vec<Rule>,
    /// The non-resource rules.
    #[serde(default)]
    pub non_resource_rules: Vec<Rule>,
    /// True when an authorizer could not list its rules (the list may miss
    /// some; each action is still asked of the server).
    #[serde(default)]
    pub incomplete: bool,
    /// Why, when incomplete.
    #[serde(default)]
    pub evaluation_error: Option<String>,
}

#[derive(Deserialize)]
struct RulesReview {
    #[serde(default)]
    status: Option<RulesStatus>,
}

/// Asks the server which rules the person has in `namespace` (a
/// SelfSubjectRulesReview, which every signed-in user may create).
pub async fn review(client: &RestClient, namespace: &str) -> Result<RulesStatus, Error> {
    let body = json!({
        "apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
        "spec": {"namespace": namespace}
    });
    let request = http::Request::post(RULES_PATH)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(body.to_string().into_bytes())
        .map_err(|e| Error::Request(e.to_string()))?;
    let review: RulesReview = client.send_json(request).await?;
    review
        .status
        .ok_or_else(|| Error::Decode("a SelfSubjectRulesReview without a status".into()))
}

/// One row of the list: a resource (as kubectl writes it, `pods`,
/// `deployments.apps`, `*.*`) with an object name or none, or a
/// non-resource URL, and its verbs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Row {
    /// `resource[.group]`, empty for a URL's row.
    pub resource: String,
    /// The object name it is limited to.
    pub name: Option<String>,
    /// The non-resource URL.
    pub url: Option<String>,
    /// The verbs, each once.
    pub verbs: BTreeSet<String>,
}

/// kubectl's way of writing a resource and its group: `pods`,
/// `deployments.apps`, and a subresource after the group,
/// `deployments.apps/scale`.
pub fn resource_words(resource: &str, group: &str) -> String {
    if group.is_empty() {
        return resource.to_string();
    }
    match resource.split_once('/') {
        Some((resource, sub)) => format!("{resource}.{group}/{sub}"),
        None => format!("{resource}.{group}"),
    }
}

/// The rows of `status`: each rule broken down to one row per group and
/// resource (and name), or per URL, rows with the same group, resource and
/// name (or URL) gathered into one with every verb; resource rows first,
/// sorted, then URLs. (kubectl prints a URL's rules apart, one per rule;
/// a grid gathers them.)
pub fn rows(status: &RulesStatus) -> Vec<Row> {
    // Gathered by (group, resource, name) as kubectl compacts them, not by
    // the words: `deployments.apps` in the core group is another row.
    type Key = (String, String, Option<String>, Option<String>);
    let mut by_key: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
    for rule in &status.resource_rules {
        let names: Vec<Option<String>> = if rule.resource_names.is_empty() {
            vec![None]
        } else {
            rule.resource_names.iter().cloned().map(Some).collect()
        };
        for group in &rule.api_groups {
            for resource in &rule.resources {
                for name in &names {
                    let key = (group.clone(), resource.clone(), name.clone(), None);
                    by_key
                        .entry(key)
                        .or_default()
                        .extend(rule.verbs.iter().cloned());
                }
            }
        }
    }
    for rule in &status.non_resource_rules {
        for url in &rule.non_resource_urls {
            let key = (String::new(), String::new(), None, Some(url.clone()));
            by_key
                .entry(key)
                .or_default()
                .extend(rule.verbs.iter().cloned());
        }
    }
    let mut out: Vec<Row> = by_key
        .into_iter()
        .map(|((group, resource, name, url), verbs)| Row {
            resource: if url.is_some() {
                String::new()
            } else {
                resource_words(&resource, &group)
            },
            name,
            url,
            verbs,
        })
        .collect();
    out.sort_by(|a, b| (a.url.is_some(), a).cmp(&(b.url.is_some(), b)));
    out
}

/// The verbs a grid of `rows` has a column for: kubectl's usual verbs in
/// their usual order, then any other verb a row has (`*` first).
pub fn columns(rows: &[Row]) -> Vec<String> {
    const USUAL: &[&str] = &[
        "get",
        "list",
        "watch",
        "create",
        "update",
        "patch",
        "delete",
        "deletecollection",
    ];
    let mut out: Vec<String> = USUAL.iter().map(|v| v.to_string()).collect();
    let others: BTreeSet<&String> = rows
        .iter()
        .flat_map(|r| r.verbs.iter())
        .filter(|v| !USUAL.contains(&v.as_str()))
        .collect();
    out.extend(others.into_iter().cloned());
    out
}

/// Does `row` allow the column's `verb` (by name or by `*`)?
pub fn has(row: &Row, verb: &str) -> bool {
    row.verbs.contains(verb) || row.verbs.contains("*")
}
