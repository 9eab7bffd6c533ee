//! One object, live: its heading and actions, labels and annotations, owners and what it owns, conditions, events, its versions seen in this tab, a Secret's data on request, and its YAML.

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::kube_core::DynamicObject;
use leptos::prelude::*;
use serde_json::Value;

use crate::components::problem::ProblemBox;
use crate::components::resolved::Resolved;
use crate::kube::stores::versions::{VersionStore, use_versions};
use crate::kube::subscribe::{InformerSnapshot, Subscribe, watch_problem};
use crate::kube::{Kube, Now, Watch, use_kube};
use crate::rules::objects::{created, field_value, with_type_meta};
use crate::rules::problem::Problem;
use crate::rules::time::{Seconds, age};
use crate::rules::unread::stale_words;
use crate::rules::yaml::to_yaml;

mod actions;
mod containers;
mod drain;
mod drift;
mod edit;
mod events;
mod forward;
mod versions;
mod meta;
mod owned;
mod rollout;
mod secret;
mod usage;

use actions::ObjectActions;
use containers::{PodContainers, WorkloadLogsLink, has_workload_logs};
use drift::ObjectDrift;
use edit::ObjectEditor;
use events::ObjectEvents;
use versions::VersionsView;
use kubeglass_kubectl::usage::Target;
use meta::{Chips, Conditions, Owners};
use owned::OwnedSection;
use rollout::{RolloutHistory, has_rollout_history};
use secret::{RevealSignal, SecretAnnotations, SecretData};
use usage::{UsageGraphs, WorkloadUsage, pods_target};

/// The page for `#/o/<resource>/<namespace>/<name>`.
#[component]
pub fn ObjectPage(resource: String, namespace: Option<String>, name: String) -> impl IntoView {
    view! {
        <Resolved name=resource let:info>
            <LiveObject info namespace=namespace.clone() name=name.clone()/>
        </Resolved>
    }
}

/// What the page knows of the object: its latest version, and whether it
/// was deleted while shown or was never there.
#[derive(Clone, Copy)]
struct Shown {
    object: RwSignal<Option<Value>>,
    gone: RwSignal<bool>,
    missing: RwSignal<bool>,
}

/// One object's page, once its resource is resolved.
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
    let subscription = object_subscription(&kube, &path, &name, secret);
    let key = match &namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.clone(),
    };
    let versions_key = VersionStore::key(&info.qualified_name(), namespace.as_deref(), &name);
    let (watch, shown) = follow(subscription, &kube, &info, key.clone(), versions_key.clone());
    let Shown {
        object,
        gone,
        missing,
    } = shown;
    let status = watch.status();
    let _watch = StoredValue::new_local(watch);
    let stale = stale_words_of(status, key.clone());
    let problem = move || {
        status.with(watch_problem).map(|p| {
            view! { <ProblemBox problem=p doing="read this object".to_string() testid="object-error"/> }
        })
    };
    let uid = object_uid(object);
    let title = format!("{} {key}", info.kind);
    let workload_logs = has_workload_logs(&info.group, &info.plural)
        .then(|| namespace.clone())
        .flatten()
        .map(|ns| view! { <WorkloadLogsLink resource=info.qualified_name() namespace=ns name=name.clone()/> });
    let map_link = map_link(&info.qualified_name(), namespace.as_deref(), &name);
    let (kind_name, name_shown) = (info.kind.clone(), key.clone());
    // The editor is open.
    let editing = RwSignal::new(false);
    // A Secret's values, its annotations' among them, once revealed.
    let revealed: Option<RevealSignal> = secret.then(|| RwSignal::new(None));
    view! {
        <section class="panel object-page" data-testid="object-page">
            <ObjectHead title object gone stale now/>
            {problem}
            <ObjectMissing missing kind_name name_shown/>
            <ObjectActions info=info.clone() namespace=namespace.clone() name=name.clone() object editing/>
            {
                let (info, namespace, name) = (info.clone(), namespace.clone(), name.clone());
                move || editing.get().then(|| view! {
                    <ObjectEditor info=info.clone() namespace=namespace.clone() name=name.clone() object open=editing/>
                })
            }
            {map_link.map(|href| view! {
                <p class="small"><a href=href data-testid="object-map">"Map: what it is joined to"</a></p>
            })}
            {workload_logs}
            {(info.group.is_empty() && info.plural == "nodes").then(|| view! { <drain::NodeDrain node=name.clone()/> })}
            {namespace.clone().and_then(|ns| forward::forward_kind(&info.group, &info.plural).map(|kind| view! {
                <forward::ForwardPorts kind namespace=ns name=name.clone() object/>
            }))}
            <div class="two-col object-cols">
                <ObjectMain info namespace name object uid versions_key revealed/>
                <ObjectYaml object/>
            </div>
        </section>
    }
    .into_any()
}

/// The one-object informer of `name` at `path` (managedFields kept: the
/// YAML view folds them); for a Secret, metadata only.
fn object_subscription<'a>(
    kube: &'a Kube,
    path: &str,
    name: &str,
    secret: bool,
) -> Subscribe<'a, DynamicObject> {
    // managedFields are folded in the YAML view, not dropped.
    let subscription = kube
        .subscribe("object", path)
        .with_managed_fields()
        .fields(format!("metadata.name={}", field_value(name)));
    if secret {
        // A Secret's data is fetched only when the person asks (Reveal); the
        // informer itself hides every annotation's value (tools keep copies
        // of the Secret there).
        return subscription.metadata_only();
    }
    subscription
}

/// Starts `subscription` and shows the object under `key` as it changes
/// (the signals it sets are returned with the watch); every version the
/// page sees goes into the tab's versions under `versions_key`.
fn follow(
    subscription: Subscribe<'_, DynamicObject>,
    kube: &Kube,
    info: &ResourceInfo,
    key: String,
    versions_key: String,
) -> (Watch<DynamicObject>, Shown) {
    let shown = Shown {
        object: RwSignal::new(None),
        gone: RwSignal::new(false),
        missing: RwSignal::new(false),
    };
    let Shown {
        object,
        gone,
        missing,
    } = shown;
    let (api_version, kind) = (info.api_version(), info.kind.clone());
    let (versions, clock) = (use_versions(), kube.clone());
    let watch = subscription.frames(move |inf, _| {
        let current = inf.indexer().borrow().get(&key);
        match current {
            Some(o) => {
                let value = with_type_meta(&o, &api_version, &kind);
                versions.record(&versions_key, &value, clock.now());
                object.set(Some(value));
                gone.set(false);
            }
            // "deleted" only for an object that was shown; one that was
            // never there is not found.
            None if object.with_untracked(Option::is_some) => {
                if inf.has_synced() {
                    versions.deleted(&versions_key, clock.now());
                }
                gone.set(inf.has_synced())
            }
            None => missing.set(inf.has_synced()),
        }
    });
    (watch, shown)
}

/// Why the object under `key` is shown as its last good copy, while the
/// server's copy does not decode (the informer names it stale).
fn stale_words_of(status: RwSignal<InformerSnapshot>, key: String) -> Memo<Option<String>> {
    Memo::new(move |_| status.with(|s| s.stale.get(&key).map(stale_words)))
}

/// The object's UID, once it is read.
fn object_uid(object: RwSignal<Option<Value>>) -> Memo<Option<String>> {
    Memo::new(move |_| {
        object.with(|o| {
            o.as_ref()
                .and_then(|o| o.pointer("/metadata/uid"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
    })
}

/// That no `kind_name` called `name_shown` is here, once the list says so.
#[component]
fn ObjectMissing(missing: RwSignal<bool>, kind_name: String, name_shown: String) -> impl IntoView {
    move || {
        missing.get().then(|| view! {
        <p class="error-box" data-testid="object-missing" data-problem="not-found" role="alert">
            {format!("There is no {} called “{}” here.", kind_name.clone(), name_shown.clone())}
        </p>
    })
    }
}

/// The heading: kind and name, the object's age, "deleted" once it is
/// gone, and "stale" while what is shown is its last good copy.
#[component]
fn ObjectHead(
    title: String,
    object: RwSignal<Option<Value>>,
    gone: RwSignal<bool>,
    stale: Memo<Option<String>>,
    now: RwSignal<Seconds>,
) -> impl IntoView {
    let created_ago = move || {
        let t = object.with(|o| o.as_ref().and_then(created))?;
        Some(format!("created {} ago", age(now.get(), t)))
    };
    view! {
        <div class="resource-head">
            <h2 data-testid="object-title">{title}</h2>
            <span class="muted small">{created_ago}</span>
            {move || gone.get().then(|| view! { <span class="badge status-bad" data-testid="object-gone">"deleted"</span> })}
            {move || stale.get().map(|why| view! { <span class="badge stale" data-testid="object-stale" title=why>"stale: last good copy"</span> })}
        </div>
    }
}

/// The main column: pod, labels, annotations, owners, owned, rollouts, conditions, events, history, drift.
#[component]
fn ObjectMain(
    info: ResourceInfo,
    namespace: Option<String>,
    name: String,
    object: RwSignal<Option<Value>>,
    uid: Memo<Option<String>>,
    versions_key: String,
    revealed: Option<RevealSignal>,
) -> impl IntoView {
    // Only a Secret has a reveal.
    let secret = revealed.is_some();
    let is_pod = info.group.is_empty() && info.plural == "pods";
    let pod_section = is_pod
        .then(|| namespace.clone())
        .flatten()
        .map(|ns| view! { <PodContainers object namespace=ns name=name.clone()/> });
    // CPU and memory, for a pod or a node.
    let is_node = info.group.is_empty() && info.plural == "nodes";
    // A pod's figures come from the header's namespace's poll when it holds
    // the pod (shared with Top, and its points), else from its own.
    let usage = match (&namespace, is_pod, is_node) {
        (Some(ns), true, _) => Some((pods_target(ns), format!("{ns}/{name}"))),
        (None, _, true) => Some((Target::Nodes, name.clone())),
        _ => None,
    }
    .map(|(target, key)| view! { <UsageGraphs target key object node=is_node/> });
    view! {
        <div class="object-main">
            {pod_section}
            {usage}
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
            {has_workload_logs(&info.group, &info.plural).then(|| namespace.clone()).flatten().map(|ns| view! {
                <WorkloadUsage info=info.clone() namespace=ns name=name.clone()/>
            })}
            {has_rollout_history(&info).then(|| namespace.clone()).flatten().map(|ns| view! {
                <RolloutHistory info=info.clone() namespace=ns name=name.clone() object uid/>
            })}
            <h3>"Conditions"</h3>
            <Conditions object/>
            <h3>"Events"</h3>
            <ObjectEvents info=info.clone() namespace=namespace.clone() name=name.clone()/>
            <h3>"History"</h3>
            <VersionsView key=versions_key/>
            {(!secret).then(|| view! { <ObjectDrift object/> })}
        </div>
    }
}

/// The object's YAML, with Copy.
#[component]
fn ObjectYaml(object: RwSignal<Option<Value>>) -> impl IntoView {
    let yaml = move || object.with(|o| o.as_ref().map(to_yaml).unwrap_or_default());
    let copy = move |_| {
        crate::platform::copy_text(&yaml());
    };
    view! {
        <div class="object-yaml">
            <div class="resource-head">
                <h3>"YAML"</h3>
                <button data-testid="copy-yaml" on:click=copy>"Copy"</button>
            </div>
            <pre class="yaml" data-testid="yaml">{yaml}</pre>
        </div>
    }
}

/// The link to the object's map, when the map joins its kind.
fn map_link(resource: &str, namespace: Option<&str>, name: &str) -> Option<String> {
    kubeglass_kubectl::map::Kind::from_resource(resource)?;
    let focus = crate::route::MapFocus { resource: resource.into(), namespace: namespace.map(str::to_string), name: name.into() };
    crate::route::Route::Map { focus: Some(focus), depth: crate::route::map::DEFAULT_DEPTH }.link()
}
