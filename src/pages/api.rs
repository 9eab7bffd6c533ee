//! The API discovery tree: groups → versions → resources, with scope, verbs, short names, categories and subresources; CRDs marked.
//!
//! A CRD informer refreshes discovery when CRDs come, go or change, so the
//! tree follows the cluster while the page is open.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use kubeglass_client::discovery::{Discovery, ResourceInfo};
use kubeglass_client::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::use_kube;
use crate::kube::subscribe::cluster_path;
use crate::rules::discovery::{CrdChanges, matches_search};
use crate::rules::filter::Filter;
use crate::route::Route;

/// The page.
#[component]
pub fn ApiTree() -> impl IntoView {
    let kube = use_kube();
    let discovered = kube.discovered();
    let crds: RwSignal<BTreeSet<String>> = RwSignal::new(BTreeSet::new());

    // CRDs as they come and go: a change after the first delivery (a CRD
    // added, removed or changed, seen by its resourceVersion) means
    // discovery is out of date. Table format: the same informer serves the
    // `:crd` table.
    let mut changes = CrdChanges::default();
    let k = kube.clone();
    let crd_path = cluster_path::<CustomResourceDefinition>(&kube);
    let watch = kube
        .subscribe("crd-changes", &crd_path)
        .table()
        .frames(move |inf, _| {
            let now: BTreeMap<String, String> = inf
                .indexer()
                .borrow()
                .list()
                .iter()
                .map(|r| {
                    let rv = r.metadata.resource_version.clone().unwrap_or_default();
                    (r.metadata.name.clone().unwrap_or_default(), rv)
                })
                .collect();
            crds.set(now.keys().cloned().collect());
            if changes.changed(now) {
                k.load_discovery(true);
            }
        });
    let _watch = StoredValue::new_local(watch);

    let query = RwSignal::new(String::new());
    let tree = move || {
        let search = Filter::parse(query.get().trim());
        let test = match search.test(crate::platform::regex) {
            Ok(t) => t,
            Err(e) => {
                return view! { <p class="error-box" data-testid="api-search-error">"Search: " {e}</p> }
                    .into_any();
            }
        };
        let keep = move |r: &ResourceInfo| matches_search(r, &search, &test);
        let crds = crds.get();
        match discovered.get() {
            None => view! { <p class="muted">"Reading the server's API…"</p> }.into_any(),
            Some(Err(p)) => {
                view! { <ProblemBox problem=p doing="read the server's resources".to_string()/> }
                    .into_any()
            }
            Some(Ok(d)) => view! { {failures(&d)} {render(&d, &keep, &crds)} }.into_any(),
        }
    };

    view! {
        <section class="panel api-tree" data-testid="api-page">
            <div class="resource-head">
                <h2>"API resources"</h2>
                <span class="muted small">
                    {move || discovered.with(|d| match d {
                        Some(Ok(d)) => format!("{} groups · {} resources · {} discovery{}",
                            d.groups.len(), d.resources.len(),
                            if d.aggregated { "aggregated (v2)" } else { "legacy" },
                            if d.failed.is_empty() { String::new() } else { format!(" · {} failed", d.failed.len()) }),
                        _ => String::new(),
                    })}
                </span>
            </div>
            <input class="filter" type="search" placeholder="Search kind, plural, group, short name or category (/regex/)"
                aria-label="Search resources" data-testid="api-search"
                prop:value=move || query.get()
                on:input=move |ev| query.set(event_target_value(&ev))/>
            {tree}
        </section>
    }
}

/// The group versions whose discovery failed, with the server's reason
/// (everything else is in the tree).
fn failures(d: &Arc<Discovery>) -> impl IntoView + use<> {
    (!d.failed.is_empty()).then(|| {
        let rows = d
            .failed
            .iter()
            .map(|f| {
                view! {
                    <li data-testid="api-failed-group">
                        <code>{format!("{}/{}", f.group, f.version)}</code>
                        ": " {f.reason.clone()}
                    </li>
                }
            })
            .collect_view();
        view! {
            <div class="error-box" role="status" data-testid="api-failures">
                <p>"Some APIs could not be discovered; their resources are missing below, everything else works:"</p>
                <ul>{rows}</ul>
            </div>
        }
    })
}

fn render(
    d: &Arc<Discovery>,
    keep: &dyn Fn(&ResourceInfo) -> bool,
    crds: &BTreeSet<String>,
) -> impl IntoView {
    d.groups
        .iter()
        .filter_map(|g| {
            let versions = g
                .versions
                .iter()
                .filter_map(|v| {
                    let mut rs: Vec<&ResourceInfo> = d
                        .resources_for(&g.name, v)
                        .into_iter()
                        .filter(|r| keep(r))
                        .collect();
                    if rs.is_empty() {
                        return None;
                    }
                    rs.sort_by(|a, b| a.plural.cmp(&b.plural));
                    let preferred = *v == g.preferred_version;
                    let rows = rs
                        .into_iter()
                        .map(|r| {
                            let crd = crds.contains(&r.qualified_name());
                            let href = Route::resource(
                                &if preferred { r.qualified_name() } else { format!("{}.{}.{}", r.plural, r.version, r.group).trim_end_matches('.').to_string() },
                                None,
                            )
                            .href();
                            let subs = r
                                .subresources
                                .iter()
                                .map(|s| s.name.clone())
                                .collect::<Vec<_>>()
                                .join(", ");
                            view! {
                                <tr data-testid="api-resource" data-name=r.qualified_name()>
                                    <td class="name">
                                        <a href=href>{r.plural.clone()}</a>
                                        {crd.then(|| view! { <span class="badge crd" data-testid="crd-badge">"CRD"</span> })}
                                    </td>
                                    <td>{r.kind.clone()}</td>
                                    <td>{if r.namespaced { "namespaced" } else { "cluster" }}</td>
                                    <td class="small">{r.verbs.join(" ")}</td>
                                    <td class="small">{r.short_names.join(", ")}</td>
                                    <td class="small">{r.categories.join(", ")}</td>
                                    <td class="small">{subs}</td>
                                </tr>
                            }
                        })
                        .collect_view();
                    Some(view! {
                        <div class="api-version">
                            <h4>
                                <code>{if g.name.is_empty() { v.clone() } else { format!("{}/{v}", g.name) }}</code>
                                {preferred.then(|| view! { <span class="badge">"preferred"</span> })}
                            </h4>
                            <table class="grid">
                                <thead><tr><th>"Resource"</th><th>"Kind"</th><th>"Scope"</th><th>"Verbs"</th><th>"Short names"</th><th>"Categories"</th><th>"Subresources"</th></tr></thead>
                                <tbody>{rows}</tbody>
                            </table>
                        </div>
                    })
                })
                .collect::<Vec<_>>();
            if versions.is_empty() {
                return None;
            }
            let name = if g.name.is_empty() { "core".to_string() } else { g.name.clone() };
            Some(view! {
                <details class="api-group" open=true data-testid="api-group">
                    <summary><b>{name}</b></summary>
                    {versions}
                </details>
            })
        })
        .collect_view()
}
