//! The overview's Deployments, with − and + to scale them, restart, labels and delete (each confirmed, each recorded as an Event).

use std::collections::BTreeMap;

use kubeglass_client::k8s_openapi::api::apps::v1::Deployment;
use kubeglass_kubectl::actions::ActionKind;
use leptos::prelude::*;

use crate::actions::{Actions, deployments};
use crate::components::dialog::{ask_label_changes, confirm};
use crate::components::outcome::ActionOutcome;
use crate::components::problem::ProblemBox;
use crate::kube::stores::session::SessionState;
use crate::kube::subscribe::{collection_path, watch_problem};
use crate::kube::use_kube;
use crate::rules::namespaces::scope_label;
use crate::rules::objects::DeploymentRow;

/// The Deployments in `namespace` (None: all).
#[component]
pub fn DeploymentsPanel(namespace: Option<String>) -> impl IntoView {
    let actions = expect_context::<Actions>();
    let read_only = expect_context::<SessionState>().read_only();
    let kube = use_kube();
    let rows = RwSignal::new(BTreeMap::new());
    let watch = collection_path::<Deployment>(&kube, namespace.as_deref()).map(|path| {
        kube.subscribe("deployment-rows", &path)
            .rows(rows, DeploymentRow::from_object)
    });
    let status = watch.as_ref().ok().map(|w| w.status());
    let path_problem = watch.as_ref().err().cloned();
    let _watch = StoredValue::new_local(watch.ok());
    let doing = format!("list deployments {}", scope_label(namespace.as_deref()));
    let problem = move || {
        let p = path_problem
            .clone()
            .or_else(|| status.and_then(|s| s.with(watch_problem)))?;
        Some(view! { <ProblemBox problem=p doing=doing.clone() testid="deployments-problem"/> })
    };
    view! {
        <section class="panel">
            <h2>"Deployments"</h2>
            <ActionOutcome/>
            {problem}
            <table class="grid" data-testid="deployment-table">
                <thead>
                    <tr><th>"Namespace"</th><th>"Name"</th><th class="num">"Ready"</th><th class="num">"Scale"</th><th>"Actions"</th></tr>
                </thead>
                <tbody>
                    <For
                        each=move || rows.get().into_values()
                        key=|r: &DeploymentRow| (r.key.clone(), r.desired, r.ready)
                        children=move |r| view! { <DeploymentLine r actions read_only/> }
                    />
                </tbody>
            </table>
        </section>
    }
}

/// One Deployment's row: its readiness, − and + to scale it, and (unless
/// `read_only`) restart, labels and delete, each confirmed.
#[component]
fn DeploymentLine(r: DeploymentRow, actions: Actions, read_only: bool) -> impl IntoView {
    // The outcome line shows how it ended; nothing here awaits it.
    let submit = move |ns: &str, name: &str, kind: ActionKind| {
        let _ = actions.submit(deployments(), Some(ns), name, kind);
    };
    let (ns, name, desired) = (r.namespace.clone(), r.name.clone(), r.desired);
    let target = format!("{ns}/{name}");
    let act = move |kind: ActionKind, question: String| {
        let (ns, name) = (ns.clone(), name.clone());
        move |_| {
            if confirm(&question) {
                submit(&ns, &name, kind.clone());
            }
        }
    };
    let labels = {
        let (ns, name, target) = (r.namespace.clone(), r.name.clone(), target.clone());
        move |_| match ask_label_changes(&target) {
            Some(Ok(kind)) => submit(&ns, &name, kind),
            Some(Err(e)) => actions.mistake(e),
            None => {}
        }
    };
    let ok = if r.ready == r.desired {
        "status-ok"
    } else {
        "status-warn"
    };
    let down = (desired - 1).max(0);
    view! {
        <tr data-testid="deployment-row" data-key=r.key.clone()>
            <td>{r.namespace.clone()}</td>
            <td class="name">{r.name.clone()}</td>
            <td class=format!("num {ok}")>{format!("{}/{}", r.ready, r.desired)}</td>
            <td class="num scale">
                {(!read_only).then(|| view! {
                    <button title="Scale down by one" data-testid="scale-down"
                        disabled=desired == 0
                        on:click=act.clone()(ActionKind::Scale(down), format!("Scale {target} to {down}?"))>"−"</button>
                })}
                <span data-testid="desired">{desired}</span>
                {(!read_only).then(|| view! {
                    <button title="Scale up by one" data-testid="scale-up"
                        on:click=act.clone()(ActionKind::Scale(desired + 1), format!("Scale {target} to {}?", desired + 1))>"+"</button>
                })}
            </td>
            <td class="actions">
                {(!read_only).then(|| view! {
                    <button data-testid="restart" title="kubectl rollout restart"
                        on:click=act.clone()(ActionKind::RestartRollout, format!("Restart the rollout of {target}?"))>"Restart"</button>
                    <button data-testid="labels" title="Set or remove labels" on:click=labels>"Labels"</button>
                    <button data-testid="delete" class="danger" title="Delete this Deployment"
                        on:click=act(ActionKind::Delete, format!("Delete {target}? Its pods go too."))>"Delete"</button>
                })}
            </td>
        </tr>
    }
}
