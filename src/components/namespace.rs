//! The namespace the app works in, picked from the list or typed (for a person who may not list namespaces), and remembered.

use leptos::prelude::*;

use crate::kube::stores::cluster::ClusterState;
use crate::kube::stores::session::SessionState;
use crate::kube::subscribe::watch_problem;
use crate::prefs;
use crate::route::{Route, navigate, use_route};
use crate::rules::namespaces::{choices, remembered, typed_namespace};

/// A text field with the namespaces as choices; empty means all.
/// Choosing one remembers it and, on a table, shows that namespace.
#[component]
pub fn NamespacePicker() -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    let session = expect_context::<SessionState>();
    let route = use_route();
    let error: RwSignal<Option<String>> = RwSignal::new(None);
    let text = RwSignal::new(cluster.namespace.get_untracked().unwrap_or_default());
    // The field follows the app's namespace (the launcher's, decided at start).
    Effect::new(move |_| text.set(cluster.namespace.get().unwrap_or_default()));
    let apply = move |value: String| match typed_namespace(&value) {
        Err(e) => error.set(Some(e)),
        Ok(ns) => {
            error.set(None);
            prefs::set(prefs::NAMESPACE, &remembered(ns.as_deref()));
            cluster.namespace.set(ns.clone());
            if let Route::Resource {
                resource,
                labels,
                fields,
                columns,
                ..
            } = route.get_untracked()
            {
                navigate(&Route::Resource {
                    resource,
                    namespace: ns,
                    labels,
                    fields,
                    columns,
                });
            }
        }
    };
    let options = move || {
        let context = session
            .session
            .with(|s| s.as_ref().and_then(|s| s.namespace.clone()));
        cluster.namespaces.with(|listed| {
            choices(
                listed.keys().map(String::as_str),
                cluster.namespace.get().as_deref(),
                context.as_deref(),
            )
        })
    };
    let unlisted = move || {
        cluster
            .namespaces_status
            .with(watch_problem)
            .map(|p| p.explain("list namespaces"))
    };
    view! {
        <span class="namespace-picker">
            <input type="text" list="namespace-choices" class="namespace-input" data-testid="namespace-input"
                aria-label="Namespace (empty for all)" placeholder="all namespaces" spellcheck="false"
                title=move || unlisted().unwrap_or_else(|| "The namespace to work in; empty for all".into())
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:change=move |ev| apply(event_target_value(&ev))/>
            <datalist id="namespace-choices" data-testid="namespace-choices">
                {move || options().into_iter().map(|n| view! { <option value=n.clone()></option> }).collect_view()}
            </datalist>
            {move || error.get().map(|e| view! { <span class="error-text small" data-testid="namespace-error" role="alert">{e}</span> })}
        </span>
    }
}
