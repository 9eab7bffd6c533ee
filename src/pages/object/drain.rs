//! A node's Drain, as `kubectl drain` does it (`kubeglass_kubectl::drain`):
//! the boxes kubectl has flags for, the deadline, one confirmation, then
//! each pod's progress as it happens (evicting, waiting for budget, gone,
//! left alone) and how it ended, recorded as Events from `kubeglass`; then
//! Uncordon. Shown where the session may write and RBAC allows `patch` on
//! the node and `create` on `pods/eviction`.

use std::time::Duration;

use kubeglass_client::kube_core::ApiResource;
use kubeglass_kubectl::access::{AccessQuery, can_i};
use kubeglass_kubectl::actions::ActionKind;
use kubeglass_kubectl::drain::{Allow, DrainOptions, Plan, PodState, Report};
use leptos::prelude::*;

use crate::actions::Actions;
use crate::actions::drain::drain_node;
use crate::components::dialog::confirm;
use crate::kube::stores::session::SessionState;
use crate::kube::{Kube, use_kube};
use crate::rules::drain::pod_words;

/// May the person drain nodes (patch the node, create evictions anywhere)?
async fn may_drain(kube: &Kube, node: &str) -> bool {
    let ask = |verb: &str, resource: &str, sub: Option<&str>, name: Option<&str>| AccessQuery {
        verb: verb.into(),
        group: String::new(),
        resource: resource.into(),
        namespace: None,
        name: name.map(str::to_string),
        subresource: sub.map(str::to_string),
    };
    let patch = can_i(kube.client(), &ask("patch", "nodes", None, Some(node))).await;
    let evict = can_i(kube.client(), &ask("create", "pods", Some("eviction"), None)).await;
    patch.is_ok_and(|a| a.allowed()) && evict.is_ok_and(|a| a.allowed())
}

/// What the page shows of a drain.
#[derive(Clone, Copy)]
struct Progress {
    pods: RwSignal<Vec<(String, PodState)>>,
    end: RwSignal<Option<(&'static str, String)>>,
    running: RwSignal<bool>,
}

/// Runs the drain of `node`, recorded as Events, into `p`.
fn run(kube: Kube, actions: Actions, node: String, options: DrainOptions, p: Progress) {
    p.pods.set(Vec::new());
    p.end.set(None);
    p.running.set(true);
    crate::platform::spawn(async move {
        let report = move |r: Report| match r {
            Report::Cordoned => {}
            Report::Planned(all) => {
                let rows = all.into_iter().filter(|(_, p)| !matches!(p, Plan::Blocked(_)));
                let _ = p.pods.try_set(rows.map(|(k, _)| (k, PodState::Waiting)).collect());
            }
            Report::Pod(k, s) => {
                let _ = p.pods.try_update(|v| match v.iter_mut().find(|(key, _)| *key == k) {
                    Some(row) => row.1 = s,
                    None => v.push((k, s)),
                });
            }
        };
        let (_, words) = drain_node(&kube, actions, &node, options, report).await;
        let _ = p.end.try_set(Some(words));
        let _ = p.running.try_set(false);
    });
}

/// The Drain button, its form, and the drain's progress.
#[component]
pub fn NodeDrain(node: String) -> impl IntoView {
    let kube = StoredValue::new_local(use_kube());
    let allowed: Signal<Option<bool>> = if expect_context::<SessionState>().read_only() {
        Signal::stored(Some(false))
    } else {
        let (k, n) = (kube.get_value(), node.clone());
        kube.get_value().load(async move { may_drain(&k, &n).await }).into()
    };
    let open = RwSignal::new(false);
    let (force, emptydir, timeout) = (RwSignal::new(false), RwSignal::new(false), RwSignal::new("300".to_string()));
    let pods = RwSignal::new(Vec::<(String, PodState)>::new());
    let end = RwSignal::new(None::<(&'static str, String)>);
    let running = RwSignal::new(false);
    let actions = expect_context::<Actions>();
    let start = {
        let node = node.clone();
        move |_| {
            if !confirm(&format!("Drain node {node}? It is cordoned, and its pods are evicted through the Eviction API.")) {
                return;
            }
            let secs = timeout.get_untracked().trim().parse::<u64>().unwrap_or(300).max(1);
            let options = DrainOptions { allow: Allow { unmanaged: force.get_untracked(), emptydir_data: emptydir.get_untracked() }, timeout: Duration::from_secs(secs) };
            let Some(kube) = kube.try_get_value() else { return };
            run(kube, actions, node.clone(), options, Progress { pods, end, running });
        }
    };
    let uncordon = {
        let node = node.clone();
        move |_| {
            let r = ApiResource { group: String::new(), version: "v1".into(), api_version: "v1".into(), kind: "Node".into(), plural: "nodes".into() };
            let _ = actions.submit(r, None, &node, ActionKind::Cordon(false));
        }
    };
    move || match allowed.get() {
        None => ().into_any(),
        Some(false) => view! { <span hidden data-testid="drain-denied"></span> }.into_any(),
        Some(true) => {
            let (start, uncordon) = (start.clone(), uncordon.clone());
            view! {
                <div class="drain" data-testid="drain">
                    <button data-testid="drain-open" on:click=move |_| open.update(|o| *o = !*o)>"Drain…"</button>
                    <div class="drain-form" hidden=move || !open.get()>
                        <label><input type="checkbox" data-testid="drain-force" prop:checked=move || force.get() on:change=move |ev| force.set(event_target_checked(&ev))/>" pods with no controller (--force)"</label>
                        <label><input type="checkbox" data-testid="drain-emptydir" prop:checked=move || emptydir.get() on:change=move |ev| emptydir.set(event_target_checked(&ev))/>" delete emptyDir data (--delete-emptydir-data)"</label>
                        <label>"timeout (s) "<input data-testid="drain-timeout" size="5" prop:value=move || timeout.get() on:input=move |ev| timeout.set(event_target_value(&ev))/></label>
                        <button data-testid="drain-start" on:click=start disabled=move || running.get()>"Drain"</button>
                        <button data-testid="drain-uncordon" on:click=uncordon disabled=move || running.get()>"Uncordon"</button>
                    </div>
                    <table class="grid drain-pods" hidden=move || pods.with(Vec::is_empty)>
                        <thead><tr><th>"Pod"</th><th>"State"</th></tr></thead>
                        <tbody>
                            {move || pods.get().into_iter().map(|(k, s)| {
                                let (state, words) = pod_words(&s);
                                let shown = k.clone();
                                view! { <tr data-testid="drain-pod" data-pod=k data-state=state><td class="name">{shown}</td><td>{words}</td></tr> }
                            }).collect_view()}
                        </tbody>
                    </table>
                    {move || end.get().map(|(state, words)| view! {
                        <p class="small" role="status" data-testid="drain-end" data-state=state>{words}</p>
                    })}
                </div>
            }
            .into_any()
        }
    }
}
