//! The changes page's controls: namespace and kind menus (their choices are what the rows hold), a manager box, the free text, the status-only toggle, and pause.

use leptos::prelude::*;

use super::state::ChangesState;
use crate::rules::filter::Filter;
use crate::rules::changes::ChangeFilter;

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
            <Menu label="Namespaces" testid="change-namespace" filter pick=|c| &c.namespaces
                get=|f| f.namespace.clone() set=|f, v| f.namespace = v choices/>
            <Menu label="Kinds" testid="change-kind" filter pick=|c| &c.kinds
                get=|f| f.kind.clone() set=|f, v| f.kind = v choices/>
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

/// One menu of the filter bar: "All …" and the values the rows hold (a
/// chosen one stays listed when its rows have gone).
#[component]
fn Menu(
    label: &'static str,
    testid: &'static str,
    filter: RwSignal<ChangeFilter>,
    choices: Memo<Choices>,
    pick: fn(&Choices) -> &Vec<String>,
    get: fn(&ChangeFilter) -> String,
    set: fn(&mut ChangeFilter, String),
) -> impl IntoView {
    view! {
        <select aria-label=label data-testid=testid
            on:change=move |ev| { let v = event_target_value(&ev); filter.update(|f| set(f, v)); }>
            <option value="">{format!("All {}", label.to_lowercase())}</option>
            {move || {
                let current = filter.with(get);
                let mut options = choices.with(|c| pick(c).clone());
                if !current.is_empty() && !options.contains(&current) {
                    options.push(current.clone());
                }
                options.into_iter().map(|o| {
                    let selected = o == current;
                    view! { <option value=o.clone() selected=selected>{o.clone()}</option> }
                }).collect_view()
            }}
        </select>
    }
}
