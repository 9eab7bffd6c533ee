//! CPU and memory over the tab's last hour, from metrics.k8s.io, with what was asked for and may be used drawn in: a pod's (its requests and limits), a node's (its allocatable), a workload's (its pods summed, through the owner index).

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_kubectl::usage::{Point, Target};
use leptos::prelude::*;
use serde_json::Value;

use crate::components::problem::ProblemBox;
use crate::kube::stores::cluster::ClusterState;
use crate::kube::subscribe::usage::UsagePoll;
use crate::kube::use_kube;
use crate::kube::subscribe::workload::WorkloadPods;
use crate::rules::usage::{
    By, Capacity, graph, part, pod_resources, pods_resources, span, span_words, state_words,
    sum_points,
};

/// The graphs' size, in SVG units.
const WIDTH: f64 = 360.0;
const HEIGHT: f64 = 60.0;
/// The most a graph goes back: an hour.
const HOUR: f64 = 3600.0;

/// The pods' poll a page of `namespace` reads: the header namespace's when
/// that holds it (shared with Top, and its points), else the namespace's.
pub fn pods_target(namespace: &str) -> Target {
    let header = expect_context::<ClusterState>().namespace.get_untracked();
    Target::Pods(match header {
        Some(h) if h != namespace => Some(namespace.to_string()),
        h => h,
    })
}

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
    let usage = StoredValue::new_local(use_kube().usage(target));
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
    let drawn = move |by: By| {
        move || {
            let points = key.with_value(|k| usage.with_value(|m| m.points(k)));
            figure(by, &points, &refs(by), "")
        }
    };
    view! {
        <h3>"Usage"</h3>
        <PollState usage/>
        <div class="usage-graphs">{drawn(By::Cpu)}{drawn(By::Memory)}</div>
    }
}

/// A workload's usage: its pods' (found through the owner index, a
/// Deployment's through its ReplicaSets) summed poll by poll, against
/// their requests and limits summed.
#[component]
pub fn WorkloadUsage(info: ResourceInfo, namespace: String, name: String) -> impl IntoView {
    let kube = use_kube();
    let pods = match kube.workload_pods(&info, &namespace, &name) {
        Ok(w) => StoredValue::new_local(w),
        Err(problem) => {
            return view! { <ProblemBox problem doing="find its pods".to_string() testid="usage-problem"/> }.into_any();
        }
    };
    let usage = StoredValue::new_local(kube.usage(pods_target(&namespace)));
    // Once per change of its pods or poll, for both graphs: the pods'
    // series summed, their requests and limits summed, how many.
    let summed = Memo::new(move |_| {
        let found = pods.with_value(WorkloadPods::pods).unwrap_or_default();
        let series: Vec<Vec<Point>> = found
            .iter()
            .map(|p| {
                let key = format!(
                    "{}/{}",
                    p.metadata.namespace.as_deref().unwrap_or_default(),
                    p.metadata.name.as_deref().unwrap_or_default()
                );
                usage.with_value(|m| m.points(&key))
            })
            .collect();
        let (requests, limits) = pods_resources(found.iter().map(|p| &p.data));
        (sum_points(&series), requests, limits, found.len())
    });
    let drawn = move |by: By| {
        move || {
            summed.with(|(points, requests, limits, n)| {
                let refs = [("request", part(requests, by)), ("limit", part(limits, by))];
                let of = match n {
                    1 => " of its pod".to_string(),
                    n => format!(" of its {n} pods"),
                };
                figure(by, points, &refs, &of)
            })
        }
    };
    view! {
        <h3>"Usage"</h3>
        <PollState usage/>
        <div class="usage-graphs">{drawn(By::Cpu)}{drawn(By::Memory)}</div>
    }
    .into_any()
}

/// What the poll says, when it is not fresh.
#[component]
fn PollState(usage: StoredValue<UsagePoll, LocalStorage>) -> impl IntoView {
    move || {
        state_words(&usage.with_value(UsagePoll::state)).map(|(kind, words)| {
            view! { <p class="muted" data-testid="usage-state" data-state=kind role="status">{words}</p> }
        })
    }
}

/// One graph of `by` over `points`, with `refs` drawn in; `of` follows the
/// label (` of its 3 pods`).
fn figure(
    by: By,
    points: &[Point],
    refs: &[(&'static str, Option<f64>)],
    of: &str,
) -> impl IntoView + use<> {
    let (label, testid) = match by {
        By::Cpu => ("CPU", "usage-cpu"),
        By::Memory => ("Memory", "usage-memory"),
    };
    let span = span(points, HOUR);
    let g = graph(points, by, refs, span, WIDTH, HEIGHT);
    let over = format!("{label}{of}, last {}", span_words(span));
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
