//! The picked row in full: what happened to which object, who did it, and its field diff.

use leptos::prelude::*;

use super::state::ChangesState;
use crate::components::diff::FieldDiff;
use crate::platform::local_time;

/// The picked row's diff, or how to pick one.
#[component]
pub fn ChangeDetail(changes: ChangesState) -> impl IntoView {
    move || {
        let Some(seq) = changes.picked.get() else {
            return view! { <p class="muted small" data-testid="change-hint">"Pick a row to see what changed, field by field."</p> }.into_any();
        };
        let Some(e) = changes.store.entry(seq) else {
            return view! { <p class="muted small">"That row is no longer kept (the oldest rows go first)."</p> }.into_any();
        };
        let s = &e.subject;
        let object = match &s.namespace {
            Some(ns) => format!("{} {ns}/{}", s.kind, s.name),
            None => format!("{} {}", s.kind, s.name),
        };
        let by = if e.by.is_empty() {
            String::new()
        } else {
            format!(", by {}", e.by.join(", "))
        };
        let heading = format!("{object} {} at {}{by}", e.op.word(), local_time(e.at));
        let body = if e.changes.is_empty() {
            view! { <p class="muted small" data-testid="change-detail-summary">{e.summary.clone()}</p> }.into_any()
        } else {
            view! { <FieldDiff changes=e.changes.clone() testid="change-diff"/> }.into_any()
        };
        view! {
            <div class="change-detail" data-testid="change-detail">
                <h3 class="small">{heading}</h3>
                {body}
            </div>
        }
        .into_any()
    }
}
