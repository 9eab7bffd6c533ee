//! Top (`#/top`, `:top`): pods and nodes by CPU or memory from metrics.k8s.io, live at the server's resolution, with each one's line over the tab's last hour — `kubectl top`, kept up to date, with no Prometheus.
//!
//! The page keeps kubectl's name, `top` (its route `#/top`, its link, its
//! module and `rules::usage::top`), because it is `kubectl top`'s view in
//! kubectl's words; what it shows is usage, the app's one word for
//! metrics.k8s.io, and the code it reads is named so (`kube.usage(…)`).

mod rows;
mod sizing;

use std::collections::BTreeMap;

use kubeglass_client::k8s_openapi::api::core::v1::Node;
use kubeglass_kubectl::usage::Target;
use leptos::prelude::*;

use crate::kube::stores::cluster::ClusterState;
use crate::kube::use_kube;
use crate::kube::subscribe::cluster_path;
use crate::rules::filter::Filter;
use crate::rules::usage::{By, Capacity};
use crate::platform::regex;

use rows::TopTable;
use sizing::RightSizing;

/// How many rows each table shows.
const SHOWN: usize = 50;

/// The page: the ranking and filter, then nodes and pods.
#[component]
pub fn TopPage() -> impl IntoView {
    let kube = use_kube();
    let cluster = expect_context::<ClusterState>();
    let by = RwSignal::new(By::Cpu);
    let filter = RwSignal::new(String::new());
    // Nodes' allocatable, for their shares (the overview's nodes informer).
    let capacity = RwSignal::new(BTreeMap::<String, Capacity>::new());
    let capacity_watch = kube
        .subscribe("node-rows", &cluster_path::<Node>(&kube))
        .rows(capacity, Capacity::from_object);
    let _capacity_watch = StoredValue::new_local(capacity_watch);
    let error = move || filter.with(|f| Filter::parse(f).error(regex));
    let pick = move |b: By, label: &'static str, testid: &'static str| {
        view! {
            <button class="theme-toggle" data-testid=testid aria-pressed=move || (by.get() == b).to_string()
                on:click=move |_| by.set(b)>{label}</button>
        }
    };
    view! {
        <section class="panel top-page" data-testid="top-page">
            <div class="resource-head">
                <h2>"Top"</h2>
                <span class="muted small">
                    "CPU and memory from metrics.k8s.io, polled every 15 s while this page is open; each line is the tab's own last hour."
                </span>
            </div>
            <div class="toolbar">
                {pick(By::Cpu, "By CPU", "top-by-cpu")}
                {pick(By::Memory, "By memory", "top-by-memory")}
                <input class="filter" data-testid="top-filter" placeholder="filter: text or /regex/"
                    aria-label="Filter by name" prop:value=move || filter.get()
                    on:input=move |ev| filter.set(event_target_value(&ev))/>
            </div>
            {move || error().map(|e| view! { <p class="error-text" data-testid="top-filter-error" role="alert">"Filter: " {e}</p> })}
            <h3>"Nodes"</h3>
            <TopTable target=Target::Nodes by filter capacity limit=SHOWN testid="top-nodes"/>
            {move || {
                let ns = cluster.namespace.get();
                let title = match &ns {
                    Some(n) => format!("Pods in {n}"),
                    None => "Pods in all namespaces".to_string(),
                };
                view! {
                    <h3>{title}</h3>
                    <TopTable target=Target::Pods(ns.clone()) by filter capacity limit=SHOWN testid="top-pods"/>
                    <h3>"Right-sizing"</h3>
                    <p class="muted small">
                        "Each workload's pods over this tab's history against what they request: a peak under half the request could ask for less; an average over it should ask for more."
                    </p>
                    <RightSizing scope=ns/>
                }
            }}
        </section>
    }
}
