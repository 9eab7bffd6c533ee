//! One ranked table of Top: a poll's state in a line, then its rows (a bar, the figures, and a line over the last hour).

use std::collections::BTreeMap;

use kubeglass_client::metrics::Target;
use leptos::prelude::*;

use crate::kube::metrics::Metrics;
use crate::kube::use_kube;
use crate::model::filter::Filter;
use crate::model::metrics::{By, Capacity, TopRow, rank, span, state_words, usage_line};
use crate::platform::regex;
use crate::route::Route;

/// An hour, in seconds: the most each row's line goes back.
const HOUR: f64 = 3600.0;

/// The rows of `target`'s poll that pass `filter`, the `limit` largest by
/// `by`; nodes with their shares of `capacity`.
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
    let metrics = StoredValue::new_local(use_kube().metrics(target));
    let ranked = move || {
        let sample = metrics.with_value(Metrics::latest);
        let keep = filter
            .with(|f| Filter::parse(f).test(regex))
            .unwrap_or_else(|_| Box::new(|_| false));
        capacity.with(|c| rank(&sample, by.get(), &keep, limit, c))
    };
    let state = move || {
        state_words(&metrics.with_value(Metrics::state)).map(|(kind, words)| view! { <p class="muted" data-testid=format!("{testid}-state") data-state=kind role="status">{words}</p> })
    };
    let head = move || {
        view! {
            <tr>
                {all_namespaces.then(|| view! { <th>"Namespace"</th> })}
                <th>"Name"</th><th>"CPU"</th>{nodes.then(|| view! { <th>"CPU %"</th> })}
                <th>"Memory"</th>{nodes.then(|| view! { <th>"Memory %"</th> })}
                <th title="The tab's own history, up to an hour">"History"</th>
            </tr>
        }
    };
    view! {
        {state}
        <table class="grid top-table" data-testid=testid>
            <thead>{head}</thead>
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
                            let line = metrics.with_value(|m| {
                                let points = m.history(&r.key);
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

/// One row: the object (a link), its figures with a bar for the ranked
/// one, a node's shares, and its line.
fn row(r: TopRow, by: By, line: String, nodes: bool, all_namespaces: bool) -> impl IntoView {
    let href = Route::Object {
        resource: if nodes { "nodes" } else { "pods" }.into(),
        namespace: r.namespace.clone(),
        name: r.name.clone(),
    }
    .href();
    let share = |s: Option<f64>| s.map_or_else(|| "—".to_string(), |p| format!("{p:.0}%"));
    // Set through the CSSOM (`style:`), which the page's CSP allows; a
    // style attribute it refuses.
    let bar = format!("{:.0}%", 100.0 * r.bar);
    let cell = move |text: String, ranked: bool| {
        view! {
            <td class="num">
                {ranked.then(|| view! { <span class="top-bar" style:width=bar.clone()></span> })}
                <span>{text}</span>
            </td>
        }
    };
    view! {
        <tr data-testid="top-row" data-key=r.key.clone() data-cpu-millis=r.usage.cpu_millis.to_string()
            data-memory-bytes=r.usage.memory_bytes.to_string()>
            {all_namespaces.then(|| view! { <td>{r.namespace.clone().unwrap_or_default()}</td> })}
            <td><a href=href>{r.name.clone()}</a></td>
            {cell(r.cpu.clone(), by == By::Cpu)}
            {nodes.then(|| view! { <td class="num">{share(r.cpu_share)}</td> })}
            {cell(r.memory.clone(), by == By::Memory)}
            {nodes.then(|| view! { <td class="num">{share(r.memory_share)}</td> })}
            <td>
                <svg class="spark" viewBox="0 0 120 20" width="120" height="20" role="img"
                    aria-label=format!("{} since this tab began to poll, up to an hour", if by == By::Cpu { "CPU" } else { "memory" })>
                    <polyline points=line fill="none" stroke="currentColor" stroke-width="1.5"/>
                </svg>
            </td>
        </tr>
    }
}
