//! One object, live: its heading and actions, labels and annotations, owners and what it owns, conditions, events, its history in this tab, a Secret's data on request, and its YAML.

use kubeglass_client::discovery::ResourceInfo;
use leptos::prelude::*;
use serde_json::Value;

use crate::components::problem::ProblemBox;
use crate::components::resolved::Resolved;
use crate::kube::Now;
use crate::kube::history::{HistoryStore, use_history};
use crate::kube::use_kube;
use crate::kube::watch::watch_problem;
use crate::model::objects::{created, field_value, with_type_meta};
use crate::model::problem::Problem;
use crate::model::time::age;
use crate::model::yaml::to_yaml;

mod actions;
mod containers;
mod drift;
mod edit;
mod events;
mod history;
mod meta;
mod owned;
mod rollout;
mod secret;

use actions::ObjectActions;
use containers::{PodContainers, WorkloadLogsLink, has_workload_logs};
use drift::ObjectDrift;
use edit::ObjectEditor;
use events::ObjectEvents;
use history::ObjectHistoryView;
use meta::{Chips, Conditions, Owners};
use owned::OwnedSection;
use rollout::{RolloutHistory, has_rollout_history};
use secret::{RevealSignal, SecretAnnotations, SecretData};

/// The page for `#/o/<resource>/<namespace>/<name>`.
#[component]
pub fn ObjectPage(resource: String, namespace: Option<String>, name: String) -> impl IntoView {
    view! {
        <Resolved name=resource let:info>
            <LiveObject info namespace=namespace.clone() name=name.clone()/>
        </Resolved>
    }
}

#[component]
fn LiveObject(info: ResourceInfo, namespace: Option<String>, name: String) -> impl IntoView {
    let kube = use_kube();
    let now = expect_context::<Now>().0;
    let namespace = namespace.filter(|_| info.namespaced);
    // The object itself, live: a one-object informer (field selector on the name).
    let path = match info.collection_path(namespace.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            let problem = Problem::from(e);
            return view! { <ProblemBox problem doing="open this object".to_string() testid="route-error"/> }
                .into_any();
        }
    };
    let secret = info.is_core_secrets();
    // managedFields are folded in the YAML view, not dropped.
    let mut subscription = kube
        .subscribe("object", &path)
        .with_managed_fields()
        .fields(format!("metadata.name={}", field_value(&name)));
    if secret {
        // A Secret's data is fetched only when the person asks (Reveal); the
        // informer itself hides every annotation's value (tools keep copies
        // of the Secret there).
        subscription = subscription.metadata_only();
    }
    let key = match &namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.clone(),
    };
    let object: RwSignal<Option<Value>> = RwSignal::new(None);
    let gone = RwSignal::new(false);
    let missing = RwSignal::new(false);
    let (k, api_version, kind) = (key.clone(), info.api_version(), info.kind.clone());
    // Every version the page sees goes into the tab's history.
    let (history, clock) = (use_history(), kube.clone());
    let history_key = HistoryStore::key(&info.qualified_name(), namespace.as_deref(), &name);
    let hk = history_key.clone();
    let watch = subscription.frames(move |inf, _| {
        let current = inf.indexer().borrow().get(&k);
        match current {
            Some(o) => {
                let value = with_type_meta(&o, &api_version, &kind);
                history.record(&hk, &value, clock.now());
                object.set(Some(value));
                gone.set(false);
            }
            // "deleted" only for an object that was shown; one that was
            // never there is not found.
            None if object.with_untracked(Option::is_some) => {
                if inf.has_synced() {
                    history.deleted(&hk, clock.now());
                }
                gone.set(inf.has_synced())
            }
            None => missing.set(inf.has_synced()),
        }
    });
    let status = watch.status();
    let _watch = StoredValue::new_local(watch);
    let problem = move || {
        status.with(watch_problem).map(|p| {
            view! { <ProblemBox problem=p doing="read this object".to_string() testid="object-error"/> }
        })
    };
    let uid = Memo::new(move |_| {
        object.with(|o| {
            o.as_ref()
                .and_then(|o| o.pointer("/metadata/uid"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
    });
    let yaml = move || object.with(|o| o.as_ref().map(to_yaml).unwrap_or_default());
    let copy = move |_| {
        crate::platform::copy_text(&yaml());
    };
    let created_ago = move || {
        let t = object.with(|o| o.as_ref().and_then(created))?;
        Some(format!("created {} ago", age(now.get(), t)))
    };
    let title = format!("{} {key}", info.kind);
    let is_pod = info.group.is_empty() && info.plural == "pods";
    let workload_logs = has_workload_logs(&info.group, &info.plural)
        .then(|| namespace.clone())
        .flatten()
        .map(|ns| view! { <WorkloadLogsLink resource=info.qualified_name() namespace=ns name=name.clone()/> });
    let pod_section = is_pod
        .then(|| namespace.clone())
        .flatten()
        .map(|ns| view! { <PodContainers object namespace=ns name=name.clone()/> });
    let (kind_name, name_shown) = (info.kind.clone(), key.clone());
    // The editor is open.
    let editing = RwSignal::new(false);
    // A Secret's values, its annotations' among them, once revealed.
    let revealed: Option<RevealSignal> = secret.then(|| RwSignal::new(None));
    view! {
        <section class="panel object-page" data-testid="object-page">
            <div class="resource-head">
                <h2 data-testid="object-title">{title}</h2>
                <span class="muted small">{created_ago}</span>
                {move || gone.get().then(|| view! { <span class="badge status-bad" data-testid="object-gone">"deleted"</span> })}
            </div>
            {problem}
            {move || missing.get().then(|| view! {
                <p class="error-box" data-testid="object-missing" data-problem="not-found" role="alert">
                    {format!("There is no {} called “{}” here.", kind_name.clone(), name_shown.clone())}
                </p>
            })}
            <ObjectActions info=info.clone() namespace=namespace.clone() name=name.clone() object editing/>
            {
                let (info, namespace, name) = (info.clone(), namespace.clone(), name.clone());
                move || editing.get().then(|| view! {
                    <ObjectEditor info=info.clone() namespace=namespace.clone() name=name.clone() object open=editing/>
                })
            }
            {workload_logs}
            <div class="two-col object-cols">
                <div class="object-main">
                    {pod_section}
                    <h3>"Labels"</h3>
                    <Chips object field="labels"/>
                    <h3>"Annotations"</h3>
                    {match revealed {
                        Some(revealed) => view! {
                            <SecretAnnotations object revealed/>
                            <SecretData namespace=namespace.clone() name=name.clone() revealed/>
                        }.into_any(),
                        None => view! { <Chips object field="annotations"/> }.into_any(),
                    }}
                    <h3>"Owners"</h3>
                    <Owners object namespace=namespace.clone()/>
                    <OwnedSection info=info.clone() namespace=namespace.clone() name=name.clone() uid/>
                    {has_rollout_history(&info).then(|| namespace.clone()).flatten().map(|ns| view! {
                        <RolloutHistory info=info.clone() namespace=ns name=name.clone() object uid/>
                    })}
                    <h3>"Conditions"</h3>
                    <Conditions object/>
                    <h3>"Events"</h3>
                    <ObjectEvents info=info.clone() namespace=namespace.clone() name=name.clone()/>
                    <h3>"History"</h3>
                    <ObjectHistoryView key=history_key/>
                    {(!secret).then(|| view! { <ObjectDrift object/> })}
                </div>
                <div class="object-yaml">
                    <div class="resource-head">
                        <h3>"YAML"</h3>
                        <button data-testid="copy-yaml" on:click=copy>"Copy"</button>
                    </div>
                    <pre class="yaml" data-testid="yaml">{yaml}</pre>
                </div>
            </div>
        </section>
    }
    .into_any()
}
