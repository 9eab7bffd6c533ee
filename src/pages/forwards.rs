//! The port-forwards `kubectl glass` runs for this tab's session: each
//! with what it reaches, where it listens (a link to open an HTTP one) and
//! Stop; a form starts one. The list is read again every 3 s while the
//! page is open (a forward whose kubectl ended leaves it) and after each
//! start and stop. All stop when the launcher stops.

use std::time::Duration;

use kubeglass_kubectl::forwards::{Forward, ForwardKind, ForwardRequest};
use leptos::prelude::*;

use crate::kube::stores::cluster::ClusterState;
use crate::kube::requests::forwards::{list, start, stop};
use crate::kube::use_kube;
use crate::rules::problem::Problem;

/// The page.
#[component]
pub fn ForwardsPage() -> impl IntoView {
    let forwards = RwSignal::new(None::<Result<Vec<Forward>, Problem>>);
    // Read from timers and tasks, outside the component's owner: the
    // handle is taken now.
    let kube = StoredValue::new_local(use_kube());
    // A timer or a task may outlive the page: then there is nothing to do.
    let refresh = move || {
        let Some(kube) = kube.try_get_value() else { return };
        crate::platform::spawn(async move {
            let _ = forwards.try_set(Some(list(&kube).await));
        });
    };
    refresh();
    let timer = set_interval_with_handle(refresh, Duration::from_secs(3));
    on_cleanup(move || {
        if let Ok(t) = timer {
            t.clear();
        }
    });
    view! {
        <section class="forwards-page">
            <h2>"Port-forwards"</h2>
            <p class="muted small">
                "Each is kubectl port-forward, run by kubectl glass on 127.0.0.1 with your kubeconfig and context; all stop when it stops."
            </p>
            <StartForm refresh/>
            {move || match forwards.get() {
                None => view! { <p class="muted">"reading…"</p> }.into_any(),
                Some(Err(p)) => view! { <p class="muted" role="alert" data-testid="forwards-error">{p.detail().to_string()}</p> }.into_any(),
                Some(Ok(v)) if v.is_empty() => view! { <p class="muted" data-testid="forwards-none">"No port-forward is running."</p> }.into_any(),
                Some(Ok(v)) => view! { <ForwardRows forwards=v refresh/> }.into_any(),
            }}
        </section>
    }
}

/// The running forwards, a row each.
#[component]
fn ForwardRows(forwards: Vec<Forward>, refresh: impl Fn() + Copy + 'static) -> impl IntoView {
    let kube = StoredValue::new_local(use_kube());
    let rows = forwards
        .into_iter()
        .map(|f| {
            let id = f.id;
            let href = format!("http://{}/", f.local);
            let stop_it = move |_| {
                let Some(kube) = kube.try_get_value() else { return };
                crate::platform::spawn(async move {
                    let _ = stop(&kube, id).await;
                    refresh();
                });
            };
            view! {
                <tr data-testid="forward-row" data-id=id>
                    <td>{f.request.namespace.clone()}</td>
                    <td class="name">{f.request.target()}</td>
                    <td class="num">{f.request.port}</td>
                    <td><a href=href target="_blank" rel="noopener noreferrer" data-testid="forward-local">{f.local.clone()}</a></td>
                    <td><button data-testid="forward-stop" on:click=stop_it>"Stop"</button></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="grid" data-testid="forwards">
            <thead><tr><th>"Namespace"</th><th>"Target"</th><th class="num">"Port"</th><th>"Local address"</th><th></th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// Namespace, kind, name and port, and Start.
#[component]
fn StartForm(refresh: impl Fn() + Copy + 'static) -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    let kube = StoredValue::new_local(use_kube());
    let namespace = RwSignal::new(cluster.namespace.get_untracked().unwrap_or_else(|| "default".into()));
    let kind = RwSignal::new("service".to_string());
    let name = RwSignal::new(String::new());
    let port = RwSignal::new(String::new());
    let outcome = RwSignal::new(None::<Result<String, String>>);
    let busy = RwSignal::new(false);
    let go = move |_| {
        let kind = match kind.get_untracked().as_str() {
            "pod" => ForwardKind::Pod,
            "deployment" => ForwardKind::Deployment,
            _ => ForwardKind::Service,
        };
        let Ok(p) = port.get_untracked().trim().parse::<u16>() else {
            outcome.set(Some(Err("the port is a number from 1 to 65535".into())));
            return;
        };
        let r = ForwardRequest { namespace: namespace.get_untracked(), kind, name: name.get_untracked().trim().to_string(), port: p };
        if let Err(e) = r.validate() {
            outcome.set(Some(Err(e.to_string())));
            return;
        }
        let Some(kube) = kube.try_get_value() else { return };
        busy.set(true);
        crate::platform::spawn(async move {
            let answer = start(&kube, &r).await;
            let _ = busy.try_set(false);
            let _ = outcome.try_set(Some(answer
                .map(|f| format!("Forwarding {} to {}:{}", f.local, f.request.target(), f.request.port))
                .map_err(|p| p.detail().to_string())));
            refresh();
        });
    };
    let input = |value: RwSignal<String>, testid: &'static str, label: &'static str| view! {
        <label>{label} " "<input data-testid=testid prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev))/></label>
    };
    view! {
        <div class="forward-form">
            {input(namespace, "forward-namespace", "Namespace")}
            <label>"Kind "
                <select data-testid="forward-kind" on:change=move |ev| kind.set(event_target_value(&ev))>
                    <option value="service" selected>"Service"</option>
                    <option value="pod">"Pod"</option>
                    <option value="deployment">"Deployment"</option>
                </select>
            </label>
            {input(name, "forward-name", "Name")}
            {input(port, "forward-port", "Port")}
            <button data-testid="forward-start" on:click=go disabled=move || busy.get()>"Forward"</button>
        </div>
        {move || outcome.get().map(|o| match o {
            Ok(w) => view! { <p class="small" data-testid="forward-outcome">{w}</p> }.into_any(),
            Err(w) => view! { <p class="small status-bad" role="alert" data-testid="forward-outcome">{w}</p> }.into_any(),
        })}
    }
}
