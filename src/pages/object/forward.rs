//! A pod's, Service's or Deployment's ports, each with Forward: the
//! launcher starts `kubectl port-forward` to it and the line says where it
//! listens (a link to open it), or why not. Shown only when `kubectl glass`
//! serves a session that may write and RBAC allows `create
//! pods/portforward` in the namespace; the Forwards page lists them all.

use kubeglass_kubectl::forwards::{ForwardKind, ForwardRequest};
use leptos::prelude::*;
use serde_json::Value;

use crate::kube::requests::forwards::{may_forward, start};
use crate::kube::stores::session::SessionState;
use crate::kube::use_kube;
use crate::rules::objects::forward_ports;
use crate::route::Route;

/// The kind a forward reaches for `group`/`plural`, if it can be one.
pub fn forward_kind(group: &str, plural: &str) -> Option<ForwardKind> {
    match (group, plural) {
        ("", "pods") => Some(ForwardKind::Pod),
        ("", "services") => Some(ForwardKind::Service),
        ("apps", "deployments") => Some(ForwardKind::Deployment),
        _ => None,
    }
}

/// The object's ports with Forward on each.
#[component]
pub fn ForwardPorts(kind: ForwardKind, namespace: String, name: String, object: RwSignal<Option<Value>>) -> impl IntoView {
    // None while asking.
    let allowed: Signal<Option<bool>> = if expect_context::<SessionState>().may_forward() {
        let (kube, ns) = (use_kube(), namespace.clone());
        let asked = kube.clone().load(async move { may_forward(&kube, &ns).await });
        asked.into()
    } else {
        Signal::stored(Some(false))
    };
    let outcome = RwSignal::new(None::<Result<(String, String), String>>);
    let ports = Memo::new(move |_| object.with(|o| o.as_ref().map(|o| forward_ports(kind, o)).unwrap_or_default()));
    let kube = StoredValue::new_local(use_kube());
    let forward = move |port: u16| {
        let r = ForwardRequest { namespace: namespace.clone(), kind, name: name.clone(), port };
        let Some(kube) = kube.try_get_value() else { return };
        crate::platform::spawn(async move {
            let answer = start(&kube, &r).await;
            let _ = outcome.try_set(Some(answer
                .map(|f| (f.local.clone(), format!("{} → {}:{}", f.local, f.request.target(), f.request.port)))
                .map_err(|p| p.detail().to_string())));
        });
    };
    move || {
        let ports = ports.get();
        if allowed.get() == Some(false) {
            // Asked, and no: a mark a test can wait for.
            return Some(view! { <span hidden data-testid="forward-denied"></span> }.into_any());
        }
        (allowed.get() == Some(true) && !ports.is_empty()).then(|| {
            let forward = forward.clone();
            view! {
                <p class="forward-ports small" data-testid="forward-ports">"Forward a port: "
                    {ports.into_iter().map(|(port, label)| {
                        let forward = forward.clone();
                        view! { <button data-testid="forward-port" data-port=port on:click=move |_| forward(port)>{label}</button> " " }
                    }).collect_view()}
                    <a href=Route::page("forwards").href()>"all forwards"</a>
                </p>
                {move || outcome.get().map(|o| match o {
                    Ok((local, words)) => view! {
                        <p class="small" data-testid="forward-outcome">"Forwarding "
                            <a href=format!("http://{local}/") target="_blank" rel="noopener noreferrer">{words}</a>
                        </p>
                    }.into_any(),
                    Err(w) => view! { <p class="small status-bad" role="alert" data-testid="forward-outcome">{w}</p> }.into_any(),
                })}
            }
            .into_any()
        })
    }
}
