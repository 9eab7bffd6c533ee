//! Discovery: which API groups, versions and resources the server offers, a RESTMapper over them, and a cache.
//!
//! [`DiscoveryClient::fetch`] asks `/api` and `/apis` for aggregated discovery
//! (`apidiscovery.k8s.io/v2`, two requests for everything) and falls back to
//! the legacy documents (`APIVersions`, `APIGroupList`, then one
//! `APIResourceList` per group version) when the server answers with those.
//! [`RestMapper`] resolves what a person types (`po`, `deploy`,
//! `deployments.apps`, `db`, a category such as `all`) to resources.
//! [`CachedDiscovery`] keeps the result in a key-value store for 10 minutes,
//! like kubectl's `~/.kube/cache`.
//!
//! # What it does
//!
//! Discovery asks `/api` and `/apis` for aggregated discovery (v2) and falls
//! back to the legacy documents. The RESTMapper resolves plural, singular,
//! short and kind names, `name.group` and `name.version.group`, categories and
//! kinds, preferring each group's preferred version and the server's group
//! order. In aggregated discovery the preferred version is the first version
//! that is not stale, in the server's order, and a stale version is reported
//! as failed and is not one of its group's versions (client-go's
//! `convertAPIGroup`). The cache keeps discovery in `localStorage` for 10 minutes and refetches
//! once when a name is unknown, so a CRD created since shows up without a reload.

mod cache;
mod documents;
mod found;
mod mapper;

pub use cache::{CachedDiscovery, DISCOVERY_TTL, KeyValueStore, MemoryStore};
pub use found::{Discovery, GroupFailure, GroupInfo, ResourceInfo, SubresourceInfo};
pub use mapper::RestMapper;

use kube_core::discovery::v2::ACCEPT_AGGREGATED_DISCOVERY_V2;

use crate::rest::{Error, RestClient};
use documents::{add_aggregated, add_legacy, as_aggregated};

/// Reads discovery from the server.
#[derive(Debug, Clone)]
pub struct DiscoveryClient {
    client: RestClient,
}

fn get(path: &str, accept: &'static str) -> Result<http::Request<Vec<u8>>, Error> {
    http::Request::get(path)
        .header(http::header::ACCEPT, accept)
        .body(Vec::new())
        .map_err(|e| Error::Request(e.to_string()))
}

impl DiscoveryClient {
    /// Discovery through `client`.
    pub fn new(client: RestClient) -> Self {
        Self { client }
    }

    /// Fetches everything: aggregated when the server offers it, legacy otherwise.
    pub async fn fetch(&self) -> Result<Discovery, Error> {
        let core = self
            .client
            .send_raw(get("/api", ACCEPT_AGGREGATED_DISCOVERY_V2)?)
            .await?;
        let apis = self
            .client
            .send_raw(get("/apis", ACCEPT_AGGREGATED_DISCOVERY_V2)?)
            .await?;
        if let (Some(core), Some(apis)) = (as_aggregated(&core), as_aggregated(&apis)) {
            let mut d = Discovery {
                aggregated: true,
                ..Default::default()
            };
            for list in [core, apis] {
                add_aggregated(&mut d, list);
            }
            d.retain_well_formed();
            self.explain_failures(&mut d).await;
            return Ok(d);
        }
        let mut d = self.fetch_legacy(&core, &apis).await?;
        d.retain_well_formed();
        Ok(d)
    }

    /// Confirms against the server's live discovery that `plural` in
    /// `group`/`version` is the resource of `kind` (and as namespaced as the
    /// caller thinks) before a write relies on that mapping: one GET of the
    /// group version's resource list, never a cached answer. A cache that
    /// was poisoned, or filled by another cluster, cannot turn a write meant
    /// for one kind into a write on another.
    pub async fn confirm(
        &self,
        group: &str,
        version: &str,
        plural: &str,
        kind: &str,
        namespaced: Option<bool>,
    ) -> Result<(), Error> {
        crate::names::validate_group(group)?;
        crate::names::validate_version(version)?;
        crate::names::validate_plural(plural)?;
        let path = if group.is_empty() {
            format!("/api/{version}")
        } else {
            format!("/apis/{group}/{version}")
        };
        let list: k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList = self
            .client
            .send_json(get(&path, "application/json")?)
            .await?;
        let found = list.resources.iter().find(|r| r.name == plural);
        match found {
            Some(r) if r.kind == kind && namespaced.is_none_or(|n| n == r.namespaced) => Ok(()),
            Some(r) => Err(Error::Request(format!(
                "discovery changed: {plural} in {path} is now {} ({}), not {kind}; reload the page",
                r.kind,
                if r.namespaced {
                    "namespaced"
                } else {
                    "cluster-scoped"
                }
            ))),
            None => Err(Error::Request(format!(
                "discovery changed: the server has no {plural} in {path}; reload the page"
            ))),
        }
    }

    /// Puts the APIService's own reason on each failed group version
    /// (`Available=False` with, say, `ServiceNotFound` and its message),
    /// when the person may read APIServices; otherwise the generic reason
    /// stays.
    async fn explain_failures(&self, d: &mut Discovery) {
        for f in &mut d.failed {
            let name = format!("{}.{}", f.version, f.group);
            if crate::names::validate_name(&name).is_err() {
                continue;
            }
            let path = format!("/apis/apiregistration.k8s.io/v1/apiservices/{name}");
            let Ok(request) = get(&path, "application/json") else {
                continue;
            };
            let Ok(service) = self.client.send_json::<serde_json::Value>(request).await else {
                continue;
            };
            let available = service
                .pointer("/status/conditions")
                .and_then(serde_json::Value::as_array)
                .and_then(|cs| {
                    cs.iter().find(|c| {
                        c.get("type").and_then(serde_json::Value::as_str) == Some("Available")
                    })
                });
            if let Some(c) = available
                && c.get("status").and_then(serde_json::Value::as_str) != Some("True")
            {
                let text = |k: &str| {
                    c.get(k)
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or_default()
                };
                f.reason = format!(
                    "its APIService {name} is unavailable ({}): {}",
                    text("reason"),
                    text("message")
                );
            }
        }
    }

    async fn fetch_legacy(&self, core: &[u8], apis: &[u8]) -> Result<Discovery, Error> {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::{APIGroupList, APIVersions};
        let decode = |e: serde_json::Error| Error::Decode(e.to_string());
        let core: APIVersions = serde_json::from_slice(core).map_err(decode)?;
        let apis: APIGroupList = serde_json::from_slice(apis).map_err(decode)?;
        let mut d = Discovery::default();
        let mut groups = vec![GroupInfo {
            name: String::new(),
            preferred_version: core.versions.first().cloned().unwrap_or_default(),
            versions: core.versions.clone(),
        }];
        for g in apis.groups {
            let preferred = g
                .preferred_version
                .map(|p| p.version)
                .or_else(|| g.versions.first().map(|v| v.version.clone()))
                .unwrap_or_default();
            let mut versions: Vec<String> = g.versions.into_iter().map(|v| v.version).collect();
            // Preferred first, the rest in the server's order.
            versions.sort_by_key(|v| v != &preferred);
            groups.push(GroupInfo {
                name: g.name,
                versions,
                preferred_version: preferred,
            });
        }
        for g in &groups {
            if crate::names::validate_group(&g.name).is_err() {
                continue;
            }
            for v in &g.versions {
                if crate::names::validate_version(v).is_err() {
                    continue;
                }
                let path = if g.name.is_empty() {
                    format!("/api/{v}")
                } else {
                    format!("/apis/{}/{v}", g.name)
                };
                // One group version that fails (an aggregated API whose
                // backend is down answers 503) is reported, not fatal.
                let list: Result<
                    k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList,
                    Error,
                > = self.client.send_json(get(&path, "application/json")?).await;
                match list {
                    Ok(list) => add_legacy(&mut d, &g.name, v, *v == g.preferred_version, list),
                    Err(e) if g.name.is_empty() => return Err(e),
                    Err(e) => d.failed.push(GroupFailure {
                        group: g.name.clone(),
                        version: v.clone(),
                        reason: e.to_string(),
                    }),
                }
            }
        }
        d.groups = groups;
        Ok(d)
    }
}
