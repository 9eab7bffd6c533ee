//! One ranked table of Top: a poll's state in a line, then its rows (a bar, the figures in `kubectl top`'s words, and a line over the last hour); the node table lists every node, `<unknown>` where there are no figures.

use std::collections::BTreeMap;

use kubeglass_client::k8s_openapi::api::core::v1::Pod;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_kubectl::usage::Target;
use leptos::prelude::*;

use crate::kube::subscribe::usage::UsagePoll;
use crate::kube::subscribe::collection_path;
use crate::kube::{Watch, use_kube};
use crate::rules::filter::Filter;
use crate::rules::usage::{By, Capacity, TopRow, rank, span, top_state_words, usage_line};
use crate::rules::time::Seconds;
use crate::platform::regex;
use crate::route::Route;

/// An hour, in seconds: the most each row's line goes back.
const HOUR: f64 = 3600.0;

/// The pods of a pod table's scope, by key, with their creation times:
/// what an empty sample's words are about. None for the node table, and
/// the rows' signal and the watch's status otherwise.
type Pods = Option<(
    RwSignal<BTreeMap<String, Option<Seconds>>>,
    Watch<DynamicObject>,
)>;

/// Watches the pods of `target`'s scope (shared with right-sizing's
/// informer of the same pods), for an empty sample's words.
fn watch_pods(target: &Target) -> Pods {
    let Target::Pods(ns) = target else {
        return None;
    };
    let kube = use_kube();
    let path = collection_path::<Pod>(&kube, ns.as_deref()).ok()?;
    let created = RwSignal::new(BTreeMap::new());
    let watch = kube.subscribe("top-pods", &path).rows(created, |p| {
        p.metadata
            .creation_timestamp
            .as_ref()
            .map(|t| t.0.as_second() as Seconds)
    });
    Some((created, watch))
}

/// The rows of `target`'s poll that pass `filter`, the `limit` largest by
/// `by`; nodes with their shares of `capacity`, and every node in it.
#[component]
pub fn TopTable(
    target: Target,
    by: RwSignal<By>,
    filter: RwSignal<String>,
    capacity: RwSignal<BTreeMap<String, Capacity>>,
    limit: usize,
    testid: &'static str,
) -> impl IntoView {
    let nodes = target == Target::Nodes;
    let all_namespaces = target == Target::Pods(None);
    let usage = StoredValue::new_local(use_kube().usage(target.clone()));
    let pods = watch_pods(&target);
    let pods_rows = pods.as_ref().map(|(rows, w)| (*rows, w.status()));
    let _pods = StoredValue::new_local(pods);
    let ranked = move || {
        let sample = usage.with_value(UsagePoll::latest);
        let keep = filter
            .with(|f| Filter::parse(f).test(regex))
            .unwrap_or_else(|_| Box::new(|_| false));
        capacity.with(|c| rank(&sample, by.get(), &keep, limit, nodes.then_some(c)))
    };
    let state = move || {
        let state = usage.with_value(UsagePoll::state);
        let words = match pods_rows {
            Some((rows, status)) => rows.with(|p| {
                let synced = status.with(|s| s.synced);
                top_state_words(&state, &target, synced.then_some(p))
            }),
            None => top_state_words(&state, &target, None),
        };
        words.map(|(kind, words)| view! { <p class="muted" data-testid=format!("{testid}-state") data-state=kind role="status">{words}</p> })
    };
    let version = move || usage.with_value(UsagePoll::version).map(|v| v.as_str());
    view! {
        {state}
        <table class="grid top-table" data-testid=testid data-version=version>
            <thead>{head(nodes, all_namespaces)}</thead>
            <tbody>
                {move || {
                    let (rows, total) = ranked();
                    let by = by.get();
                    let more = (total > rows.len()).then(|| view! {
                        <tr><td class="muted small" colspan="7">{format!("{} more", total - rows.len())}</td></tr>
                    });
                    let drawn = rows
                        .into_iter()
                        .map(|r| {
                            let line = usage.with_value(|m| {
                                let points = m.points(&r.key);
                                let end = points.last().map_or(0.0, |p| p.at);
                                usage_line(&points, by, end, span(&points, HOUR), 120.0, 20.0)
                            });
                            row(r, by, line, nodes, all_namespaces)
                        })
                        .collect_view();
                    (drawn, more)
                }}
            </tbody>
        </table>
    }
}

/// The header row: kubectl's columns, and the line.
fn head(nodes: bool, all_namespaces: bool) -> impl IntoView {
    view! {
        <tr>
            {all_namespaces.then(|| view! { <th>"Namespace"</th> })}
            <th>"Name"</th><th>"CPU"</th>{nodes.then(|| view! { <th>"CPU %"</th> })}
            <th>"Memory"</th>{nodes.then(|| view! { <th>"Memory %"</th> })}
            <th title="The tab's own history, up to an hour">"History"</th>
        </tr>
    }
}

/// One row: the object (a link), its figures with a bar for the ranked
/// one, a node's shares (empty where its allocatable is not known, as
/// kubectl prints nothing there), and its line.
fn row(r: TopRow, by: By, line: String, nodes: bool, all_namespaces: bool) -> impl IntoView {
    let href = Route::Object {
        resource: if nodes { "nodes" } else { "pods" }.into(),
        namespace: r.namespace.clone(),
        name: r.name.clone(),
    }
    .href();
    // Set through the CSSOM (`style:`), which the page's CSP allows; a
    // style attribute it refuses.
    let bar = format!("{:.0}%", 100.0 * r.bar);
    let known = r.usage.is_some();
    let cell = move |text: String, ranked: bool| {
        view! {
            <td class="num">
                {(ranked && known).then(|| view! { <span class="top-bar" style:width=bar.clone()></span> })}
                <span>{text}</span>
            </td>
        }
    };
    let share = |s: Option<String>| view! { <td class="num">{s.unwrap_or_default()}</td> };
    view! {
        <tr data-testid="top-row" data-key=r.key.clone()
            data-cpu-millis=r.usage.map(|u| u.cpu_millis.to_string())
            data-memory-bytes=r.usage.map(|u| u.memory_bytes.to_string())
            data-unknown=(!known).then_some("true")
            data-timestamp=(!r.timestamp.is_empty()).then(|| r.timestamp.clone())>
            {all_namespaces.then(|| view! { <td>{r.namespace.clone().unwrap_or_default()}</td> })}
            <td><a href=href>{r.name.clone()}</a></td>
            {cell(r.cpu.clone(), by == By::Cpu)}
            {nodes.then(|| share(r.cpu_share.clone()))}
            {cell(r.memory.clone(), by == By::Memory)}
            {nodes.then(|| share(r.memory_share.clone()))}
            <td>
                <svg class="spark" viewBox="0 0 120 20" width="120" height="20" role="img"
                    aria-label=format!("{} since this tab began to poll, up to an hour", if by == By::Cpu { "CPU" } else { "memory" })>
                    <polyline points=line fill="none" stroke="currentColor" stroke-width="1.5"/>
                </svg>
            </td>
        </tr>
    }
}
