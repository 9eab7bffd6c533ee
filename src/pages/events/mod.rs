//! The live event stream (its own page, and the overview's last panel): newest first, filters, pause, a per-minute sparkline.
//!
//! This file wires the stream's state (`state`) to its informer; the
//! filters, the heading and the rows draw it.

mod filters;
mod rows;
mod state;

use kubeglass_client::k8s_openapi::api::core::v1::Event;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::Now;
use crate::kube::stores::cluster::ClusterState;
use crate::kube::use_kube;
use crate::kube::subscribe::{collection_path, watch_problem};
use crate::rules::events::{EventRow, Sparkline, arrived_words, held_words, per_minute};
use crate::rules::namespaces::scope_label;
use crate::pages::events::filters::EventFilters;
use rows::EventRows;
use state::Stream;

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

/// The live event stream: newest first, Warnings highlighted, count and
/// first/last seen, filters by type, reason, namespace, kind, involved
/// object and text, pause and resume, an events-per-minute sparkline;
/// involved objects link to their pages.
#[component]
pub fn EventStream(namespace: Option<String>) -> impl IntoView {
    let kube = use_kube();
    let stream = Stream::new();
    let Stream {
        events,
        paused,
        filter,
        arrived,
        loaded,
        ..
    } = stream;
    let watch = collection_path::<Event>(&kube, namespace.as_deref()).map(|path| {
        kube.subscribe("event-rows", &path)
            .frames(move |inf, keys| {
                let indexer = inf.indexer();
                let store = indexer.borrow();
                let changes = keys.into_iter().map(|k| {
                    let row = store.get(&k).map(|e| EventRow::from_object(&e));
                    (k, row)
                });
                // Only a paused stream counts what arrives, so only then is
                // the filter (perhaps a RegExp) built for this frame.
                let new = if paused.get_untracked() {
                    filter.with_untracked(|f| {
                        let pass = f.matcher(crate::platform::regex);
                        events.try_update(|ix| ix.apply(changes, pass)).unwrap_or(0)
                    })
                } else {
                    events
                        .try_update(|ix| ix.apply(changes, |_| false))
                        .unwrap_or(0)
                };
                if new > 0 {
                    arrived.update(|n| *n += new);
                }
                if !loaded.get_untracked() {
                    loaded.set(true);
                }
            })
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
    let now: Signal<f64> = expect_context::<Now>().0.into();
    view! {
        <section class="panel" data-testid="event-stream">
            <StreamHeading stream now/>
            {problem}
            <div class="toolbar">
                <EventFilters filter events/>
                <button class="theme-toggle" data-testid="event-pause" on:click=move |_| stream.toggle_pause()>
                    {move || if paused.get() { "▶ Resume" } else { "⏸ Pause" }}
                </button>
                {move || paused.get().then(|| view! {
                    <span class="muted event-paused-new" data-testid="event-paused-new" role="status">
                        {move || arrived_words(arrived.get())}
                    </span>
                })}
            </div>
            <EventRows stream now/>
        </section>
    }
}

/// The heading: how many events are shown, and events per minute over the
/// last half hour (live, paused or not), by last seen. The line and the
/// words are memos, and the DOM is made once: a frame of changes that moves
/// neither writes nothing, and one that does writes an attribute and a text
/// node (the heading used to be built anew on every frame).
#[component]
fn StreamHeading(stream: Stream, now: Signal<f64>) -> impl IntoView {
    let line = Memo::new(move |_| {
        stream
            .events
            .with(|ix| Sparkline::new(&per_minute(ix, now.get(), SPARK_MINUTES), 4.0, 24.0))
    });
    let held = Memo::new(move |_| {
        if stream.loaded.get() {
            stream.with_shown(|ix| held_words(ix.len()))
        } else {
            "loading events…".to_string()
        }
    });
    view! {
        <div class="resource-head">
            <h2>"Events"</h2>
            <svg class="spark" viewBox="0 0 120 24" width="120" height="24" role="img"
                aria-label=move || line.with(|l| format!("events per minute, last 30 minutes; peak {}", l.peak))>
                <polyline points=move || line.with(|l| l.points.clone()) fill="none" stroke="currentColor" stroke-width="1.5"/>
            </svg>
            <span class="muted small" data-testid="events-per-minute">
                {move || line.with(|l| held.with(|h| format!("{h} · {}/min now · peak {}/min", l.last, l.peak)))}
            </span>
        </div>
    }
}
