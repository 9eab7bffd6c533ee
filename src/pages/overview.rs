//! The overview: server version, pod count and namespaces, all live.

use leptos::prelude::*;

use crate::pages::workloads::{DeploymentsPanel, EventStream, NodesPanel};
use crate::state::{ClusterState, use_kube};

/// The first page: what cluster this is and what lives in it.
#[component]
pub fn Overview() -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    let kube = use_kube();
    let _watches =
        StoredValue::new_local((cluster.watch_namespaces(&kube), cluster.watch_pods(&kube)));
    let version = move || match cluster.version.get() {
        None => view! { <span class="muted">"…"</span> }.into_any(),
        Some(Ok(v)) => view! { <span data-testid="server-version">{v}</span> }.into_any(),
        Some(Err(e)) => view! { <span class="error-text" title=e>"unavailable"</span> }.into_any(),
    };
    let pods = move || match cluster.pod_count.get() {
        None => "…".to_string(),
        Some(n) => n.to_string(),
    };
    let namespace_count = move || cluster.namespaces.with(|m| m.len());
    let rv = move || {
        cluster
            .pod_status
            .with(|s| s.last_resource_version.clone())
            .unwrap_or_else(|| "—".into())
    };
    let pod_state = move || cluster.pod_status.with(|s| s.state.label());
    view! {
        <section class="cards">
            <div class="card">
                <div class="card-label">"Kubernetes"</div>
                <div class="card-value">{version}</div>
            </div>
            <div class="card">
                <div class="card-label">"Pods (live)"</div>
                <div class="card-value" data-testid="pod-count">{pods}</div>
            </div>
            <div class="card">
                <div class="card-label">"Namespaces"</div>
                <div class="card-value">{namespace_count}</div>
            </div>
            <div class="card card-xray">
                <div class="card-label">"Pod informer"</div>
                <div class="card-small">
                    <span data-testid="pod-informer-state">{pod_state}</span>
                    " · rv "<code>{rv}</code>
                </div>
            </div>
        </section>
        <div class="two-col">
            <section class="panel">
                <h2>"Namespaces"</h2>
                <table class="grid" data-testid="namespace-table">
                    <thead>
                        <tr><th>"Name"</th><th>"Status"</th><th class="num">"Pods"</th></tr>
                    </thead>
                    <tbody>
                        <For
                            each=move || cluster.namespaces.get().into_values()
                            key=|row| (row.name.clone(), row.phase.clone())
                            children=move |row| {
                                let name = row.name.clone();
                                let count = move || {
                                    cluster.pods_by_namespace.with(|m| m.get(&name).copied().unwrap_or(0))
                                };
                                let phase_class = if row.phase == "Active" { "status-ok" } else { "status-warn" };
                                view! {
                                    <tr data-testid="namespace-row">
                                        <td class="name">{row.name.clone()}</td>
                                        <td class=phase_class>{row.phase.clone()}</td>
                                        <td class="num">{count}</td>
                                    </tr>
                                }
                            }
                        />
                    </tbody>
                </table>
            </section>
            <NodesPanel/>
        </div>
        <DeploymentsPanel/>
        <EventStream/>
    }
}
