//! What discovery found: groups, resources with their subresources, and the group versions that failed.

use kube_core::{ApiResource, GroupVersionKind};
use serde::{Deserialize, Serialize};

use super::RestMapper;

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
    pub(super) fn retain_well_formed(&mut self) {
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
