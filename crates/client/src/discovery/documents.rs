//! The server's discovery documents, aggregated (`apidiscovery.k8s.io/v2`) or legacy, read into a [`Discovery`].

use kube_core::discovery::v2::APIGroupDiscoveryList;
use serde::Deserialize;

use super::{Discovery, GroupFailure, GroupInfo, ResourceInfo, SubresourceInfo};

/// The aggregated discovery list `body` holds, or `None` for a legacy document.
pub(super) fn as_aggregated(body: &[u8]) -> Option<APIGroupDiscoveryList> {
    #[derive(Deserialize)]
    struct Kind {
        #[serde(default)]
        kind: String,
    }
    let k: Kind = serde_json::from_slice(body).ok()?;
    if k.kind != "APIGroupDiscoveryList" {
        return None;
    }
    serde_json::from_slice(body).ok()
}

/// Adds the groups and resources of one aggregated discovery list.
pub(super) fn add_aggregated(d: &mut Discovery, list: APIGroupDiscoveryList) {
    for g in list.items {
        let name = g.metadata.and_then(|m| m.name).unwrap_or_default();
        // The server lists versions in its order of preference; as in
        // client-go's convertAPIGroup, a stale version is not one of the
        // group's versions, and the preferred one is the first that is not.
        let versions: Vec<String> = g
            .versions
            .iter()
            .filter(|v| v.freshness.as_deref() != Some("Stale"))
            .filter_map(|v| v.version.clone())
            .collect();
        let preferred = versions.first().cloned().unwrap_or_default();
        for v in g.versions {
            let version = v.version.unwrap_or_default();
            // A stale group version: its APIService could not be asked, so
            // what it lists may be long out of date (client-go reports it as
            // failed and leaves its resources out).
            if v.freshness.as_deref() == Some("Stale") {
                d.failed.push(GroupFailure {
                    group: name.clone(),
                    version: version.clone(),
                    reason: "the server could not reach this API (its APIService is unavailable); its discovery document is stale".into(),
                });
                continue;
            }
            for r in v.resources {
                let kind = r
                    .response_kind
                    .as_ref()
                    .and_then(|k| k.kind.clone())
                    .unwrap_or_default();
                d.resources.push(ResourceInfo {
                    group: name.clone(),
                    version: version.clone(),
                    singular: r
                        .singular_resource
                        .clone()
                        .unwrap_or_else(|| kind.to_ascii_lowercase()),
                    kind,
                    plural: r.resource.unwrap_or_default(),
                    short_names: r.short_names,
                    categories: r.categories,
                    namespaced: r.scope.as_deref() == Some("Namespaced"),
                    verbs: r.verbs,
                    subresources: r
                        .subresources
                        .into_iter()
                        .map(|s| SubresourceInfo {
                            name: s.subresource.unwrap_or_default(),
                            kind: s.response_kind.and_then(|k| k.kind).unwrap_or_default(),
                            verbs: s.verbs,
                        })
                        .collect(),
                    preferred: version == preferred,
                });
            }
        }
        d.groups.push(GroupInfo {
            name,
            versions,
            preferred_version: preferred,
        });
    }
}

/// Adds one legacy `APIResourceList` of `group`/`version`, its
/// subresources folded into their parents.
pub(super) fn add_legacy(
    d: &mut Discovery,
    group: &str,
    version: &str,
    preferred: bool,
    list: k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList,
) {
    let start = d.resources.len();
    let mut subs = Vec::new();
    for r in list.resources {
        if let Some((parent, sub)) = r.name.split_once('/') {
            subs.push((
                parent.to_string(),
                SubresourceInfo {
                    name: sub.to_string(),
                    kind: r.kind,
                    verbs: r.verbs,
                },
            ));
            continue;
        }
        d.resources.push(ResourceInfo {
            group: group.to_string(),
            version: version.to_string(),
            singular: if r.singular_name.is_empty() {
                r.kind.to_ascii_lowercase()
            } else {
                r.singular_name
            },
            kind: r.kind,
            plural: r.name,
            short_names: r.short_names.unwrap_or_default(),
            categories: r.categories.unwrap_or_default(),
            namespaced: r.namespaced,
            verbs: r.verbs,
            subresources: Vec::new(),
            preferred,
        });
    }
    for (parent, sub) in subs {
        if let Some(r) = d.resources[start..].iter_mut().find(|r| r.plural == parent) {
            r.subresources.push(sub);
        }
    }
}
