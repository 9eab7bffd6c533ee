//! Which actions a kind offers (scale, restart, cordon, logs), decided from discovery.

use kubeglass_client::discovery::ResourceInfo;

/// The actions an object page may offer for a kind, before RBAC is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KindActions {
    /// `delete` is served.
    pub delete: bool,
    /// `patch` is served (labels; restart and cordon where they apply).
    pub patch: bool,
    /// It has a `scale` subresource.
    pub scale: bool,
    /// A rollout restart applies (Deployments, StatefulSets, DaemonSets).
    pub restart: bool,
    /// Cordon and uncordon apply (nodes).
    pub cordon: bool,
    /// `update` is served and the object can be edited here (not a
    /// Secret: its data is not on the page until revealed).
    pub edit: bool,
}

impl KindActions {
    /// What discovery says `info` supports.
    pub fn of(info: &ResourceInfo) -> Self {
        Self {
            delete: info.supports("delete"),
            patch: info.supports("patch"),
            scale: info.has_subresource("scale"),
            restart: info.group == "apps"
                && matches!(
                    info.plural.as_str(),
                    "deployments" | "statefulsets" | "daemonsets"
                ),
            cordon: info.group.is_empty() && info.plural == "nodes",
            edit: info.supports("update") && !info.is_core_secrets(),
        }
    }
}
