//! The event stream's rows: a virtualized table (a ring of the rows in view), newest first, Warnings highlighted, involved objects linked.

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

/// Numbers each stream's ring of rows, so their element ids are unique.
static NEXT_RING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The element id of one slot of one stream's ring.
fn slot_id(ring: usize, slot: usize) -> String {
    format!("ering{ring}-{slot}")
}

/// One on-screen event: its place in the list, and the row.
#[derive(Clone)]
struct Shown(usize, Arc<EventRow>);

impl PartialEq for Shown {
    /// The same place and the same row (rows are replaced, never changed
    /// in place, so the pointer says it).
    fn eq(&self, o: &Self) -> bool {
        self.0 == o.0 && Arc::ptr_eq(&self.1, &o.1)
    }
}

/// The table of the events shown, newest first; `now` ages them.
///
/// The rows in view are a ring of DOM rows, as a resource table's are
/// (`pages/resource/ring`): the event at place `index` goes to slot
/// `index % slots`, placed at `index × EVENT_ROW`. A new event at the top
/// shifts every place by one, and each slot's text changes; no row is
/// taken out of the DOM or put back (with keyed rows, every visible row
/// moved each frame under a stream of writes).
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
    let window = Memo::new(move |_| {
        let (first, count) = span.get();
        let rows: Vec<Shown> = stream
            .window(first, count)
            .into_iter()
            .enumerate()
            .map(|(j, e)| Shown(first + j, e))
            .collect();
        (count.max(1), rows)
    });
    let on_scroll = move |ev: leptos::ev::Event| scroll.on_scroll(&ev);
    let discovered = kube.discovered();
    let ring = NEXT_RING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
                // The rows' DOM order is slot order; aria-owns gives
                // assistive technology their screen order, as the tables do.
                <div class="espacer" role="rowgroup"
                    style:height=move || format!("{}px", stream.shown_len() as f64 * EVENT_ROW)
                    aria-owns=move || window.with(|(slots, rows)| {
                        rows.iter().map(|r| slot_id(ring, r.0 % slots)).collect::<Vec<_>>().join(" ")
                    })>
                    // In slot order: the set rarely changes as the window
                    // moves, so no element is moved in the DOM.
                    <For
                        each=move || window.with(|(slots, rows)| {
                            let mut s: Vec<usize> = rows.iter().map(|r| r.0 % slots).collect();
                            s.sort_unstable();
                            s
                        })
                        key=|slot| *slot
                        children=move |slot| view! { <EventSlot window ring slot_index=slot now discovered/> }
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

/// One slot of the ring: whichever event of the window falls in it; `now`
/// ages it. Only text and attributes change as the events move.
#[component]
fn EventSlot(
    window: Memo<(usize, Vec<Shown>)>,
    ring: usize,
    slot_index: usize,
    now: Signal<f64>,
    discovered: Discovered,
) -> impl IntoView {
    let row = Memo::new(move |_| {
        window.with(|(slots, rows)| rows.iter().find(|r| r.0 % slots == slot_index).cloned())
    });
    let text = move |f: fn(&EventRow) -> String| {
        move || row.with(|r| r.as_ref().map(|r| f(&r.1)).unwrap_or_default())
    };
    let href = Memo::new(move |_| row.with(|r| r.as_ref().and_then(|r| object_href(discovered, &r.1))));
    let object = text(|e| format!("{}/{}", e.namespace, e.object));
    view! {
        <div role="row" data-testid="event-row" id=slot_id(ring, slot_index)
            class=move || row.with(|r| match r {
                Some(r) if r.1.is_warning() => "erow event-warning",
                _ => "erow",
            })
            aria-rowindex=move || row.with(|r| r.as_ref().map(|r| (r.0 + 2).to_string()))
            style:transform=move || row.with(|r| r.as_ref().map(|r| format!("translateY({}px)", r.0 as f64 * EVENT_ROW)))>
            <span role="cell">{move || row.with(|r| r.as_ref().map(|r| r.1.last_seen_age(now.get())))}</span>
            <span role="cell" class="muted">{move || row.with(|r| r.as_ref().map(|r| r.1.first_seen_age(now.get())))}</span>
            <span role="cell">{text(|e| e.type_.clone())}</span>
            <span role="cell" title=text(|e| e.reason.clone())>{text(|e| e.reason.clone())}</span>
            <span role="cell" class="name" title=object>
                // A link once discovery knows the kind (it may load after
                // the row); without an href the anchor is plain text.
                <a href=move || href.get()
                    data-testid=move || href.with(|h| h.is_some().then_some("event-object-link"))>{object}</a>
            </span>
            <span role="cell" class="num">{text(|e| e.count.to_string())}</span>
            <span role="cell" class="message" title=text(|e| e.message.clone())>{text(|e| e.message.clone())}</span>
            <span role="cell" class="muted" title=text(|e| e.source.clone())>{text(|e| e.source.clone())}</span>
        </div>
    }
}
