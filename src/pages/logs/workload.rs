//! A workload's merged logs: every pod it owns (a Deployment's through its ReplicaSets), found by the owner-UID index, each line tagged with a short pod name; pods join and leave as they come and go, up to a cap of streams.

use std::collections::BTreeMap;

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::k8s_openapi::api::apps::v1::ReplicaSet;
use kubeglass_client::k8s_openapi::api::core::v1::Pod;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::logs::{LogStream, StreamState, open_log};
use crate::kube::use_kube;
use crate::kube::watch::{collection_path, watch_problem};
use crate::model::log_merge::{Member, Merge};
use crate::model::logs::{LogLine, LogOptions, stream_problem};
use crate::model::objects::field_value;
use crate::model::problem::Problem;
use crate::pages::logs::lines::LogLines;
use crate::pages::logs::state::LogState;
use crate::pages::logs::toolbar::LogToolbar;
use crate::route::LogTarget;

/// Streams a merged view opens at most over WebSocket (each costs the
/// apiserver and the node a connection), and over fetch, where each holds
/// one of the browser's six HTTP/1.1 connections (the design allows four
/// long-lived ones, and watches need some).
const CAP_WEBSOCKET: usize = 8;
const CAP_FETCH: usize = 2;

/// The merged logs of workload `name` of kind `info`.
#[component]
pub fn WorkloadLogs(info: ResourceInfo, namespace: String, name: String) -> impl IntoView {
    let kube = use_kube();
    let state = LogState::new(
        namespace.clone(),
        LogTarget::Workload {
            resource: info.qualified_name(),
            name: name.clone(),
        },
    );
    let tick = RwSignal::new(0u64);
    let bump = move |_: &_, _| tick.update(|t| *t += 1);
    // The workload (for its UID), its ReplicaSets (a Deployment's pods are
    // theirs), and the namespace's pods, by owner UID.
    let own = match info.collection_path(Some(&namespace)) {
        Ok(p) => p,
        Err(e) => {
            let problem = Problem::from(e);
            return view! { <ProblemBox problem doing="open these logs".to_string() testid="route-error"/> }
                .into_any();
        }
    };
    let paths = collection_path::<Pod>(&kube, Some(&namespace))
        .and_then(|p| collection_path::<ReplicaSet>(&kube, Some(&namespace)).map(|r| (p, r)));
    let (pods_path, rs_path) = match paths {
        Ok(p) => p,
        Err(problem) => {
            return view! { <ProblemBox problem doing="open these logs".to_string() testid="route-error"/> }
                .into_any();
        }
    };
    let owner = kube
        .subscribe("log-workload", &own)
        .fields(format!("metadata.name={}", field_value(&name)))
        .frames(bump);
    let via_replicasets = info.group == "apps" && info.plural == "deployments";
    let sets = via_replicasets.then(|| {
        kube.subscribe("log-replicasets", &rs_path)
            .owner_index()
            .frames(bump)
    });
    let pods = kube
        .subscribe("log-pods", &pods_path)
        .owner_index()
        .frames(bump);
    let status = pods.status();
    let owner_status = owner.status();
    let key = format!("{namespace}/{name}");
    let watches = StoredValue::new_local((owner, sets, pods));
    let members = Memo::new(move |_| {
        tick.get();
        let container = state.options.with(|o| o.container.clone());
        watches.with_value(|(owner, sets, pods)| {
            let uid = owner
                .indexer()
                .borrow()
                .get(&key)
                .and_then(|o| o.metadata.uid.clone())?;
            let owners: Vec<String> = match sets {
                Some(sets) => sets
                    .owned_by(&uid)
                    .iter()
                    .filter_map(|rs| rs.metadata.uid.clone())
                    .collect(),
                None => vec![uid],
            };
            let mut found: Vec<Member> = owners
                .iter()
                .flat_map(|u| pods.owned_by(u))
                .filter(|p| p.metadata.deletion_timestamp.is_none())
                .filter_map(|p| serde_json::to_value(p.as_ref()).ok())
                .map(|p| Member::from_pod(&p, container.as_deref()))
                .collect();
            found.sort_by(|a, b| a.name.cmp(&b.name));
            Some(found)
        })
    });
    // The plan (which pods, their sources and names) and the open streams.
    let merge = StoredValue::new_local(Merge::new(name.clone()));
    let streams: StoredValue<BTreeMap<String, LogStream>, LocalStorage> =
        StoredValue::new_local(BTreeMap::new());
    let skipped: RwSignal<Vec<String>> = RwSignal::new(Vec::new());
    let sockets = StoredValue::new_local(kube.websockets.clone());
    let cap = move || {
        if sockets.with_value(|s| s.log_websockets_enabled()) {
            CAP_WEBSOCKET
        } else {
            CAP_FETCH
        }
    };
    let query = Memo::new(move |_| state.options.with(LogOptions::request_part));
    let feed = StoredValue::new_local(state.feed(&kube));
    let owner_name = name.clone();
    let ns = namespace.clone();
    // A new query starts over; then pods join and leave.
    Effect::new(move |last: Option<Option<_>>| {
        let q = query.get();
        if last.flatten().as_ref() != Some(&q) {
            streams.update_value(BTreeMap::clear);
            merge.set_value(Merge::new(owner_name.clone()));
            state.reset();
        }
        let now = members.get()?;
        let previous = state.options.with_untracked(|o| o.previous);
        let plan = merge.try_update_value(|m| m.plan(&now, cap(), previous))?;
        let names = merge.with_value(|m| m.names().to_vec());
        let name_of = |src: u16| names.get(src as usize).cloned().unwrap_or_default();
        for (uid, src) in plan.left {
            streams.update_value(|s| {
                s.remove(&uid);
            });
            let text = format!("— pod {} left —", name_of(src));
            feed.with_value(|f| f.mark(LogLine::marker(src, None, text)));
            state.set_state(src, StreamState::Ended);
        }
        if state.names.with_untracked(|n| *n != names) {
            state.names.set(names.clone());
        }
        for o in plan.open {
            let mut params = state.options.with_untracked(|opt| opt.params(&o.container));
            if o.joined {
                params.tail_lines = None;
                params.since_seconds = None;
                params.since_time = None;
                let text = format!("— pod {} joined —", name_of(o.source));
                feed.with_value(|f| f.mark(LogLine::marker(o.source, None, text)));
            }
            let src = o.source;
            let s = feed.with_value(|f| {
                open_log(&kube, &ns, &o.pod, params, src, f.clone(), move |s| {
                    state.set_state(src, s)
                })
            });
            streams.update_value(|st| {
                st.insert(o.uid, s);
            });
        }
        skipped.set(plan.over);
        Some(q)
    });
    let containers = Signal::derive(move || {
        members.with(|m| {
            m.as_ref()
                .and_then(|m| m.first().map(|m| m.containers.clone()))
                .unwrap_or_default()
        })
    });
    let chosen = Signal::derive(move || {
        state.options.with(|o| o.container.clone()).or_else(|| {
            members.with(|m| {
                m.as_ref()
                    .and_then(|m| m.first().and_then(|m| m.container.clone()))
            })
        })
    });
    let title = format!("{} {name}", info.kind);
    let doing = format!("list the pods of {} {name}", info.kind);
    let message = move || {
        if let Some(p) = owner_status
            .with(watch_problem)
            .or_else(|| status.with(watch_problem))
        {
            return Some((p.word(), format!("{} {}", p.explain(&doing), p.detail())));
        }
        let failed: Vec<String> = state.states.with(|s| {
            s.iter()
                .filter_map(|(src, st)| match st {
                    StreamState::Failed(p @ Problem::Forbidden(_)) => {
                        Some(stream_problem(p, "these pods"))
                    }
                    StreamState::Failed(p) => {
                        let who = state
                            .names
                            .with(|n| n.get(*src as usize).cloned().unwrap_or_default());
                        Some(stream_problem(p, &format!("pod {who}")))
                    }
                    _ => None,
                })
                .collect()
        });
        (!failed.is_empty()).then(|| ("failed", failed.join(" ")))
    };
    let following = move || {
        state.names.track();
        state.states.track();
        let total = members.with(|m| m.as_ref().map_or(0, Vec::len));
        skipped.with(|over| merge.with_value(|m| m.summary(total, cap(), over)))
    };
    let file = format!("{namespace}_{name}.log");
    view! {
        <section class="panel log-page" data-testid="log-page">
            <div class="resource-head">
                <h2 data-testid="log-title">"Logs · " {title}</h2>
                <span class="muted small" data-testid="log-members">{following}</span>
            </div>
            {move || message().map(|(word, text)| view! {
                <p class="error-box" data-testid="log-problem" data-problem=word role="alert">{text}</p>
            })}
            <LogToolbar state containers chosen file/>
            <LogLines state/>
        </section>
    }
    .into_any()
}
