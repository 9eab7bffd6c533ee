//! A pod's or node's CPU and memory over the tab's last hour, from metrics.k8s.io, with what it asked for and may use (a pod's requests and limits, a node's allocatable) drawn in.

use kubeglass_client::metrics::Target;
use leptos::prelude::*;
use serde_json::Value;

use crate::kube::metrics::Metrics;
use crate::kube::use_kube;
use crate::model::metrics::{
    By, Capacity, graph, part, pod_resources, span, span_words, state_words,
};

/// The graphs' size, in SVG units.
const WIDTH: f64 = 360.0;
const HEIGHT: f64 = 60.0;

/// The usage of the object under `key` in `target`'s poll; `object` gives
/// the reference lines (a node's allocatable when `node`, else a pod's
/// requests and limits).
#[component]
pub fn UsageGraphs(
    target: Target,
    key: String,
    object: RwSignal<Option<Value>>,
    node: bool,
) -> impl IntoView {
    let metrics = StoredValue::new_local(use_kube().metrics(target));
    let key = StoredValue::new(key);
    let refs = move |by: By| -> Vec<(&'static str, Option<f64>)> {
        object.with(|o| match o {
            None => Vec::new(),
            Some(v) if node => vec![("allocatable", part(&Capacity::from_value(v), by))],
            Some(v) => {
                let (requests, limits) = pod_resources(v);
                vec![
                    ("request", part(&requests, by)),
                    ("limit", part(&limits, by)),
                ]
            }
        })
    };
    let state = move || {
        state_words(&metrics.with_value(Metrics::state)).map(|(kind, words)| {
            view! { <p class="muted" data-testid="usage-state" data-state=kind role="status">{words}</p> }
        })
    };
    let figure = move |by: By| {
        let (label, testid) = match by {
            By::Cpu => ("CPU", "usage-cpu"),
            By::Memory => ("Memory", "usage-memory"),
        };
        move || {
            let points = key.with_value(|k| metrics.with_value(|m| m.history(k)));
            let span = span(&points, 3600.0);
            let g = graph(&points, by, &refs(by), span, WIDTH, HEIGHT);
            let over = format!("{label}, last {}", span_words(span));
            view! {
                <figure class="usage" data-testid=testid>
                    <figcaption><b>{over}</b>" " <span data-testid=format!("{testid}-words")>{g.words}</span></figcaption>
                    <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") width=WIDTH height=HEIGHT role="img"
                        aria-label=format!("{label} over the last {}", span_words(span))>
                        {g.marks.into_iter().map(|(name, y)| view! {
                            <line x1="0" x2=WIDTH y1=y y2=y class=format!("usage-mark {name}") data-mark=name/>
                        }).collect_view()}
                        <polyline points=g.line fill="none" stroke="currentColor" stroke-width="1.5"/>
                    </svg>
                </figure>
            }
        }
    };
    view! {
        <h3>"Usage"</h3>
        {state}
        <div class="usage-graphs">{figure(By::Cpu)}{figure(By::Memory)}</div>
    }
}
