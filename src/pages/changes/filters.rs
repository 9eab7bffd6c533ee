//! The changes page's controls: namespace and kind menus (their choices are what the rows hold), a manager box, the free text, the status-only toggle, and pause.

use leptos::prelude::*;

use super::state::ChangesState;
use crate::components::filter_menu::FilterMenu;
use crate::rules::filter::Filter;

/// The namespaces and kinds the rows hold now.
#[derive(Clone, PartialEq, Default)]
struct Choices {
    namespaces: Vec<String>,
    kinds: Vec<String>,
}

/// The filter bar; it changes `changes.filter` and the pause.
#[component]
pub fn ChangeFilters(changes: ChangesState) -> impl IntoView {
    let filter = changes.filter;
    let choices = Memo::new(move |_| {
        changes.store.with(|t| Choices {
            namespaces: t.namespaces().cloned().collect(),
            kinds: t.kinds().cloned().collect(),
        })
    });
    let error = move || filter.with(|f| Filter::parse(&f.text).error(crate::platform::regex));
    view! {
        <div class="toolbar" data-testid="change-filters">
            <FilterMenu label="Namespaces" testid="change-namespace"
                current=Signal::derive(move || filter.with(|f| f.namespace.clone()))
                options=Signal::derive(move || choices.with(|c| c.namespaces.clone()))
                on_pick=move |v| filter.update(|f| f.namespace = v)/>
            <FilterMenu label="Kinds" testid="change-kind"
                current=Signal::derive(move || filter.with(|f| f.kind.clone()))
                options=Signal::derive(move || choices.with(|c| c.kinds.clone()))
                on_pick=move |v| filter.update(|f| f.kind = v)/>
            <input type="search" placeholder="manager" aria-label="Manager" data-testid="change-manager"
                on:input=move |ev| { let v = event_target_value(&ev); filter.update(|f| f.manager = v); }/>
            <input type="search" placeholder="filter: text or /regex/" aria-label="Filter changes" data-testid="change-filter"
                on:input=move |ev| { let v = event_target_value(&ev); filter.update(|f| f.text = v); }/>
            <label class="check">
                <input type="checkbox" data-testid="change-status-only"
                    prop:checked=move || filter.with(|f| f.status_only)
                    on:change=move |ev| { let on = event_target_checked(&ev); filter.update(|f| f.status_only = on); }/>
                " status-only updates"
            </label>
            <button data-testid="change-pause" on:click=move |_| changes.toggle_pause()>
                {move || if changes.paused_at.get().is_some() { "Resume" } else { "Pause" }}
            </button>
        </div>
        {move || error().map(|e| view! { <p class="error-text" data-testid="change-filter-error">{e}</p> })}
    }
}
