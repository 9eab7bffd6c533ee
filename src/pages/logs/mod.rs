//! Logs, live: one pod's (`#/logs/<ns>/<pod>`), with its containers to pick from and a clear word when it cannot be read.

mod lines;
mod state;
mod toolbar;
mod workload;

use kubeglass_client::k8s_openapi::api::core::v1::Pod;
use leptos::prelude::*;
use serde_json::Value;

use crate::components::problem::ProblemBox;
use crate::components::resolved::Resolved;
use crate::kube::logs::{LogStream, open_log};
use crate::kube::use_kube;
use crate::kube::watch::{collection_path, watch_problem};
use crate::model::log_page::{PodLogFacts, may_open, pod_log_message, stream_note};
use crate::model::logs::LogOptions;
use crate::model::objects::field_value;
use crate::model::pods::PodView;
use crate::route::{LogTarget, Route};

use lines::LogLines;
use state::LogState;
use toolbar::LogToolbar;
use workload::WorkloadLogs;

/// The page for `#/logs/…`.
#[component]
pub fn LogsPage(namespace: String, target: LogTarget) -> impl IntoView {
    match target {
        LogTarget::Pod(pod) => view! { <PodLogs namespace pod/> }.into_any(),
        LogTarget::Workload { resource, name } => view! {
            <Resolved name=resource.clone() verbs=&["get", "list", "watch"] let:info>
                <WorkloadLogs info namespace=namespace.clone() name=name.clone()/>
            </Resolved>
        }
        .into_any(),
    }
}

/// One pod's logs.
#[component]
fn PodLogs(namespace: String, pod: String) -> impl IntoView {
    let kube = use_kube();
    let state = LogState::new(namespace.clone(), LogTarget::Pod(pod.clone()));
    // The pod itself, live: its containers and their states.
    let object: RwSignal<Option<Value>> = RwSignal::new(None);
    let missing = RwSignal::new(false);
    let path = match collection_path::<Pod>(&kube, Some(&namespace)) {
        Ok(p) => p,
        Err(problem) => {
            return view! { <ProblemBox problem doing="open these logs".to_string() testid="route-error"/> }
                .into_any();
        }
    };
    let key = format!("{namespace}/{pod}");
    let watch = kube
        .subscribe("log-pod", &path)
        .fields(format!("metadata.name={}", field_value(&pod)))
        .frames(move |inf, _| match inf.indexer().borrow().get(&key) {
            Some(o) => {
                object.set(serde_json::to_value(o.as_ref()).ok());
                missing.set(false);
            }
            None => missing.set(inf.has_synced()),
        });
    let status = watch.status();
    let _watch = StoredValue::new_local(watch);
    let view_of = Memo::new(move |_| {
        object.with(|o| {
            o.as_ref().map(|o| {
                (
                    PodView::from_value(o),
                    PodView::default_container(o, &PodView::from_value(o)),
                )
            })
        })
    });
    let chosen = Memo::new(move |_| {
        state
            .options
            .with(|o| o.container.clone())
            .or_else(|| view_of.with(|v| v.as_ref().and_then(|(_, d)| d.clone())))
    });
    let container_state = Memo::new(move |_| {
        let c = chosen.get()?;
        view_of.with(|v| {
            v.as_ref().and_then(|(v, _)| {
                v.containers
                    .iter()
                    .find(|x| x.name == c)
                    .map(|x| x.state.clone())
            })
        })
    });
    // What the stream depends on: a change opens a new one.
    let query = Memo::new(move |_| {
        let asked = state.options.with(LogOptions::request_part);
        let ready = may_open(asked.previous, container_state.get().as_ref());
        (asked, chosen.get(), ready)
    });
    let stream: StoredValue<Option<LogStream>, LocalStorage> = StoredValue::new_local(None);
    let (ns, p) = (namespace.clone(), pod.clone());
    Effect::new(move |_| {
        let (_, container, ready) = query.get();
        stream.set_value(None);
        state.reset();
        let Some(container) = container else { return };
        state.names.set(vec![container.clone()]);
        if !ready {
            return;
        }
        let params = state.options.with_untracked(|o| o.params(&container));
        let s = open_log(&kube, &ns, &p, params, 0, state.feed(&kube), move |s| {
            state.set_state(0, s)
        });
        stream.set_value(Some(s));
    });
    let containers = Signal::derive(move || {
        view_of.with(|v| {
            v.as_ref()
                .map(|(v, _)| {
                    v.containers
                        .iter()
                        .map(|c| (c.name.clone(), c.kind.word()))
                        .collect()
                })
                .unwrap_or_default()
        })
    });
    let pod_name = StoredValue::new(pod.clone());
    let what = move || {
        format!(
            "container {} of pod {}",
            chosen.get().unwrap_or_default(),
            pod_name.get_value()
        )
    };
    let (facts_pod, facts_ns) = (pod.clone(), namespace.clone());
    let message = move || {
        let what = what();
        let pod_problem = status.with(watch_problem);
        let stream = state.states.with(|s| s.get(&0).cloned());
        let container = container_state.get();
        pod_log_message(&PodLogFacts {
            namespace: &facts_ns,
            pod: &facts_pod,
            what: &what,
            pod_problem: pod_problem.as_ref(),
            missing: missing.get(),
            seen: object.with(Option::is_some),
            stream: stream.as_ref(),
            ready: query.with(|q| q.2),
            container: container.as_ref(),
        })
    };
    let ended = move || {
        let stream = state.states.with(|s| s.get(&0).cloned());
        state
            .options
            .with(|o| stream_note(stream.as_ref(), o.follow, o.previous))
    };
    let back = Route::Object {
        resource: "pods".into(),
        namespace: Some(namespace.clone()),
        name: pod.clone(),
    }
    .link();
    let file = format!("{namespace}_{pod}.log");
    view! {
        <section class="panel log-page" data-testid="log-page">
            <div class="resource-head">
                <h2 data-testid="log-title">"Logs · " {move || what()}</h2>
                {back.map(|href| view! { <a class="muted small" href=href>"pod page"</a> })}
            </div>
            {move || message().map(|(word, text)| view! {
                <p class="error-box" data-testid="log-problem" data-problem=word role="alert">{text}</p>
            })}
            <LogToolbar state containers chosen=chosen.into() file/>
            {move || ended().map(|t| view! { <p class="muted small" data-testid="log-ended">{t}</p> })}
            <LogLines state/>
        </section>
    }
    .into_any()
}
