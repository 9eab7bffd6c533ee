//! The overview's namespaces, with their phase and live pod counts.

use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::stores::cluster::ClusterState;
use crate::kube::subscribe::watch_problem;

/// Every namespace (from the app-wide informer), or why they cannot be listed.
#[component]
pub fn NamespacesPanel(pods_in: Callback<String, Option<usize>>) -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    let problem = move || cluster.namespaces_status.with(watch_problem);
    view! {
        <section class="panel">
            <h2>"Namespaces"</h2>
            {move || problem().map(|p| view! {
                <ProblemBox problem=p doing="list namespaces".to_string() testid="namespaces-problem"/>
            })}
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
                            let count = move || pods_in.run(name.clone()).map_or_else(|| "—".to_string(), |n| n.to_string());
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
    }
}
