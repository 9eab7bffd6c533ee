//! An object's drift: how the live object left the manifest `kubectl apply` last applied, for the fields that manifest sets.

use leptos::prelude::*;
use serde_json::Value;

use crate::rules::drift::drift;
use crate::rules::versions::short;

/// The Drift section; nothing when the object was never `kubectl apply`'d.
#[component]
pub fn ObjectDrift(object: RwSignal<Option<Value>>) -> impl IntoView {
    let found = Memo::new(move |_| object.with(|o| o.as_ref().and_then(drift)));
    move || {
        found.get().map(|changes| {
            let body = if changes.is_empty() {
                view! { <p class="muted small" data-testid="drift-none">"None: every field the last kubectl apply set is as it set it."</p> }
                    .into_any()
            } else {
                view! {
                    <div class="table-scroll">
                        <table class="grid" data-testid="drift">
                            <thead><tr><th>"Field"</th><th>"Applied"</th><th>"Live"</th></tr></thead>
                            <tbody>
                                {changes.into_iter().map(|c| {
                                    let applied = c.old.as_ref().map(short).unwrap_or_else(|| "—".into());
                                    let live = c.new.as_ref().map(short).unwrap_or_else(|| "(gone)".into());
                                    view! {
                                        <tr data-testid="drift-row">
                                            <td><code>{c.path}</code></td>
                                            <td class="diff-old">{applied}</td>
                                            <td class="diff-new">{live}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                }
                .into_any()
            };
            view! {
                <h3>"Drift from the last kubectl apply"</h3>
                {body}
            }
        })
    }
}
