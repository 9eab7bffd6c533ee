//! A table's toolbar: the row filter (text or `/regex/`), kubectl's wide columns, and the server-side label and field selectors (in the URL).

use kubeglass_client::discovery::ResourceInfo;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use super::state::{Table, compile_regex};
use crate::rules::filter::Filter;
use crate::route::{Route, navigate, use_route};

/// The toolbar; selectors apply on Enter, as a new URL.
#[component]
pub fn Toolbar(
    table: Table,
    info: ResourceInfo,
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
) -> impl IntoView {
    let label_input = RwSignal::new(labels.unwrap_or_default());
    let field_input = RwSignal::new(fields.unwrap_or_default());
    let (resource, ns) = (info.qualified_name(), namespace);
    let route = use_route();
    let apply_selectors = StoredValue::new(move || {
        let given = |s: RwSignal<String>| {
            let t = s.get_untracked().trim().to_string();
            (!t.is_empty()).then_some(t)
        };
        navigate(&Route::Resource {
            resource: resource.clone(),
            namespace: ns.clone(),
            labels: given(label_input),
            fields: given(field_input),
            // The person's own columns stay.
            columns: route.get_untracked().own_columns(),
        });
    });
    let on_enter = move |ev: KeyboardEvent| {
        if ev.key() == "Enter" {
            apply_selectors.with_value(|f| f());
        }
    };
    let filter_error = move || Filter::parse(&table.filter.get()).error(compile_regex);
    view! {
        <div class="toolbar">
            <input
                node_ref=table.filter_input
                class="filter"
                type="search"
                placeholder="Filter (/ to focus, /regex/)"
                aria-label="Filter rows"
                data-testid="row-filter"
                prop:value=move || table.filter.get()
                on:input=move |ev| { table.filter.set(event_target_value(&ev)); table.selected.set(0); }
            />
            <Show when=move || table.has_wide()>
                <button class="theme-toggle" data-testid="wide-toggle" title="kubectl -o wide's columns too (w)"
                    aria-pressed=move || table.wide.get().to_string()
                    on:click=move |_| table.toggle_wide()>
                    "Wide"
                </button>
            </Show>
            {table.usage.map(|_| view! {
                <button class="theme-toggle" data-testid="usage-toggle"
                    title="CPU and memory from metrics.k8s.io, polled every 15 s while shown"
                    aria-pressed=move || table.usage_on.get().to_string()
                    on:click=move |_| table.toggle_usage()>
                    "CPU/memory"
                </button>
            })}
            {selector(label_input, "label selector, e.g. app=web", "Label selector", "label-selector", on_enter)}
            {selector(field_input, "field selector, e.g. status.phase=Running", "Field selector", "field-selector", on_enter)}
        </div>
        {move || filter_error().map(|e| view! { <p class="error-box" data-testid="filter-error">"Filter: " {e}</p> })}
    }
}

/// A selector's box, applied on Enter.
fn selector(
    value: RwSignal<String>,
    placeholder: &'static str,
    label: &'static str,
    testid: &'static str,
    on_enter: impl Fn(KeyboardEvent) + Copy + 'static,
) -> impl IntoView {
    view! {
        <input class="selector" type="text" placeholder=placeholder aria-label=label data-testid=testid
            prop:value=move || value.get()
            on:input=move |ev| value.set(event_target_value(&ev))
            on:keydown=on_enter
        />
    }
}
