//! The RESTMapper: resolves names people type to resources, and kinds to resources.

use super::{Discovery, ResourceInfo};

/// Resolves `po`, `pods`, `pod`, `Pod`, `deploy`, `deployments.apps`,
/// `deployments.v1.apps` or `db` to a resource, preferring each group's
/// preferred version and the server's group order (core first).
#[derive(Debug, Clone, Copy)]
pub struct RestMapper<'a> {
    discovery: &'a Discovery,
}

impl<'a> RestMapper<'a> {
    /// A mapper over `discovery`.
    pub fn new(discovery: &'a Discovery) -> Self {
        Self { discovery }
    }

    fn group_rank(&self, group: &str) -> usize {
        self.discovery
            .groups
            .iter()
            .position(|g| g.name == group)
            .unwrap_or(usize::MAX)
    }

    /// The best match among `candidates`: preferred versions first, then group order.
    fn best(&self, candidates: impl Iterator<Item = &'a ResourceInfo>) -> Option<&'a ResourceInfo> {
        candidates.min_by_key(|r| (!r.preferred, self.group_rank(&r.group)))
    }

    /// Resolves what a person typed to one resource.
    pub fn resource_for(&self, query: &str) -> Option<&'a ResourceInfo> {
        let q = query.trim().to_ascii_lowercase();
        if q.is_empty() {
            return None;
        }
        let names_match = |r: &ResourceInfo, name: &str| {
            r.plural == name
                || r.singular == name
                || r.kind.eq_ignore_ascii_case(name)
                || r.short_names.iter().any(|s| s == name)
        };
        // A plain name first: `pods`, `po`, `deploy`.
        if let Some(r) = self.best(
            self.discovery
                .resources
                .iter()
                .filter(|r| names_match(r, &q)),
        ) {
            return Some(r);
        }
        // `name.group` or `name.version.group`.
        let (name, rest) = q.split_once('.')?;
        let by_group = self.best(
            self.discovery
                .resources
                .iter()
                .filter(|r| r.group == rest && names_match(r, name)),
        );
        if by_group.is_some() {
            return by_group;
        }
        let (version, group) = rest.split_once('.')?;
        self.discovery
            .resources
            .iter()
            .find(|r| r.group == group && r.version == version && names_match(r, name))
    }

    /// The resource serving `kind` in `group` (preferred version first), or in
    /// exactly `version` when given.
    pub fn resource_for_kind(
        &self,
        group: &str,
        version: Option<&str>,
        kind: &str,
    ) -> Option<&'a ResourceInfo> {
        self.best(self.discovery.resources.iter().filter(|r| {
            r.group == group && r.kind == kind && version.is_none_or(|v| r.version == v)
        }))
    }

    /// The kind served at `group/version/plural`.
    pub fn kind_for(&self, group: &str, version: &str, plural: &str) -> Option<&'a str> {
        self.discovery
            .resources
            .iter()
            .find(|r| r.group == group && r.version == version && r.plural == plural)
            .map(|r| r.kind.as_str())
    }

    /// Every resource (preferred versions) in `category`, e.g. `all`.
    pub fn category(&self, category: &str) -> Vec<&'a ResourceInfo> {
        self.discovery
            .resources
            .iter()
            .filter(|r| r.preferred && r.categories.iter().any(|c| c == category))
            .collect()
    }
}
