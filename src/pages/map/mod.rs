//! The relationship map (`#/map`, `#/map/<resource>/[<ns>/]<name>`): how
//! the objects of a namespace connect, or one object's neighbourhood,
//! live.
//!
//! `feed` watches each kind the map joins (cut to the fields it reads);
//! after a change (paced by `join`: at most once per three times the last
//! join took) the rules (`kubeglass_kubectl::map`) join them into a graph, pods that repeat folded into one node, and an
//! object's map keeps what is within its depth. The layout keeps every
//! node that stays in its place, and `draw` redraws only the nodes and
//! edges whose place or look changed.

mod draw;
mod feed;
mod join;

use std::sync::Arc;

use kubeglass_kubectl::map::graph::{Graph, id_of};
use kubeglass_kubectl::map::layout::{Layout, place};
use kubeglass_kubectl::map::Kind;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::stores::cluster::ClusterState;
use crate::kube::subscribe::watch_problem;
use crate::kube::use_kube;
use crate::route::map::MAX_DEPTH;
use crate::route::{MapFocus, Route, replace};
use crate::rules::namespaces::scope_label;

use draw::Canvas;
use feed::Feed;
use join::Joined;

/// The page: the header namespace's map, or an object's neighbourhood
/// (in its own namespace).
#[component]
pub fn MapPage(focus: Option<MapFocus>, depth: u8) -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    let focus_ns = focus.as_ref().and_then(|f| f.namespace.clone());
    move || {
        let namespace = focus_ns.clone().or_else(|| cluster.namespace.get());
        let focus = focus.clone();
        view! { <MapOf namespace focus depth/> }
    }
}

/// The id of the node a map is of, or why the map cannot show it.
fn focus_id(focus: &MapFocus) -> Result<String, String> {
    let kind = Kind::from_resource(&focus.resource)
        .ok_or_else(|| format!("The map does not join {} (it knows workloads, pods, Services, Ingresses, volumes and what pods use).", focus.resource))?;
    Ok(id_of(kind, kind.api_kind(), focus.namespace.as_deref(), &focus.name))
}

/// The map of `namespace` (None: all), or of `focus` in it.
#[component]
fn MapOf(namespace: Option<String>, focus: Option<MapFocus>, depth: u8) -> impl IntoView {
    let kube = use_kube();
    let scope = scope_label(namespace.as_deref());
    let focus_id = focus.as_ref().map(focus_id);
    let wanted = match &focus_id {
        Some(Err(e)) => return view! { <p class="muted" role="alert" data-testid="map-error">{e.clone()}</p> }.into_any(),
        Some(Ok(id)) => Some(id.clone()),
        None => None,
    };
    let feed = Feed::start(&kube, namespace.as_deref());
    let statuses = feed.statuses.clone();
    let problems = feed.statuses.clone();
    let refused = feed.refused.clone();
    let synced = Signal::derive(move || statuses.iter().all(|(_, s)| s.with(|s| s.synced)));
    let Joined { graph, took } = join::follow(&kube, feed, wanted.clone(), depth);
    let previous = StoredValue::new(Layout::default());
    let layout = Memo::new(move |_| {
        let g = graph.get()?;
        let next = place(&previous.get_value(), &g);
        previous.set_value(next.clone());
        Some((g, Arc::new(next)))
    });
    let heading = match &focus {
        Some(f) => format!("Map of {} {}", f.resource, f.name),
        None => format!("Map {scope}"),
    };
    view! {
        <section class="panel map-page" data-testid="map-page">
            <div class="resource-head">
                <h2>{heading}</h2>
                {move || layout.with(|l| l.as_ref().map(|(g, _)| summary(g, took.get()))).map(|s| view! {
                    <span class="muted small" data-testid="map-summary">{s}</span>
                })}
                {focus.clone().map(|f| view! { <DepthPicker focus=f depth/> })}
            </div>
            {refused.into_iter().map(|(name, problem)| view! {
                <ProblemBox problem doing=format!("watch {}", name.trim_start_matches("map-")) testid="map-problem"/>
            }).collect_view()}
            {move || problems.iter().find_map(|(name, s)| s.with(watch_problem).map(|p| (*name, p))).map(|(name, problem)| view! {
                <ProblemBox problem doing=format!("list {} {scope}", name.trim_start_matches("map-")) testid="map-problem"/>
            })}
            {move || (!synced.get()).then(|| view! { <p class="muted" data-testid="map-loading">"reading what is in the namespace…"</p> })}
            {move || (synced.get() && wanted.is_some() && layout.with(Option::is_none)).then(|| view! {
                <p class="muted" data-testid="map-missing">"Nothing on the map names this object yet (or it is gone)."</p>
            })}
            <Legend/>
            <Canvas layout focus=focus_id.and_then(Result::ok)/>
        </section>
    }
    .into_any()
}

/// "N nodes (P pods), M relations, joined in T ms".
fn summary(g: &Graph, took: Option<f64>) -> String {
    let pods: u32 = g.nodes.iter().filter(|n| n.kind == Kind::Pod).map(|n| n.count).sum();
    let took = took.map(|t| format!(", joined in {t:.0} ms")).unwrap_or_default();
    format!("{} nodes ({pods} pods), {} relations{took}", g.nodes.len(), g.edges.len())
}

/// How many edges out an object's map reaches.
#[component]
fn DepthPicker(focus: MapFocus, depth: u8) -> impl IntoView {
    let change = move |ev: leptos::ev::Event| {
        if let Ok(d) = event_target_value(&ev).parse::<u8>() {
            replace(&Route::Map { focus: Some(focus.clone()), depth: d });
        }
    };
    view! {
        <label class="small">"depth "
            <select data-testid="map-depth" on:change=change>
                {(1..=MAX_DEPTH).map(|d| view! { <option value=d.to_string() selected=d == depth>{d.to_string()}</option> }).collect_view()}
            </select>
        </label>
    }
}

/// What the colours mean, and the keys.
#[component]
fn Legend() -> impl IntoView {
    view! {
        <p class="muted small map-legend">
            <span class="map-dot health-good"></span>" ready · "
            <span class="map-dot health-waiting"></span>" pending or not ready · "
            <span class="map-dot health-bad"></span>" failed · "
            <span class="map-dot health-done"></span>" done · a dashed box is only named by another object · "
            <kbd>"Tab"</kbd>" or the arrow keys move, "<kbd>"Enter"</kbd>" opens"
        </p>
    }
}
