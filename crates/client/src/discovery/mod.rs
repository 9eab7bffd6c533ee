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

mod cache;
mod mapper;

pub use cache::{CachedDiscovery, DISCOVERY_TTL, KeyValueStore, MemoryStore};
pub use mapper::RestMapper;

use kube_core::discovery::v2::{ACCEPT_AGGREGATED_DISCOVERY_V2, APIGroupDiscoveryList};
use kube_core::{ApiResource, GroupVersionKind};
use serde::{Deserialize, Serialize};

use crate::rest::{Error, RestClient};

/// A subresource such as `status`, `scale` or `log`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubresourceInfo {
    /// Its name, e.g. `status`.
    pub name: String,
    /// The kind it answers with (e.g. `Scale`), when known.
    pub kind: String,
    /// The verbs it supports.
    pub verbs: Vec<String>,
}

/// One resource in one group version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceInfo {
    /// API group (`""` for the core group).
    pub group: String,
    /// Version, e.g. `v1`.
    pub version: String,
    /// Kind, e.g. `Deployment`.
    pub kind: String,
    /// Plural resource name used in URLs, e.g. `deployments`.
    pub plural: String,
    /// Singular name, e.g. `deployment`.
    pub singular: String,
    /// Short names, e.g. `deploy`.
    pub short_names: Vec<String>,
    /// Categories, e.g. `all`.
    pub categories: Vec<String>,
    /// Namespaced (true) or cluster-scoped.
    pub namespaced: bool,
    /// Verbs the resource supports.
    pub verbs: Vec<String>,
    /// Its subresources.
    pub subresources: Vec<SubresourceInfo>,
    /// True when `version` is the group's preferred version.
    pub preferred: bool,
}

impl ResourceInfo {
    /// Checks that group, version, plural and kind are well formed, so the
    /// paths built from them point where they say.
    pub fn validate(&self) -> Result<(), crate::names::NameError> {
        crate::names::validate_group(&self.group)?;
        crate::names::validate_version(&self.version)?;
        crate::names::validate_plural(&self.plural)?;
        crate::names::validate_kind(&self.kind)
    }

    /// The collection path of this resource, in `namespace` when given and
    /// the resource is namespaced; fails on a namespace (or a discovered
    /// name) that cannot be part of a path.
    pub fn collection_path(
        &self,
        namespace: Option<&str>,
    ) -> Result<String, crate::names::NameError> {
        self.validate()?;
        let base = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match namespace {
            Some(ns) if self.namespaced => {
                crate::names::validate_namespace(ns)?;
                Ok(format!("{base}/namespaces/{ns}/{}", self.plural))
            }
            _ => Ok(format!("{base}/{}", self.plural)),
        }
    }

    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// What `Api::dynamic` needs to address this resource.
    pub fn api_resource(&self) -> ApiResource {
        ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk(&self.group, &self.version, &self.kind),
            &self.plural,
        )
    }

    /// True when the resource supports `verb`.
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    /// True for core `secrets`, whose data is fetched only when a person
    /// asks: the resource whose collection path
    /// [`crate::rest::secrets::is_secrets_path`] guards (one rule, read
    /// from the path there and from discovery here).
    pub fn is_core_secrets(&self) -> bool {
        self.collection_path(None)
            .is_ok_and(|p| crate::rest::secrets::is_secrets_path(&p))
    }

    /// True when the resource has the subresource `name`.
    pub fn has_subresource(&self, name: &str) -> bool {
        self.subresources.iter().any(|s| s.name == name)
    }

    /// `plural.group` (just `plural` for the core group), kubectl's fully qualified name.
    pub fn qualified_name(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

/// One API group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupInfo {
    /// Group name (`""` for core).
    pub name: String,
    /// Versions, preferred first.
    pub versions: Vec<String>,
    /// The preferred version.
    pub preferred_version: String,
}

/// A group version whose discovery failed while the rest loaded (client-go's
/// `ErrGroupDiscoveryFailed` entries): typically an aggregated API whose
/// backend is down.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupFailure {
    /// The API group.
    pub group: String,
    /// The version.
    pub version: String,
    /// What the server said, for a person.
    pub reason: String,
}

/// Everything discovery found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Discovery {
    /// Groups in the server's priority order, core first.
    pub groups: Vec<GroupInfo>,
    /// Resources of every group version (subresources folded into their parent).
    pub resources: Vec<ResourceInfo>,
    /// True when the server answered with aggregated discovery.
    pub aggregated: bool,
    /// Group versions that could not be discovered; their resources are
    /// missing, everything else is here.
    #[serde(default)]
    pub failed: Vec<GroupFailure>,
}

impl Discovery {
    /// Checks every group and resource (see [`ResourceInfo::validate`]).
    pub fn validate(&self) -> Result<(), crate::names::NameError> {
        for g in &self.groups {
            crate::names::validate_group(&g.name)?;
            for v in &g.versions {
                crate::names::validate_version(v)?;
            }
        }
        self.resources.iter().try_for_each(ResourceInfo::validate)
    }

    /// Drops the groups, versions and resources a server sent with names
    /// that cannot be part of a path (a hostile or broken server).
    fn retain_well_formed(&mut self) {
        use crate::names::{validate_group, validate_version};
        self.groups.retain(|g| validate_group(&g.name).is_ok());
        for g in &mut self.groups {
            g.versions.retain(|v| validate_version(v).is_ok());
        }
        self.resources.retain(|r| r.validate().is_ok());
    }

    /// Resources of one group version (`ServerResourcesForGroupVersion`).
    pub fn resources_for(&self, group: &str, version: &str) -> Vec<&ResourceInfo> {
        self.resources
            .iter()
            .filter(|r| r.group == group && r.version == version)
            .collect()
    }

    /// Each resource in its group's preferred version (`ServerPreferredResources`).
    pub fn preferred_resources(&self) -> Vec<&ResourceInfo> {
        self.resources.iter().filter(|r| r.preferred).collect()
    }

    /// A RESTMapper over this discovery.
    pub fn mapper(&self) -> RestMapper<'_> {
        RestMapper::new(self)
    }
}

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

fn as_aggregated(body: &[u8]) -> Option<APIGroupDiscoveryList> {
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

fn add_aggregated(d: &mut Discovery, list: APIGroupDiscoveryList) {
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

fn add_legacy(
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
