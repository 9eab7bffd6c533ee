//! Create from YAML (`#/create`): paste or drop documents, Review asks the server for a dry run of each, Create writes the ones that passed (all of them, unless the person chooses to go on past errors).

mod docs;
mod state;

use leptos::prelude::*;

use crate::actions::Actions;
use crate::components::editor::CodeEditor;
use crate::kube::stores::cluster::ClusterState;
use crate::kube::use_kube;
use crate::platform::dropped_text;

use docs::DocList;
use state::CreateState;

/// The page.
#[component]
pub fn CreatePage() -> impl IntoView {
    let kube = StoredValue::new_local(use_kube());
    let cluster = expect_context::<ClusterState>();
    let actions = expect_context::<Actions>();
    let create = CreateState::new(actions);
    let default_ns = move || cluster.namespace.get().unwrap_or_else(|| "default".into());
    let dropped = RwSignal::new(None::<String>);
    let on_drop = move |ev: leptos::ev::DragEvent| {
        dropped_text(&ev, move |r| match r {
            Ok(t) => {
                create.text.set(t);
                dropped.set(None);
            }
            Err(e) => dropped.set(Some(e)),
        })
    };
    view! {
        <section class="panel" data-testid="create-page">
            <h2>"Create"</h2>
            <p class="muted small">
                "Paste or drop YAML: one or more documents, separated by " <code>"---"</code>
                " (a List counts as its items). Objects without a namespace go to "
                <b data-testid="create-namespace">{default_ns}</b>
                ". Nothing is written until Create; Review asks the server first (a dry run), which applies its defaults and admission."
            </p>
            <div on:dragover=|ev: leptos::ev::DragEvent| ev.prevent_default() on:drop=on_drop>
                <CodeEditor text=create.text testid="create-text" label="Objects to create, as YAML"
                    min_lines=12 bad=Signal::derive(move || create.bad_lines())
                    placeholder="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: example\ndata:\n  key: value"/>
            </div>
            {move || dropped.get().map(|e| view! { <p class="error-text" role="alert">{e}</p> })}
            <div class="actions">
                <button data-testid="create-review" disabled=move || create.text.with(|t| t.trim().is_empty())
                    on:click=move |_| kube.with_value(|k| create.start_review(k, &default_ns()))>"Review"</button>
                <label class="check">
                    <input type="checkbox" data-testid="create-go-on"
                        on:change=move |ev| create.go_on.set(event_target_checked(&ev))/>
                    " create the good ones even if some fail"
                </label>
                <button data-testid="create-apply" disabled=move || !create.ready()
                    on:click=move |_| create.create()>"Create"</button>
            </div>
            <DocList create/>
        </section>
    }
}
