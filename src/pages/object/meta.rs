//! An object's labels and annotations (long values fold), its owners as links, and its conditions.

use leptos::prelude::*;
use serde_json::Value;

use crate::kube::Now;
use crate::kube::use_kube;
use crate::rules::objects::{conditions, owners, resource_of, string_map};
use crate::rules::time::age;
use crate::route::Route;

/// Values longer than this are folded into a `<details>` (a
/// last-applied-configuration annotation can be many kilobytes).
const FOLD_AT: usize = 80;

/// `metadata.<field>` as chips; long values fold.
#[component]
pub fn Chips(object: RwSignal<Option<Value>>, field: &'static str) -> impl IntoView {
    let testid = format!("{field}-chip");
    let chips = move || {
        object
            .with(|o| o.as_ref().map(|o| string_map(o, field)))
            .map(|pairs| {
                pairs
                    .into_iter()
                    .map(|(k, v)| chip(&k, &v, testid.clone()))
                    .collect_view()
            })
    };
    view! { <div class="chips" data-testid=field>{chips}</div> }
}

/// One `key=value` chip; a value longer than [`FOLD_AT`] folds.
pub fn chip(k: &str, v: &str, testid: String) -> AnyView {
    if v.chars().count() > FOLD_AT {
        let head: String = v.chars().take(FOLD_AT).collect();
        view! {
            <details class="chip chip-long" data-testid=testid>
                <summary>{format!("{k}={head}…")}</summary>
                <span class="chip-value">{format!("{k}={v}")}</span>
            </details>
        }
        .into_any()
    } else {
        view! { <span class="chip" data-testid=testid>{format!("{k}={v}")}</span> }.into_any()
    }
}

/// The owners as links to their pages ("none" once the object is loaded
/// and has none); an owner whose kind discovery does not know is text.
#[component]
pub fn Owners(object: RwSignal<Option<Value>>, namespace: Option<String>) -> impl IntoView {
    let discovered = use_kube().discovered();
    let links = move || {
        let d = discovered.get().and_then(Result::ok);
        let refs = object.with(|o| o.as_ref().map(owners))?;
        if refs.is_empty() {
            return Some(view! { <span class="muted small">"none"</span> }.into_any());
        }
        Some(
            refs.into_iter()
                .map(|r| {
                    let resource = d.as_ref().and_then(|d| {
                        resource_of(d, &r.api_version, &r.kind).map(|i| i.qualified_name())
                    });
                    let label = format!("{} {}", r.kind, r.name);
                    let link = resource.and_then(|resource| {
                        Route::Object {
                            resource,
                            namespace: namespace.clone(),
                            name: r.name.clone(),
                        }
                        .link()
                    });
                    match link {
                        Some(href) => view! { <a class="chip link" href=href data-testid="owner-link">{label}</a> }.into_any(),
                        None => view! { <span class="chip">{label}</span> }.into_any(),
                    }
                })
                .collect_view()
                .into_any(),
        )
    };
    view! { <div class="chips" data-testid="owners">{links}</div> }
}

/// `status.conditions`, with how long each has held.
#[component]
pub fn Conditions(object: RwSignal<Option<Value>>) -> impl IntoView {
    let now = expect_context::<Now>().0;
    let rows =
        move || {
            object.with(|o| o.as_ref().map(conditions)).map(|cs| {
                cs.into_iter()
                .map(|c| {
                    let cls = if c.status == "True" { "status-ok" } else { "status-warn" };
                    let since = c.since.map(|t| age(now.get_untracked(), t)).unwrap_or_default();
                    view! {
                        <tr data-testid="condition"><td>{c.type_}</td><td class=cls>{c.status}</td>
                        <td>{c.reason}</td><td class="message">{c.message}</td><td>{since}</td></tr>
                    }
                })
                .collect_view()
            })
        };
    view! {
        <div class="table-scroll">
            <table class="grid" data-testid="conditions">
                <thead><tr><th>"Type"</th><th>"Status"</th><th>"Reason"</th><th>"Message"</th><th>"Since"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
