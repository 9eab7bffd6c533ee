//! Resolve a resource name through discovery, then draw what needs it; on the way, "Resolving…" or the reason it cannot be.

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_web::spawn;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::use_kube;
use crate::model::problem::Problem;

/// Why a name did not resolve to something the page can use.
#[derive(Debug, Clone, PartialEq)]
enum Unresolved {
    /// Discovery could not be read.
    Failed(Problem),
    /// The server has no such resource.
    Unknown,
    /// It exists, without the verbs the page needs.
    Cannot(String),
}

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
    let info: RwSignal<Option<Result<ResourceInfo, Unresolved>>> = RwSignal::new(None);
    let query = name.clone();
    spawn(async move {
        let r = match kube.resolve(&query).await {
            Ok(Some(i)) if verbs.iter().all(|v| i.supports(v)) => Ok(i),
            Ok(Some(i)) => Err(Unresolved::Cannot(format!(
                "{} cannot be {}",
                i.qualified_name(),
                verbs
                    .iter()
                    .map(|v| match *v {
                        "list" => "listed",
                        "watch" => "watched",
                        "get" => "read",
                        other => other,
                    })
                    .collect::<Vec<_>>()
                    .join(" and ")
            ))),
            Ok(None) => Err(Unresolved::Unknown),
            Err(p) => Err(Unresolved::Failed(p)),
        };
        let _ = info.try_set(Some(r));
    });
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
