//! Who can do what, worked out in the tab: four informers (Roles,
//! ClusterRoles and their bindings, whole objects), a [`Policy`] made from
//! them on each change, and two questions asked of it: "who can `<verb>`
//! `<resource>`" in the header's namespace, and what one subject the
//! bindings name is granted. Each answer names its chain, binding → role
//! (→ the ClusterRole an aggregated rule came from), the binding a link.

use std::collections::BTreeMap;

use kubeglass_client::k8s_openapi::api::rbac::v1 as api;
use kubeglass_kubectl::rbac::{Binding, Policy, Role, RoleKind};
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::subscribe::{cluster_path, watch_problem};
use crate::kube::use_kube;

use super::answers::{SubjectRules, WhoCan};

type Read<T> = RwSignal<BTreeMap<String, Result<T, String>>>;

/// The objects of `read` that could be read, the errors of the others
/// added to `bad`.
fn keep<T: Clone + Send + Sync + 'static>(read: Read<T>, bad: &mut Vec<String>) -> BTreeMap<String, T> {
    read.with(|m| {
        m.iter()
            .filter_map(|(k, r)| match r {
                Ok(v) => Some((k.clone(), v.clone())),
                Err(e) => {
                    bad.push(e.clone());
                    None
                }
            })
            .collect()
    })
}

/// The RBAC objects as a policy, and those that could not be read.
fn policy(roles: Read<Role>, cluster_roles: Read<Role>, bindings: Read<Binding>, cluster_bindings: Read<Binding>) -> (Policy, Vec<String>) {
    let mut bad = Vec::new();
    let policy = Policy {
        roles: keep(roles, &mut bad),
        cluster_roles: keep(cluster_roles, &mut bad),
        role_bindings: keep(bindings, &mut bad),
        cluster_role_bindings: keep(cluster_bindings, &mut bad),
    };
    (policy, bad)
}

/// "Who can" and "what a subject may do", live.
#[component]
pub fn Rbac(namespace: RwSignal<Option<String>>) -> impl IntoView {
    let kube = use_kube();
    let (roles, cluster_roles, bindings, cluster_bindings) =
        (RwSignal::new(BTreeMap::new()), RwSignal::new(BTreeMap::new()), RwSignal::new(BTreeMap::new()), RwSignal::new(BTreeMap::new()));
    let watches = (
        kube.subscribe("rbac-roles", &cluster_path::<api::Role>(&kube))
            .rows(roles, |o| Role::from_object(RoleKind::Role, o)),
        kube.subscribe("rbac-clusterroles", &cluster_path::<api::ClusterRole>(&kube))
            .rows(cluster_roles, |o| Role::from_object(RoleKind::ClusterRole, o)),
        kube.subscribe("rbac-rolebindings", &cluster_path::<api::RoleBinding>(&kube))
            .rows(bindings, Binding::from_object),
        kube.subscribe("rbac-clusterrolebindings", &cluster_path::<api::ClusterRoleBinding>(&kube))
            .rows(cluster_bindings, Binding::from_object),
    );
    let statuses = [watches.0.status(), watches.1.status(), watches.2.status(), watches.3.status()];
    let _watches = StoredValue::new_local(watches);
    let problem = move || statuses.iter().find_map(|s| s.with(watch_problem));
    let synced = move || statuses.iter().all(|s| s.with(|s| s.synced));
    let read = Memo::new(move |_| {
        let (p, bad) = policy(roles, cluster_roles, bindings, cluster_bindings);
        (std::sync::Arc::new(p), bad)
    });
    let policy = Signal::derive(move || read.with(|r| r.0.clone()));
    view! {
        {move || problem().map(|problem| view! {
            <ProblemBox problem doing="list roles and bindings".to_string() testid="rbac-problem"/>
        })}
        {move || (!synced()).then(|| view! { <p class="muted" data-testid="rbac-loading">"reading roles and bindings…"</p> })}
        {move || read.with(|r| (!r.1.is_empty()).then(|| view! {
            <p class="muted small" role="alert" data-testid="rbac-unread">
                {format!("{} RBAC objects could not be read and are left out: {}", r.1.len(), r.1.join("; "))}
            </p>
        }))}
        <WhoCan policy namespace/>
        <SubjectRules policy/>
    }
}

