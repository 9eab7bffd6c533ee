//! Changes (`#/changes`, once called the change timeline: `:timeline` still opens it): every add, update and delete across the workload kinds, Warning events between them, live and newest first; a row expands to its diff.

mod detail;
mod filters;
mod rows;
mod state;

use leptos::prelude::*;

use crate::kube::stores::changes::{Recorded, use_changes};
use crate::kube::use_kube;
use crate::kube::subscribe::watch_problem;
use crate::platform::local_time;

use detail::ChangeDetail;
use filters::ChangeFilters;
use rows::ChangeRows;
use state::ChangesState;

/// The page: what is recorded since when, the filters, the rows and the picked row's diff.
#[component]
pub fn ChangesPage() -> impl IntoView {
    let store = use_changes();
    store.start(&use_kube());
    let changes = ChangesState::new(store);
    view! {
        <section class="panel" data-testid="changes-page">
            <h2>"Changes"</h2>
            <ChangesHeading changes/>
            <Recording/>
            <ChangeFilters changes/>
            <ChangeRows changes/>
            <ChangeDetail changes/>
        </section>
    }
}

/// Since when the tab records, and what the rows hold.
#[component]
fn ChangesHeading(changes: ChangesState) -> impl IntoView {
    let since = move || changes.store.with(|t| local_time(t.since));
    let counts = move || {
        let (kept, dropped) = changes.store.with(|t| (t.held().0, t.dropped));
        let shown = changes
            .shown
            .with(|s| s.as_ref().map(|s| (s.rows.len(), s.waiting, s.folded)).ok());
        let mut line = match shown {
            Some((rows, _, _)) => format!("{rows} of {kept} changes shown"),
            None => format!("{kept} changes"),
        };
        if let Some((_, _, folded)) = shown.filter(|s| s.2 > 0) {
            line.push_str(&format!(" · {folded} status-only updates folded"));
        }
        if let Some((_, waiting, _)) = shown.filter(|_| changes.paused_at.get().is_some()) {
            line.push_str(&format!(" · paused: {waiting} arrived"));
        }
        if dropped > 0 {
            line.push_str(&format!(" · {dropped} oldest dropped"));
        }
        line
    };
    view! {
        <p class="muted small" data-testid="changes-since">
            "Recording since " {since} ", when this page was first opened in this tab. "
            "What changed before that is not known here."
        </p>
        <p class="small" data-testid="changes-count">{counts}</p>
    }
}

/// The kinds recorded, each with its state, and a box to add one.
#[component]
fn Recording() -> impl IntoView {
    let (store, kube) = (use_changes(), use_kube());
    let kube = StoredValue::new_local(kube);
    let text = RwSignal::new(String::new());
    let add = move || {
        let name = text.get_untracked();
        kube.with_value(|k| store.add(k, &name));
        text.set(String::new());
    };
    view! {
        <details class="small" data-testid="changes-kinds">
            <summary>{move || store.kinds.with(|k| format!("{} kinds recorded", k.iter().filter(|r| r.problem.is_none()).count()))}</summary>
            <ul class="chips">
                {move || store.kinds.get().into_iter().map(|r| view! { <KindChip r/> }).collect_view()}
            </ul>
            <input type="text" placeholder="add a kind: statefulsets, db, certificates.cert-manager.io" aria-label="Add a kind"
                data-testid="changes-add-kind" prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" { add() }/>
        </details>
    }
}

/// One recorded kind: its name, and why it is not recorded or what its watch is doing.
#[component]
fn KindChip(r: Recorded) -> impl IntoView {
    let label = r.kind.clone().unwrap_or_else(|| r.name.clone());
    let bad = r.problem.is_some();
    let state = move || match (&r.problem, r.status) {
        (Some(p), _) => p.clone(),
        (None, Some(s)) => s.with(|s| match watch_problem(s) {
            Some(p) => p.explain("watch it"),
            None if s.synced => "recording".to_string(),
            None => "listing…".to_string(),
        }),
        (None, None) => "asking discovery…".to_string(),
    };
    view! {
        <li class="chip" class:status-bad=bad data-testid="changes-kind" data-kind=label.clone()>
            {label.clone()} ": " {state}
        </li>
    }
}
