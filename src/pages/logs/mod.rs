//! Logs, live: one pod's (`#/logs/<ns>/<pod>`), with its containers to pick from and a clear word when it cannot be read.

mod lines;
mod state;
mod toolbar;
mod workload;

use kubeglass_client::k8s_openapi::api::core::v1::Pod;
use kubeglass_client::kube_core::DynamicObject;
use leptos::prelude::*;
use serde_json::Value;

use crate::components::problem::ProblemBox;
use crate::components::resolved::Resolved;
use crate::kube::subscribe::logs::{LogStream, open_log};
use crate::kube::subscribe::{InformerSnapshot, collection_path, watch_problem};
use crate::kube::{Kube, Watch, use_kube};
use crate::rules::log_page::{PodLogFacts, may_open, pod_log_message, stream_note};
use crate::rules::logs::LogOptions;
use crate::rules::objects::field_value;
use crate::rules::pods::{PodView, State};
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
    let watch = watch_pod(&kube, &path, &namespace, &pod, object, missing);
    let status = watch.status();
    let _watch = StoredValue::new_local(watch);
    let signals = PodSignals::new(state, object, missing, status);
    open_on_query(kube, state, signals.query, namespace.clone(), pod.clone());
    view! { <PodLogView state signals namespace pod/> }.into_any()
}

/// Watches pod `pod` in `namespace` (at `path`): `object` follows it,
/// `missing` says when the informer has synced without it.
fn watch_pod(
    kube: &Kube,
    path: &str,
    namespace: &str,
    pod: &str,
    object: RwSignal<Option<Value>>,
    missing: RwSignal<bool>,
) -> Watch<DynamicObject> {
    let key = format!("{namespace}/{pod}");
    kube.subscribe("log-pod", path)
        .fields(format!("metadata.name={}", field_value(pod)))
        .frames(move |inf, _| match inf.indexer().borrow().get(&key) {
            Some(o) => {
                object.set(serde_json::to_value(o.as_ref()).ok());
                missing.set(false);
            }
            None => missing.set(inf.has_synced()),
        })
}

/// What the page knows of the pod and of the stream to open, as signals.
#[derive(Clone, Copy)]
struct PodSignals {
    /// The pod, once seen.
    object: RwSignal<Option<Value>>,
    /// The pod's informer has synced without it.
    missing: RwSignal<bool>,
    /// The pod's informer's state.
    status: RwSignal<InformerSnapshot>,
    /// The pod, read, and its default container.
    view_of: Memo<Option<(PodView, Option<String>)>>,
    /// The container shown: the one asked for, or the pod's default.
    chosen: Memo<Option<String>>,
    /// The chosen container's state, when known.
    container_state: Memo<Option<State>>,
    /// What the stream depends on (the request, the container, whether it
    /// may open): a change opens a new one.
    query: Memo<(LogOptions, Option<String>, bool)>,
}

impl PodSignals {
    /// The memos over the pod `object` and the options of `state`.
    fn new(
        state: LogState,
        object: RwSignal<Option<Value>>,
        missing: RwSignal<bool>,
        status: RwSignal<InformerSnapshot>,
    ) -> Self {
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
        let query = Memo::new(move |_| {
            let asked = state.options.with(LogOptions::request_part);
            let ready = may_open(asked.previous, container_state.get().as_ref());
            (asked, chosen.get(), ready)
        });
        Self {
            object,
            missing,
            status,
            view_of,
            chosen,
            container_state,
            query,
        }
    }

    /// The one message above the lines, if any, about `what` the stream
    /// reads of pod `pod` in `namespace`.
    fn message(
        self,
        state: LogState,
        namespace: &str,
        pod: &str,
        what: &str,
    ) -> Option<(&'static str, String)> {
        let pod_problem = self.status.with(watch_problem);
        let stream = state.states.with(|s| s.get(&0).cloned());
        let container = self.container_state.get();
        pod_log_message(&PodLogFacts {
            namespace,
            pod,
            what,
            pod_problem: pod_problem.as_ref(),
            missing: self.missing.get(),
            seen: self.object.with(Option::is_some),
            stream: stream.as_ref(),
            ready: self.query.with(|q| q.2),
            container: container.as_ref(),
        })
    }
}

/// Opens the stream of pod `p` in `ns` anew each time `query` changes,
/// once the container may have a log.
fn open_on_query(
    kube: Kube,
    state: LogState,
    query: Memo<(LogOptions, Option<String>, bool)>,
    ns: String,
    p: String,
) {
    let stream: StoredValue<Option<LogStream>, LocalStorage> = StoredValue::new_local(None);
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
}

/// The pod log page: title, link to the pod, message, controls, lines.
#[component]
fn PodLogView(
    state: LogState,
    signals: PodSignals,
    namespace: String,
    pod: String,
) -> impl IntoView {
    let PodSignals {
        view_of, chosen, ..
    } = signals;
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
    let message = move || signals.message(state, &facts_ns, &facts_pod, &what());
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
}
