//! Helm releases (`#/helm`): every release in the header's namespace, live,
//! from its revisions' Secrets' labels alone.
//!
//! The list is a metadata-only watch of Secrets labelled `owner=helm` of
//! type `helm.sh/release.v1` (`rules::helm`): no Secret data is fetched or
//! kept for it. A release opens to its revisions; a revision's chart,
//! values, notes and manifest are read only when the person asks
//! (`revision`: the Reveal rule of a Secret's page), and two revealed
//! revisions compare field by field.

mod revision;

use std::collections::BTreeMap;

use kubeglass_client::k8s_openapi::api::core::v1::Secret;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::Now;
use crate::kube::stores::cluster::ClusterState;
use crate::kube::subscribe::{collection_path, watch_problem};
use crate::kube::use_kube;
use crate::rules::helm::{OWNER_SELECTOR, RELEASE_TYPE, Release, Revision, releases};
use crate::rules::namespaces::scope_label;
use crate::rules::time::age;

use revision::Revisions;

/// The page: the releases of the header's namespace.
#[component]
pub fn HelmPage() -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    move || {
        let namespace = cluster.namespace.get();
        view! { <Releases namespace/> }
    }
}

/// The releases in `namespace` (None: all), live.
#[component]
fn Releases(namespace: Option<String>) -> impl IntoView {
    let kube = use_kube();
    let scope = scope_label(namespace.as_deref());
    let path = match collection_path::<Secret>(&kube, namespace.as_deref()) {
        Ok(p) => p,
        Err(problem) => {
            return view! { <ProblemBox problem doing=format!("list Helm releases {scope}") testid="helm-problem"/> }.into_any();
        }
    };
    let revisions = RwSignal::new(BTreeMap::new());
    let watch = kube
        .subscribe("helm-releases", &path)
        .metadata_only()
        .labels(Some(OWNER_SELECTOR.to_string()))
        .fields(format!("type={RELEASE_TYPE}"))
        .rows(revisions, |o| {
            let labels = o.metadata.labels.clone().unwrap_or_default();
            let ns = o.metadata.namespace.as_deref().unwrap_or_default();
            let name = o.metadata.name.as_deref().unwrap_or_default();
            Revision::from_labels(ns, name, &labels)
        });
    let status = watch.status();
    let _watch = StoredValue::new_local(watch);
    let list = Memo::new(move |_| revisions.with(|r| releases(r.values().flatten())));
    let open = RwSignal::new(None::<(String, String)>);
    let doing = format!("list Helm releases {scope}");
    view! {
        <section class="panel helm-page" data-testid="helm-page">
            <div class="resource-head">
                <h2>"Helm releases"</h2>
                <span class="muted small">{format!("{scope}, from each revision's Secret's labels: no Secret data is read until you reveal a revision.")}</span>
            </div>
            {move || status.with(watch_problem).map(|problem| view! {
                <ProblemBox problem doing=doing.clone() testid="helm-problem"/>
            })}
            {move || (status.with(|s| s.synced) && list.with(Vec::is_empty)).then(|| view! {
                <p class="muted" data-testid="helm-none">"No Helm release here (Helm 3 keeps one Secret per revision; releases kept in ConfigMaps are not read)."</p>
            })}
            <table class="grid compact" data-testid="helm-releases">
                <thead><tr><th>"Release"</th><th>"Namespace"</th><th class="num">"Revision"</th><th>"Status"</th><th>"Updated"</th><th class="num">"Kept"</th></tr></thead>
                <tbody>{move || list.get().into_iter().map(|r| release_row(r, open)).collect_view()}</tbody>
            </table>
            {move || {
                let (ns, name) = open.get()?;
                let release = list.with(|l| l.iter().find(|r| r.namespace == ns && r.name == name).cloned())?;
                Some(view! { <Revisions release/> })
            }}
        </section>
    }
    .into_any()
}

/// One release's row; its name opens its revisions.
fn release_row(r: Release, open: RwSignal<Option<(String, String)>>) -> impl IntoView {
    let now = expect_context::<Now>().0;
    let latest = r.latest().clone();
    let key = (r.namespace.clone(), r.name.clone());
    let is_open = {
        let key = key.clone();
        move || open.with(|o| o.as_ref() == Some(&key))
    };
    let updated = move || latest.modified.map(|m| age(now.get(), m as f64)).unwrap_or_default();
    view! {
        <tr data-testid="helm-release" data-release=r.name.clone() data-namespace=r.namespace.clone()
            data-revision=r.latest().version.to_string() data-status=r.latest().status.clone()>
            <td><button class="link" data-testid="helm-open" aria-expanded=move || is_open().to_string()
                on:click=move |_| open.set(Some(key.clone()))>{r.name.clone()}</button></td>
            <td>{r.namespace.clone()}</td>
            <td class="num">{r.latest().version}</td>
            <td data-testid="helm-status">{r.latest().status.clone()}</td>
            <td>{updated}</td>
            <td class="num">{r.revisions.len()}</td>
        </tr>
    }
}
