//! The overview: what cluster this is and what lives in the namespace the app works in, all live.

use kubeglass_client::k8s_openapi::api::core::v1::Pod;
use kubeglass_client::rest::table::TableRowObject;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::stores::cluster::ClusterState;
use crate::kube::subscribe::{InformerSnapshot, collection_path, watch_problem};
use crate::kube::{Kube, Watch, use_kube};
use crate::pages::events::EventStream;
use crate::rules::namespaces::scope_label;
use crate::rules::objects::PodCounts;
use crate::rules::problem::Problem;

mod deployments;
mod namespaces;
mod nodes;

use deployments::DeploymentsPanel;
use namespaces::NamespacesPanel;
use nodes::NodesPanel;

/// The first page; its namespaced panels follow the app's namespace.
#[component]
pub fn Overview() -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    move || {
        let namespace = cluster.namespace.get();
        view! { <OverviewIn namespace/> }
    }
}

/// The overview for one namespace (or all). The cards, the server's version
/// among them, are painted first; the informers and the panels start after
/// that paint, so their start (the factory, the first requests, the views)
/// does not hold the first live figure back.
#[component]
fn OverviewIn(namespace: Option<String>) -> impl IntoView {
    let counts = RwSignal::new(None::<PodCounts>);
    let status = RwSignal::new(None::<RwSignal<InformerSnapshot>>);
    let started = RwSignal::new(false);
    crate::platform::after_paint(move || {
        // The page may have gone before its first frame.
        let _ = started.try_set(true);
    });
    let live = move || {
        let namespace = namespace.clone();
        started
            .get()
            .then(|| view! { <OverviewLive namespace counts status/> })
    };
    view! {
        <OverviewCards counts status/>
        {live}
    }
}

/// The overview's live part: the pods counted into `counts` (their
/// informer's state into `status`) and the panels.
#[component]
fn OverviewLive(
    namespace: Option<String>,
    counts: RwSignal<Option<PodCounts>>,
    status: RwSignal<Option<RwSignal<InformerSnapshot>>>,
) -> impl IntoView {
    let kube = use_kube();
    let pods = count_pods(&kube, namespace.as_deref(), counts);
    let pods_status = pods.as_ref().ok().map(|w| w.status());
    status.set(pods_status);
    let path_problem = pods.as_ref().err().cloned();
    let _pods = StoredValue::new_local(pods.ok());
    let scope = scope_label(namespace.as_deref());
    let pods_problem = move || {
        let p = path_problem
            .clone()
            .or_else(|| pods_status.and_then(|s| s.with(watch_problem)))?;
        Some(
            view! { <ProblemBox problem=p doing=format!("list pods {scope}") testid="pods-problem"/> },
        )
    };
    // Pods are counted in the app's namespace only: others show "—".
    let counted_ns = namespace.clone();
    let in_namespace = move |ns: &str| -> Option<usize> {
        if counted_ns.as_deref().is_some_and(|c| c != ns) {
            return None;
        }
        counts.with(|c| c.as_ref().map(|c| c.in_namespace(ns)))
    };
    view! {
        {pods_problem}
        <div class="two-col">
            <NamespacesPanel pods_in=Callback::new(move |ns: String| in_namespace(&ns))/>
            <NodesPanel/>
        </div>
        <DeploymentsPanel namespace=namespace.clone()/>
        <EventStream namespace=namespace.clone()/>
    }
}

/// Counts the pods in `namespace` (None: all) into `counts`, from pods as
/// Table rows: the same informer (one watch) serves the pod table.
fn count_pods(
    kube: &Kube,
    namespace: Option<&str>,
    counts: RwSignal<Option<PodCounts>>,
) -> Result<Watch<TableRowObject>, Problem> {
    collection_path::<Pod>(kube, namespace).map(|path| {
        let mut counted = PodCounts::default();
        kube.subscribe("pod-counts", &path)
            .table()
            .frames(move |inf, keys| {
                let indexer = inf.indexer();
                let indexer = indexer.borrow();
                for key in keys {
                    let pod = indexer.get(&key);
                    counted.apply(key, pod.as_deref());
                }
                counts.set(Some(counted.clone()));
            })
    })
}

/// The cards: the server's version, the pods counted, the namespaces, and
/// the pod informer's state (`status`: None until it starts, and when it
/// could not).
#[component]
fn OverviewCards(
    counts: RwSignal<Option<PodCounts>>,
    status: RwSignal<Option<RwSignal<InformerSnapshot>>>,
) -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    let version = move || match cluster.version.get() {
        None => view! { <span class="muted">"…"</span> }.into_any(),
        Some(Ok(v)) => view! { <span data-testid="server-version">{v}</span> }.into_any(),
        Some(Err(p)) => {
            view! { <span class="error-text" title=p.detail().to_string()>"unavailable"</span> }
                .into_any()
        }
    };
    let pod_count = move || match counts.get() {
        Some(c) => c.total().to_string(),
        None if status
            .get()
            .is_some_and(|s| s.with(|s| watch_problem(s).is_some())) =>
        {
            "—".into()
        }
        None => "…".to_string(),
    };
    let rv = move || {
        status
            .get()
            .and_then(|s| s.with(|s| s.reflector.last_resource_version.clone()))
            .unwrap_or_else(|| "—".into())
    };
    let pod_state = move || status.get().map_or("—", |s| s.with(|s| s.state_label()));
    view! {
        <section class="cards">
            <div class="card">
                <div class="card-label">"Kubernetes"</div>
                <div class="card-value">{version}</div>
            </div>
            <div class="card">
                <div class="card-label">"Pods (live)"</div>
                <div class="card-value" data-testid="pod-count">{pod_count}</div>
            </div>
            <div class="card">
                <div class="card-label">"Namespaces"</div>
                <div class="card-value">{move || cluster.namespaces.with(|m| m.len())}</div>
            </div>
            <div class="card card-xray">
                <div class="card-label">"Pod informer"</div>
                <div class="card-small">
                    <span data-testid="pod-informer-state">{pod_state}</span>
                    " · rv "<code>{rv}</code>
                </div>
            </div>
        </section>
    }
}
