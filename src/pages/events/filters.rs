//! The event stream's filters: type, reason, namespace and kind menus (their choices are what the events hold now), the involved object's name and free text.

use crate::rules::filter::Filter;
use leptos::prelude::*;

use crate::components::filter_menu::FilterMenu;

use crate::rules::events::{EventFilter, EventIndex};

/// The choices of the event filter menus.
#[derive(Clone, PartialEq)]
struct Choices {
    reasons: Vec<String>,
    namespaces: Vec<String>,
    kinds: Vec<String>,
}

/// The filter controls; they change `filter`.
#[component]
pub fn EventFilters(filter: RwSignal<EventFilter>, events: RwSignal<EventIndex>) -> impl IntoView {
    // The choices of each menu: what the events hold now.
    let choices = Memo::new(move |_| {
        events.with(|ix| Choices {
            reasons: ix.reasons().keys().cloned().collect(),
            namespaces: ix.namespaces().keys().cloned().collect(),
            kinds: ix.kinds().keys().cloned().collect(),
        })
    });
    let menu = move |label: &'static str,
                     testid: &'static str,
                     pick: fn(&Choices) -> &Vec<String>,
                     set: fn(&mut EventFilter, String),
                     get: fn(&EventFilter) -> String| {
        view! {
            <FilterMenu label testid
                current=Signal::derive(move || filter.with(get))
                options=Signal::derive(move || choices.with(|c| pick(c).clone()))
                on_pick=move |v| filter.update(|f| set(f, v))/>
        }
    };
    view! {
                <select aria-label="Event type" data-testid="event-type-filter"
                    on:change=move |ev| { let v = event_target_value(&ev); filter.update(|f| f.type_ = v); }>
                    <option value="">"All types"</option>
                    <option value="Warning">"Warning"</option>
                    <option value="Normal">"Normal"</option>
                </select>
                {menu("Reasons", "event-reason-filter", |c| &c.reasons, |f, v| f.reason = v, |f| f.reason.clone())}
                {menu("Namespaces", "event-namespace-filter", |c| &c.namespaces, |f, v| f.namespace = v, |f| f.namespace.clone())}
                {menu("Kinds", "event-kind-filter", |c| &c.kinds, |f, v| f.kind = v, |f| f.kind.clone())}
                <input class="filter narrow" type="search" placeholder="Object name"
                    aria-label="Involved object name" data-testid="event-object-filter"
                    prop:value=move || filter.with(|f| f.object.clone())
                    on:input=move |ev| { let v = event_target_value(&ev); filter.update(|f| f.object = v); }/>
                <input class="filter" type="search" placeholder="Text in reason, object, message, source (/regex/)"
                    aria-label="Filter events" data-testid="event-filter"
                    prop:value=move || filter.with(|f| f.text.clone())
                    on:input=move |ev| { let v = event_target_value(&ev); filter.update(|f| f.text = v); }/>
                {move || filter
                    .with(|f| Filter::parse(&f.text).error(crate::platform::regex))
                    .map(|e| view! { <p class="error-box" data-testid="event-filter-error">"Filter: " {e}</p> })}
    }
}
