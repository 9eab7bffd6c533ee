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

/// One action the kind has and the person may not use: its button's label,
/// its name (`delete`, `scale`…) and why, in RBAC's words: `You may not
/// patch deployments in demo-shop.`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The button's label.
    pub label: &'static str,
    /// The action's name.
    pub action: &'static str,
    /// Why it is not offered.
    pub why: String,
}

/// The actions `kind` has that `may` (delete, patch, scale, update)
/// refuses, for `plural` objects in `namespace`.
pub fn refused(
    kind: &KindActions,
    may: [bool; 4],
    plural: &str,
    namespace: Option<&str>,
) -> Vec<Refused> {
    let [delete, patch, scale, update] = may;
    let why = |verb: &str, what: &str| match namespace {
        Some(ns) => format!("You may not {verb} {what} in {ns}."),
        None => format!("You may not {verb} {what}."),
    };
    let scale_of = format!("{plural}/scale");
    [
        (
            kind.scale && !scale,
            "Scale…",
            "scale",
            why("update", &scale_of),
        ),
        (
            kind.patch && !patch,
            "Labels…",
            "labels",
            why("patch", plural),
        ),
        (kind.edit && !update, "Edit", "edit", why("update", plural)),
        (
            kind.delete && !delete,
            "Delete",
            "delete",
            why("delete", plural),
        ),
    ]
    .into_iter()
    .filter(|(refused, ..)| *refused)
    .map(|(_, label, action, why)| Refused { label, action, why })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refused_action_says_which_verb_rbac_withholds_and_where() {
        let kind = KindActions {
            delete: true,
            patch: true,
            scale: true,
            restart: true,
            cordon: false,
            edit: true,
        };
        let r = refused(
            &kind,
            [false, false, true, false],
            "deployments",
            Some("demo-shop"),
        );
        let said: Vec<(&str, &str)> = r.iter().map(|r| (r.action, r.why.as_str())).collect();
        assert_eq!(
            said,
            vec![
                ("labels", "You may not patch deployments in demo-shop."),
                ("edit", "You may not update deployments in demo-shop."),
                ("delete", "You may not delete deployments in demo-shop."),
            ]
        );
        let nodes = KindActions {
            scale: false,
            ..kind
        };
        assert_eq!(refused(&nodes, [true; 4], "nodes", None), vec![]);
        assert_eq!(
            refused(&nodes, [false, true, true, true], "nodes", None)[0].why,
            "You may not delete nodes."
        );
    }
}
