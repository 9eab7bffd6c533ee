//! Resolve a resource name through discovery, then draw what needs it; on the way, "Resolving…" or the reason it cannot be.

use kubeglass_client::discovery::ResourceInfo;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::use_kube;
use crate::rules::resolve::Unresolved;

/// Resolves `name` the way kubectl does; when it names a resource that
/// supports every verb in `verbs`, draws `children` with it.
#[component]
pub fn Resolved<F, V>(
    name: String,
    #[prop(default = &[])] verbs: &'static [&'static str],
    children: F,
) -> impl IntoView
where
    F: Fn(ResourceInfo) -> V + Send + Sync + 'static,
    V: IntoView + 'static,
{
    let kube = use_kube();
    let query = name.clone();
    let info = kube
        .clone()
        .load(async move { kube.resolve_for(&query, verbs).await });
    move || {
        match info.get() {
        None => view! { <p class="muted">"Resolving " {name.clone()} "…"</p> }.into_any(),
        Some(Err(Unresolved::Unknown)) => view! {
            <p class="error-box" data-testid="resource-error" data-problem="not-found">
                {format!("The server has no resource called “{name}”.")}
            </p>
        }
        .into_any(),
        Some(Err(Unresolved::Cannot(why))) => {
            view! { <p class="error-box" data-testid="resource-error">{why}</p> }.into_any()
        }
        Some(Err(Unresolved::Failed(p))) => view! {
            <ProblemBox problem=p doing="read the server's resources".to_string() testid="resource-error"/>
        }
        .into_any(),
        Some(Ok(i)) => children(i).into_any(),
    }
    }
}
