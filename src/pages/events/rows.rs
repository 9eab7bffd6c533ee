//! The event stream's rows: a virtualized table (only the rows in view are in the DOM), newest first, Warnings highlighted, involved objects linked.

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
    let first = move || span.get().0;
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
    let window = move || {
        let (first, count) = span.get();
        stream.window(first, count)
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
                // Fixed-height rows in flow after a padding for the rows above.
                <div role="rowgroup"
                    style:height=move || format!("{}px", stream.shown_len() as f64 * EVENT_ROW)
                    style:padding-top=move || format!("{}px", first() as f64 * EVENT_ROW)>
                    <ForEnumerate
                        each=window
                        key=|e| (e.key.clone(), e.count, e.last_seen, e.message.clone())
                        children={move |i: ReadSignal<usize>, e: Arc<EventRow>| view! {
                            <EventLine e i span now discovered/>
                        }}
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

/// One event's row, `i`th in the window that `span` places; `now` ages it.
#[component]
fn EventLine(
    e: Arc<EventRow>,
    i: ReadSignal<usize>,
    span: Memo<(usize, usize)>,
    now: Signal<f64>,
    discovered: Discovered,
) -> impl IntoView {
    let now = move || now.get();
    let first = move || span.get().0;
    let class = if e.is_warning() {
        "erow event-warning"
    } else {
        "erow"
    };
    let object = format!("{}/{}", e.namespace, e.object);
    let object_title = object.clone();
    view! {
        <div class=class role="row" data-testid="event-row"
            aria-rowindex=move || (first() + i.get() + 2).to_string()>
            <span role="cell">{let e = e.clone(); move || e.last_seen_age(now())}</span>
            <span role="cell" class="muted">{let e = e.clone(); move || e.first_seen_age(now())}</span>
            <span role="cell">{e.type_.clone()}</span>
            <span role="cell" title=e.reason.clone()>{e.reason.clone()}</span>
            <span role="cell" class="name" title=object_title>{
                // A link once discovery knows the kind (it may load after the row).
                let e = e.clone();
                move || match object_href(discovered, &e) {
                    Some(href) => view! { <a href=href data-testid="event-object-link">{object.clone()}</a> }.into_any(),
                    None => view! { <span>{object.clone()}</span> }.into_any(),
                }
            }</span>
            <span role="cell" class="num">{e.count}</span>
            <span role="cell" class="message" title=e.message.clone()>{e.message.clone()}</span>
            <span role="cell" class="muted" title=e.source.clone()>{e.source.clone()}</span>
        </div>
    }
}
