//! What the person may do to one object, asked of the cluster with SelfSubjectAccessReviews; a failure to ask is kept apart from "no".

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_kubectl::access::{AccessQuery, can_i};

use crate::kube::Kube;
use crate::rules::objects::KindActions;
use crate::rules::problem::Problem;

/// What the person may do here.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Allowed {
    /// May delete it.
    pub delete: bool,
    /// May patch it.
    pub patch: bool,
    /// May update its scale.
    pub scale: bool,
    /// May update the object itself (edit).
    pub update: bool,
    /// The cluster could not be asked (not the same as "not allowed").
    pub problem: Option<Problem>,
}

impl Allowed {
    /// True when nothing is allowed.
    pub fn nothing(&self) -> bool {
        !(self.delete || self.patch || self.scale || self.update)
    }
}

/// May the person update this object (a rollback writes it)? False when
/// the cluster could not be asked.
pub async fn may_update(
    kube: &Kube,
    info: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
) -> bool {
    may(kube, "update", info, namespace, name, None)
        .await
        .unwrap_or(false)
}

/// May the person create anything in `namespace`? (The Create page and
/// its link show only then.) False when the cluster could not be asked,
/// and in a read-only session, whose launcher refuses the review.
pub async fn may_create(kube: &Kube, namespace: &str) -> bool {
    kubeglass_kubectl::access::may_create_in(&kube.client, namespace)
        .await
        .unwrap_or(false)
}

/// May the person open a shell in `pod` (`create pods/exec`, as kubectl
/// exec needs)? An error when the cluster could not be asked.
pub async fn may_exec(kube: &Kube, namespace: &str, pod: &str) -> Result<bool, Problem> {
    let query = AccessQuery {
        verb: "create".into(),
        group: String::new(),
        resource: "pods".into(),
        namespace: Some(namespace.to_string()),
        name: Some(pod.to_string()),
        subresource: Some("exec".into()),
    };
    can_i(&kube.client, &query)
        .await
        .map(|a| a.allowed())
        .map_err(|e| Problem::from_error(&e))
}

/// May the person `verb` this object (or its `sub`resource)? An error when
/// the cluster could not be asked, which is not the same as "no".
async fn may(
    kube: &Kube,
    verb: &str,
    info: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
    sub: Option<&str>,
) -> Result<bool, Problem> {
    let query = AccessQuery {
        verb: verb.into(),
        group: info.group.clone(),
        resource: info.plural.clone(),
        namespace: namespace.map(str::to_string),
        name: Some(name.to_string()),
        subresource: sub.map(str::to_string),
    };
    can_i(&kube.client, &query)
        .await
        .map(|a| a.allowed())
        .map_err(|e| Problem::from_error(&e))
}

/// Asks, for each action the kind has, whether the person may use it.
pub async fn allowed_actions(
    kube: &Kube,
    info: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
) -> Allowed {
    let kind = KindActions::of(info);
    let mut problem = None;
    let mut answer = |r: Result<bool, Problem>| {
        r.unwrap_or_else(|e| {
            problem.get_or_insert(e);
            false
        })
    };
    let delete = kind.delete && answer(may(kube, "delete", info, namespace, name, None).await);
    let patch = kind.patch && answer(may(kube, "patch", info, namespace, name, None).await);
    let scale =
        kind.scale && answer(may(kube, "update", info, namespace, name, Some("scale")).await);
    let update = kind.edit && answer(may(kube, "update", info, namespace, name, None).await);
    Allowed {
        delete,
        patch,
        scale,
        update,
        problem,
    }
}

/// The person's own rules in `namespace` (`kubectl auth can-i --list`;
/// `""`: the cluster-wide ones), or why they could not be read.
pub async fn my_rules(
    kube: &Kube,
    namespace: &str,
) -> Result<kubeglass_kubectl::rbac::list::RulesStatus, Problem> {
    kubeglass_kubectl::rbac::list::review(&kube.client, namespace)
        .await
        .map_err(|e| Problem::from_error(&e))
}

/// The RBAC collections who-can reads, cluster-wide: (plural, words).
pub const RBAC_COLLECTIONS: &[&str] = &[
    "roles",
    "rolebindings",
    "clusterroles",
    "clusterrolebindings",
];

/// May the person list and watch every Role, ClusterRole and binding
/// across the cluster (what "who can" needs)? `Ok(None)` when so, else
/// the first `verb resource` not allowed; an error when the cluster could
/// not be asked.
pub async fn rbac_unreadable(kube: &Kube) -> Result<Option<String>, Problem> {
    // The eight reviews go together (each one round trip), and are read
    // in their order: the first refused is the one named.
    let asked: Vec<(&str, &str)> = RBAC_COLLECTIONS
        .iter()
        .flat_map(|r| [("list", *r), ("watch", *r)])
        .collect();
    let answers = futures::future::join_all(asked.iter().map(|(verb, resource)| {
        let query = AccessQuery {
            verb: (*verb).into(),
            group: "rbac.authorization.k8s.io".into(),
            resource: (*resource).into(),
            ..AccessQuery::default()
        };
        async move { can_i(&kube.client, &query).await }
    }))
    .await;
    for ((verb, resource), answer) in asked.iter().zip(answers) {
        let allowed = answer.map_err(|e| Problem::from_error(&e))?;
        if !allowed.allowed() {
            return Ok(Some(format!("{verb} {resource}.rbac.authorization.k8s.io")));
        }
    }
    Ok(None)
}
