//! The changes' rows: a virtualized list (only the rows in view are in the DOM), newest first; a row links its object and picks its diff.

use std::sync::Arc;

use leptos::prelude::*;

use super::state::ChangesState;
use crate::components::scroll::ScrollWindow;
use crate::rules::changes::{Entry, Op};
use crate::platform::local_time;
use crate::route::Route;

/// Height of one row, px (`.erow` in style/main.css).
const ROW: f64 = 30.0;
/// Height of the list before it is first measured, px (`.ebody`'s max-height).
const VIEWPORT: f64 = 460.0;
/// Rows kept in the DOM above and below the visible ones.
const OVERSCAN: usize = 6;

/// The rows shown, newest first.
#[component]
pub fn ChangeRows(changes: ChangesState) -> impl IntoView {
    let scroll = ScrollWindow::new(VIEWPORT);
    let span = Memo::new(move |_| scroll.rows(changes.len(), ROW, OVERSCAN));
    let window = move || {
        let (first, count) = span.get();
        changes
            .shown
            .with(|s: &Result<super::state::Shown, String>| match s {
                Ok(s) => s.rows.iter().skip(first).take(count).cloned().collect(),
                Err(_) => Vec::new(),
            })
    };
    view! {
        <div class="etable ctable" role="table" data-testid="change-table"
            aria-rowcount=move || (changes.len() + 1).to_string()>
            <div class="erow ehead" role="row" aria-rowindex="1">
                <span role="columnheader">"Time"</span><span role="columnheader">"What"</span>
                <span role="columnheader">"Kind"</span><span role="columnheader">"Object"</span>
                <span role="columnheader">"By"</span><span role="columnheader">"Change"</span>
            </div>
            <div class="ebody" on:scroll=move |ev| scroll.on_scroll(&ev) data-testid="change-body"
                tabindex="0" aria-label="Changes, newest first">
                <div role="rowgroup"
                    style:height=move || format!("{}px", changes.len() as f64 * ROW)
                    style:padding-top=move || format!("{}px", span.get().0 as f64 * ROW)>
                    <ForEnumerate each=window key={|e: &Arc<Entry>| e.seq}
                        children={move |i: ReadSignal<usize>, e: Arc<Entry>| {
                            let row = Signal::derive(move || span.get().0 + i.get() + 2);
                            view! { <ChangeLine e row changes/> }
                        }}/>
                </div>
            </div>
        </div>
    }
}

/// One row: when, what, the object (a link), who, the summary.
#[component]
fn ChangeLine(e: Arc<Entry>, row: Signal<usize>, changes: ChangesState) -> impl IntoView {
    let seq = e.seq;
    let s = &e.subject;
    let object = match &s.namespace {
        Some(ns) => format!("{ns}/{}", s.name),
        None => s.name.clone(),
    };
    let href = (!s.resource.is_empty()).then(|| {
        Route::Object {
            resource: s.resource.clone(),
            namespace: s.namespace.clone(),
            name: s.name.clone(),
        }
        .href()
    });
    let link = match href {
        Some(href) => {
            view! { <a href=href on:click=|ev| ev.stop_propagation()>{object.clone()}</a> }
                .into_any()
        }
        None => view! { <span>{object.clone()}</span> }.into_any(),
    };
    let by = if e.by.is_empty() {
        "—".to_string()
    } else {
        e.by.join(", ")
    };
    let op = e.op;
    view! {
        <div class="erow change" role="row" aria-rowindex=move || row.get().to_string() data-testid="change-row"
            data-op=op.word() data-seq=seq.to_string()
            class:event-warning=op == Op::Warning class:status-only=e.status_only
            class:picked=move || changes.picked.get() == Some(seq)
            on:click=move |_| changes.picked.update(|p| *p = if *p == Some(seq) { None } else { Some(seq) })>
            <span role="cell">{local_time(e.at)}</span>
            <span role="cell" class=format!("op op-{}", op.word())>{op.word()}</span>
            <span role="cell">{s.kind.clone()}</span>
            <span role="cell" class="name" title=object.clone()>{link}</span>
            <span role="cell" data-testid="change-by" title=by.clone()>{by.clone()}</span>
            <span role="cell" class="message" data-testid="change-summary" title=e.summary.clone()>{e.summary.clone()}</span>
        </div>
    }
}
