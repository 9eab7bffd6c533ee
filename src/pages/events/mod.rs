//! The live event stream (its own page, and the overview's last panel): newest first, filters, pause, a per-minute sparkline.

mod filters;

use std::sync::Arc;

use kubeglass_client::cache::InformerOptions;
use kubeglass_client::k8s_openapi::api::core::v1::Event;
use kubeglass_client::kube_core::DynamicObject;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::components::scroll::ScrollWindow;
use crate::kube::Now;
use crate::kube::cluster::ClusterState;
use crate::kube::use_kube;
use crate::kube::watch::{collection_path, watch_problem};
use crate::model::events::{
    EventFilter, EventIndex, EventRow, Sparkline, arrived_words, held_words, per_minute,
};
use crate::model::namespaces::scope_label;
use crate::model::objects::resource_of;
use crate::pages::events::filters::EventFilters;
use crate::route::Route;

/// The `#/events` page: the stream of the app's namespace.
#[component]
pub fn EventsPage() -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    move || {
        let namespace = cluster.namespace.get();
        view! { <EventStream namespace/> }
    }
}

/// Minutes the sparkline covers.
const SPARK_MINUTES: usize = 30;
/// Height of one event row, px (`.erow` in style/main.css).
const EVENT_ROW: f64 = 30.0;
/// Height of the event list before it is first measured, px (`.ebody`'s
/// max-height).
const EVENTS_VIEWPORT: f64 = 460.0;
/// Rows kept in the DOM above and below the visible ones.
const EVENT_OVERSCAN: usize = 6;

/// The live event stream: newest first, Warnings highlighted, count and
/// first/last seen, filters by type, reason, namespace, kind, involved
/// object and text, pause and resume, an events-per-minute sparkline;
/// involved objects link to their pages.
#[component]
pub fn EventStream(namespace: Option<String>) -> impl IntoView {
    let kube = use_kube();
    let events: RwSignal<EventIndex> = RwSignal::new(EventIndex::default());
    let filter = RwSignal::new(EventFilter::default());
    let paused = RwSignal::new(false);
    // Events that pass the filter, added or changed since the pause (the
    // person is told how many).
    let arrived = RwSignal::new(0usize);
    let watch = collection_path::<Event>(&kube, namespace.as_deref()).map(|path| {
        kube.watch_frames(
            "event-rows",
            InformerOptions::<DynamicObject>::new(path),
            move |inf, keys| {
                let indexer = inf.indexer();
                let store = indexer.borrow();
                let changes = keys.into_iter().map(|k| {
                    let row = store.get(&k).map(|e| EventRow::from_object(&e));
                    (k, row)
                });
                let counting = paused.get_untracked();
                let new = filter.with_untracked(|f| {
                    let pass = f.matcher();
                    events
                        .try_update(|ix| ix.apply(changes, |row| counting && pass(row)))
                        .unwrap_or(0)
                });
                if new > 0 {
                    arrived.update(|n| *n += new);
                }
            },
        )
    });
    let status = watch.as_ref().ok().map(|w| w.status());
    let path_problem = watch.as_ref().err().cloned();
    let _watch = StoredValue::new_local(watch.ok());
    let doing = format!("list events {}", scope_label(namespace.as_deref()));
    let problem = move || {
        let p = path_problem
            .clone()
            .or_else(|| status.and_then(|s| s.with(watch_problem)))?;
        Some(view! { <ProblemBox problem=p doing=doing.clone() testid="events-problem"/> })
    };
    // The app's once-a-second clock: ages and the sparkline keep ticking
    // between events.
    let clock = expect_context::<Now>().0;
    let now = move || clock.get();
    // While paused the stream reads a copy of the index taken at the pause
    // (its keys and counts; the rows themselves are shared).
    let frozen: RwSignal<EventIndex> = RwSignal::new(EventIndex::default());
    let toggle_pause = move |_| {
        if !paused.get_untracked() {
            frozen.set(events.get_untracked());
        }
        arrived.set(0);
        paused.update(|p| *p = !*p);
    };
    let with_source = move |f: &mut dyn FnMut(&EventIndex)| {
        if paused.get() {
            frozen.with(|ix| f(ix))
        } else {
            events.with(|ix| f(ix))
        }
    };
    // With a filter set, every event that passes it, newest first (shared
    // rows: a frame copies pointers). Without one, the index is read in
    // place.
    let filtered = Memo::new(move |_| {
        let f = filter.get();
        (f != EventFilter::default()).then(|| {
            let mut v: Vec<Arc<EventRow>> = Vec::new();
            let pass = f.matcher();
            with_source(&mut |ix| {
                v = ix.newest().filter(|e| pass(e)).cloned().collect();
            });
            v
        })
    });
    let shown_len = move || {
        filtered.with(|v| match v {
            Some(v) => v.len(),
            None => {
                let mut n = 0;
                with_source(&mut |ix| n = ix.len());
                n
            }
        })
    };
    // Only the rows in view (plus overscan) are in the DOM.
    let scroll = ScrollWindow::new(EVENTS_VIEWPORT);
    let span = Memo::new(move |_| scroll.rows(shown_len(), EVENT_ROW, EVENT_OVERSCAN));
    let first = move || span.get().0;
    // A new filter starts at the newest match.
    let body_ref = NodeRef::<leptos::html::Div>::new();
    Effect::watch(
        move || filter.track(),
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
        filtered.with(|v| match v {
            Some(v) => v
                .iter()
                .skip(first)
                .take(count)
                .cloned()
                .collect::<Vec<_>>(),
            None => {
                let mut rows = Vec::new();
                with_source(&mut |ix| {
                    rows = ix.newest().skip(first).take(count).cloned().collect();
                });
                rows
            }
        })
    };
    let on_scroll = move |ev: leptos::ev::Event| scroll.on_scroll(&ev);
    let discovered = kube.discovered;
    // The involved object's page, when discovery knows its kind.
    let object_href = move |e: &EventRow| {
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
    };
    // Events per minute over the last half hour, by last seen.
    let spark = move || {
        let line =
            events.with(|ix| Sparkline::new(&per_minute(ix, now(), SPARK_MINUTES), 4.0, 24.0));
        let mut held = String::new();
        with_source(&mut |ix| held = held_words(ix.len()));
        (line, held)
    };
    view! {
        <section class="panel" data-testid="event-stream">
            <div class="resource-head">
                <h2>"Events"</h2>
                {move || {
                    let (Sparkline { points, last, peak }, held) = spark();
                    view! {
                        <svg class="spark" viewBox="0 0 120 24" width="120" height="24" role="img"
                            aria-label=format!("events per minute, last 30 minutes; peak {peak}")>
                            <polyline points=points fill="none" stroke="currentColor" stroke-width="1.5"/>
                        </svg>
                        <span class="muted small" data-testid="events-per-minute">{format!("{held} · {last}/min now · peak {peak}/min")}</span>
                    }
                }}
            </div>
            {problem}
            <div class="toolbar">
                <EventFilters filter events/>
                <button class="theme-toggle" data-testid="event-pause" on:click=toggle_pause>
                    {move || if paused.get() { "▶ Resume" } else { "⏸ Pause" }}
                </button>
                {move || paused.get().then(|| view! {
                    <span class="muted event-paused-new" data-testid="event-paused-new" role="status">
                        {move || arrived_words(arrived.get())}
                    </span>
                })}
            </div>
            <div class="etable" role="table" data-testid="event-table"
                aria-rowcount=move || (shown_len() + 1).to_string()>
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
                        style:height=move || format!("{}px", shown_len() as f64 * EVENT_ROW)
                        style:padding-top=move || format!("{}px", first() as f64 * EVENT_ROW)>
                        <ForEnumerate
                            each=window
                            key=|e| (e.key.clone(), e.count, e.last_seen, e.message.clone())
                            children={move |i: ReadSignal<usize>, e: Arc<EventRow>| {
                                let class = if e.is_warning() { "erow event-warning" } else { "erow" };
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
                                            move || match object_href(&e) {
                                                Some(href) => view! { <a href=href data-testid="event-object-link">{object.clone()}</a> }.into_any(),
                                                None => view! { <span>{object.clone()}</span> }.into_any(),
                                            }
                                        }</span>
                                        <span role="cell" class="num">{e.count}</span>
                                        <span role="cell" class="message" title=e.message.clone()>{e.message.clone()}</span>
                                        <span role="cell" class="muted" title=e.source.clone()>{e.source.clone()}</span>
                                    </div>
                                }
                            }}
                        />
                    </div>
                </div>
            </div>
        </section>
    }
}
