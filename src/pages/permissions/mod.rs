//! Permissions (`#/permissions`): what I may do here, and who can do what.
//!
//! "My permissions" (`mine`) is `kubectl auth can-i --list` for the
//! header's namespace, drawn as a resource × verb grid, asked again when
//! the namespace changes. For a person who may list and watch every Role,
//! ClusterRole and binding, `who` adds "who can `<verb>` `<resource>`" and
//! what any subject the bindings name is granted, both worked out in the
//! tab from four informers (`kubeglass_kubectl::rbac`), live, each answer
//! with the chain of binding and role that grants it. For anyone else the
//! page says which list it may not read and offers only its own grid.

mod mine;
mod answers;
mod who;

use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::requests::access::rbac_unreadable;
use crate::kube::stores::cluster::ClusterState;
use crate::kube::use_kube;

/// The page.
#[component]
pub fn PermissionsPage() -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    let kube = use_kube();
    let asking = kube.clone();
    let readable = kube.load(async move { rbac_unreadable(&asking).await });
    let namespace = cluster.namespace;
    view! {
        <section class="panel permissions-page" data-testid="permissions-page">
            <div class="resource-head">
                <h2>"Permissions"</h2>
                <span class="muted small">
                    "What you may do, as kubectl auth can-i --list says it; and, where you may read roles and bindings, who can do what."
                </span>
            </div>
            {move || {
                let namespace = namespace.get();
                view! { <mine::MyPermissions namespace/> }
            }}
            {move || match readable.get() {
                None => view! { <p class="muted">"asking whether you may read roles and bindings…"</p> }.into_any(),
                Some(Err(problem)) => view! {
                    <ProblemBox problem doing="ask whether you may read roles and bindings".to_string() testid="rbac-problem"/>
                }.into_any(),
                Some(Ok(Some(denied))) => view! {
                    <p class="muted" data-testid="rbac-unreadable">
                        {format!("You may not {denied} across the cluster, so who can do what cannot be worked out here. Your own permissions are above.")}
                    </p>
                }.into_any(),
                Some(Ok(None)) => view! { <who::Rbac namespace/> }.into_any(),
            }}
        </section>
    }
}
