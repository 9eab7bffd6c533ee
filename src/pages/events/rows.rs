//! The event stream's rows: a virtualized table (only the rows in view are in the DOM, a ring of slots whose text changes as events arrive, no row moved), newest first, Warnings highlighted, involved objects linked.

use std::sync::Arc;

use kubeglass_client::discovery::Discovery;
use leptos::prelude::*;

use super::state::Stream;
use crate::components::scroll::ScrollWindow;
use crate::kube::use_kube;
use crate::rules::events::EventRow;
use crate::rules::objects::resource_of;
use crate::rules::problem::Problem;
use crate::route::Route;

/// Height of one event row, px (`.erow` in style/main.css).
const EVENT_ROW: f64 = 30.0;
/// Height of the event list before it is first measured, px (`.ebody`'s
/// max-height).
const EVENTS_VIEWPORT: f64 = 460.0;
/// Rows kept in the DOM above and below the visible ones.
const EVENT_OVERSCAN: usize = 6;

/// The latest discovery (None while loading), as the app keeps it.
type Discovered = ReadSignal<Option<Result<Arc<Discovery>, Problem>>>;

/// The table of the events shown, newest first; `now` ages them.
#[component]
pub fn EventRows(stream: Stream, now: Signal<f64>) -> impl IntoView {
    let kube = use_kube();
    // Only the rows in view (plus overscan) are in the DOM.
    let scroll = ScrollWindow::new(EVENTS_VIEWPORT);
    let span = Memo::new(move |_| scroll.rows(stream.shown_len(), EVENT_ROW, EVENT_OVERSCAN));
    // A new filter starts at the newest match.
    let body_ref = NodeRef::<leptos::html::Div>::new();
    Effect::watch(
        move || stream.filter.track(),
        move |_, _, _| {
            if let Some(el) = body_ref.get_untracked() {
                el.set_scroll_top(0);
            }
            scroll.to_top();
        },
        false,
    );
    // The rows in the window as (index, row), and the ring's size: row
    // `index` is drawn by slot `index % slots`, placed at its own offset, so
    // new events at the top rewrite the slots' text and move no element
    // (keyed rows moved every one of them in the DOM, each frame).
    let window = Memo::new(move |_| {
        let (first, count) = span.get();
        let rows: Vec<(usize, Arc<EventRow>)> = stream
            .window(first, count)
            .into_iter()
            .enumerate()
            .map(|(j, e)| (first + j, e))
            .collect();
        (count.max(1), rows)
    });
    let slots = move || {
        window.with(|(slots, rows)| {
            let mut s: Vec<usize> = rows.iter().map(|(i, _)| i % slots).collect();
            s.sort_unstable();
            s
        })
    };
    let on_scroll = move |ev: leptos::ev::Event| scroll.on_scroll(&ev);
    let discovered = kube.discovered();
    view! {
        <div class="etable" role="table" data-testid="event-table"
            aria-rowcount=move || (stream.shown_len() + 1).to_string()>
            <div class="erow ehead" role="row" aria-rowindex="1">
                <span role="columnheader">"Last seen"</span><span role="columnheader">"First seen"</span>
                <span role="columnheader">"Type"</span><span role="columnheader">"Reason"</span>
                <span role="columnheader">"Object"</span><span role="columnheader" class="num">"Count"</span>
                <span role="columnheader">"Message"</span><span role="columnheader">"From"</span>
            </div>
            <div class="ebody" node_ref=body_ref on:scroll=on_scroll data-testid="event-body"
                tabindex="0" aria-label="Events, newest first">
                // A ring of fixed-height rows, each at its own offset; the
                // slots in DOM order, which a screen's order matches from
                // the top (slot 0 holds the newest row shown there).
                <div class="espacer" role="rowgroup"
                    style:height=move || format!("{}px", stream.shown_len() as f64 * EVENT_ROW)>
                    <For
                        each=slots
                        key=|slot| *slot
                        children=move |slot| view! { <EventLine window slot_index=slot now discovered/> }
                    />
                </div>
            </div>
        </div>
    }
}

/// The involved object's page, when discovery knows its kind.
fn object_href(discovered: Discovered, e: &EventRow) -> Option<String> {
    let d = discovered.get().and_then(Result::ok)?;
    let r = resource_of(&d, &e.involved.api_version, &e.involved.kind)?;
    // No link when the namespace or name could not be part of a request
    // path (a hostile Event): the object is then shown as text.
    Route::Object {
        resource: r.qualified_name(),
        namespace: (!e.involved.namespace.is_empty()).then(|| e.involved.namespace.clone()),
        name: e.involved.name.clone(),
    }
    .link()
}

/// The involved object as the row names it.
fn object(e: &EventRow) -> String {
    format!("{}/{}", e.namespace, e.object)
}

/// The rows of the window as (index, row), and the ring's number of slots.
type Window = Memo<(usize, Vec<(usize, Arc<EventRow>)>)>;

/// Slot `slot` of the ring: whichever row of `window` falls to it, at its
/// offset; `now` ages it. Only text and attributes change as rows move.
#[component]
fn EventLine(
    window: Window,
    slot_index: usize,
    now: Signal<f64>,
    discovered: Discovered,
) -> impl IntoView {
    let slot = slot_index;
    let row = Memo::new(move |_| {
        window.with(|(slots, rows)| rows.iter().find(|(i, _)| i % slots == slot).cloned())
    });
    let text = move |f: fn(&EventRow) -> String| move || row.with(|r| r.as_ref().map(|(_, e)| f(e)).unwrap_or_default());
    let age = move |f: fn(&EventRow, f64) -> String| {
        move || {
            let t = now.get();
            row.with(|r| r.as_ref().map(|(_, e)| f(e, t)).unwrap_or_default())
        }
    };
    let class = move || match row.with(|r| r.as_ref().map(|(_, e)| e.is_warning())) {
        Some(true) => "erow event-warning",
        _ => "erow",
    };
    let link = move || {
        let (_, e) = row.get()?;
        let words = object(&e);
        Some(match object_href(discovered, &e) {
            // A link once discovery knows the kind (it may load after the row).
            Some(href) => view! { <a href=href data-testid="event-object-link">{words}</a> }.into_any(),
            None => view! { <span>{words}</span> }.into_any(),
        })
    };
    view! {
        <div class=class role="row" data-testid="event-row"
            aria-rowindex=move || row.with(|r| r.as_ref().map(|(i, _)| (i + 2).to_string()))
            style:transform=move || row.with(|r| r.as_ref().map(|(i, _)| format!("translateY({}px)", *i as f64 * EVENT_ROW)))>
            <span role="cell">{age(|e, t| e.last_seen_age(t))}</span>
            <span role="cell" class="muted">{age(|e, t| e.first_seen_age(t))}</span>
            <span role="cell">{text(|e| e.type_.clone())}</span>
            <span role="cell" title=text(|e| e.reason.clone())>{text(|e| e.reason.clone())}</span>
            <span role="cell" class="name" title=text(object)>{link}</span>
            <span role="cell" class="num">{text(|e| e.count.to_string())}</span>
            <span role="cell" class="message" title=text(|e| e.message.clone())>{text(|e| e.message.clone())}</span>
            <span role="cell" class="muted" title=text(|e| e.source.clone())>{text(|e| e.source.clone())}</span>
        </div>
    }
}
