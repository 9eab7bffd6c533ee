//! The overview's nodes, with cordon and uncordon.

use std::collections::BTreeMap;

use kubeglass_client::k8s_openapi::api::core::v1::Node;
use kubeglass_kubectl::actions::ActionKind;
use leptos::prelude::*;

use crate::actions::{Actions, nodes};
use crate::components::dialog::confirm;
use crate::components::problem::ProblemBox;
use crate::kube::stores::session::SessionState;
use crate::kube::subscribe::{cluster_path, watch_problem};
use crate::kube::use_kube;
use crate::rules::objects::NodeRow;

/// Nodes, each with its Ready condition and whether it is cordoned.
#[component]
pub fn NodesPanel() -> impl IntoView {
    let actions = expect_context::<Actions>();
    let read_only = expect_context::<SessionState>().read_only();
    let rows = RwSignal::new(BTreeMap::new());
    let kube = use_kube();
    let path = cluster_path::<Node>(&kube);
    let watch = kube
        .subscribe("node-rows", &path)
        .rows(rows, NodeRow::from_object);
    let status = watch.status();
    let _watch = StoredValue::new_local(watch);
    view! {
        <section class="panel">
            <h2>"Nodes"</h2>
            {move || status.with(watch_problem).map(|p| view! {
                <ProblemBox problem=p doing="list nodes cluster-wide".to_string() testid="nodes-problem"/>
            })}
            <table class="grid" data-testid="node-table">
                <thead>
                    <tr><th>"Name"</th><th>"Ready"</th><th>"Scheduling"</th><th>"Actions"</th></tr>
                </thead>
                <tbody>
                    <For
                        each=move || rows.get().into_values()
                        key=|n: &NodeRow| (n.name.clone(), n.ready.clone(), n.cordoned)
                        children=move |n| {
                            let name = n.name.clone();
                            let cordoned = n.cordoned;
                            let (label, question) = if cordoned {
                                ("Uncordon", format!("Let pods be scheduled on {name} again?"))
                            } else {
                                ("Cordon", format!("Stop scheduling pods on {name}?"))
                            };
                            let toggle = move |_| {
                                if confirm(&question) {
                                    let _ = actions.submit(nodes(), None, &name, ActionKind::Cordon(!cordoned));
                                }
                            };
                            let ready = if n.ready == "True" { "status-ok" } else { "status-warn" };
                            view! {
                                <tr data-testid="node-row" data-name=n.name.clone()>
                                    <td class="name">{n.name.clone()}</td>
                                    <td class=ready>{n.ready.clone()}</td>
                                    <td data-testid="scheduling">{if cordoned { "SchedulingDisabled" } else { "Schedulable" }}</td>
                                    <td class="actions">{(!read_only).then(|| view! { <button data-testid="cordon" on:click=toggle>{label}</button> })}</td>
                                </tr>
                            }
                        }
                    />
                </tbody>
            </table>
        </section>
    }
}
