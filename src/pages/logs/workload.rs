//! A workload's merged logs: every pod it owns (a Deployment's through its ReplicaSets), found by the owner-UID index, each line tagged with a short pod name; pods join and leave as they come and go, up to a cap of streams.

use std::collections::BTreeMap;
use std::rc::Rc;

use kubeglass_client::discovery::ResourceInfo;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::subscribe::logs::{LogFeed, LogStream, StreamState, open_log};
use crate::kube::subscribe::{InformerSnapshot, watch_problem};
use crate::kube::subscribe::workload::WorkloadPods;
use crate::kube::{Kube, Sockets, use_kube};
use crate::rules::log_merge::{Member, Merge, Open};
use crate::rules::logs::{LogLine, LogOptions, stream_problem};
use crate::rules::problem::Problem;
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
    // The workload (for its UID), its ReplicaSets (a Deployment's pods are
    // theirs), and the namespace's pods, by owner UID.
    let watch = match kube.workload_pods(&info, &namespace, &name) {
        Ok(w) => w,
        Err(problem) => {
            return view! { <ProblemBox problem doing="open these logs".to_string() testid="route-error"/> }
                .into_any();
        }
    };
    let statuses = watch.statuses();
    let members = workload_members(state, StoredValue::new_local(watch));
    // The plan (which pods, their sources and names) and the open streams.
    let merged = Merged::new(&kube, state, name.clone());
    let query = Memo::new(move |_| state.options.with(LogOptions::request_part));
    // A new query starts over; then pods join and leave.
    follow_members(
        kube,
        state,
        members,
        query,
        merged,
        name.clone(),
        namespace.clone(),
    );
    let title = format!("{} {name}", info.kind);
    let doing = format!("list the pods of {} {name}", info.kind);
    let file = format!("{namespace}_{name}.log");
    view! { <WorkloadLogView state members merged title doing statuses file/> }.into_any()
}

/// The workload's pods (not being deleted), by name, as members of the
/// merged view showing `state`'s container; None before the workload is
/// seen. Recomputed on each frame of the watches.
fn workload_members(
    state: LogState,
    watch: StoredValue<WorkloadPods, LocalStorage>,
) -> Memo<Option<Vec<Member>>> {
    Memo::new(move |_| {
        let container = state.options.with(|o| o.container.clone());
        let pods = watch.with_value(WorkloadPods::pods)?;
        Some(
            pods.iter()
                .filter_map(|p| serde_json::to_value(p.as_ref()).ok())
                .map(|p| Member::from_pod(&p, container.as_deref()))
                .collect(),
        )
    })
}

/// The merged view's plan (which pods, their sources and names), its open
/// streams, the pods over the cap, and the feed the streams write to.
#[derive(Clone, Copy)]
struct Merged {
    merge: StoredValue<Merge, LocalStorage>,
    streams: StoredValue<BTreeMap<String, LogStream>, LocalStorage>,
    skipped: RwSignal<Vec<String>>,
    sockets: StoredValue<Rc<dyn Sockets>, LocalStorage>,
    feed: StoredValue<LogFeed, LocalStorage>,
}

/// Source `src`'s short name.
fn name_of(names: &[String], src: u16) -> String {
    names.get(src as usize).cloned().unwrap_or_default()
}

impl Merged {
    /// Nothing open yet, for the workload named `owner`.
    fn new(kube: &Kube, state: LogState, owner: String) -> Self {
        let merge = StoredValue::new_local(Merge::new(owner));
        let streams: StoredValue<BTreeMap<String, LogStream>, LocalStorage> =
            StoredValue::new_local(BTreeMap::new());
        let skipped: RwSignal<Vec<String>> = RwSignal::new(Vec::new());
        let sockets = StoredValue::new_local(kube.sockets());
        let feed = StoredValue::new_local(state.feed(kube));
        Self {
            merge,
            streams,
            skipped,
            sockets,
            feed,
        }
    }

    /// Streams it opens at most.
    fn cap(self) -> usize {
        if self.sockets.with_value(|s| s.log_websockets_enabled()) {
            CAP_WEBSOCKET
        } else {
            CAP_FETCH
        }
    }

    /// Closes the streams of the pods that `left` (UID, source), marking
    /// each in the lines.
    fn close(self, state: LogState, left: Vec<(String, u16)>, names: &[String]) {
        for (uid, src) in left {
            self.streams.update_value(|s| {
                s.remove(&uid);
            });
            let text = format!("— pod {} left —", name_of(names, src));
            self.feed
                .with_value(|f| f.mark(LogLine::marker(src, None, text)));
            state.set_state(src, StreamState::Ended);
        }
    }

    /// Opens the streams of `open` in `ns`; a pod that joined is read from
    /// its start, marked in the lines.
    fn open(self, kube: &Kube, ns: &str, state: LogState, open: Vec<Open>, names: &[String]) {
        for o in open {
            let mut params = state.options.with_untracked(|opt| opt.params(&o.container));
            if o.joined {
                params.tail_lines = None;
                params.since_seconds = None;
                params.since_time = None;
                let text = format!("— pod {} joined —", name_of(names, o.source));
                self.feed
                    .with_value(|f| f.mark(LogLine::marker(o.source, None, text)));
            }
            let src = o.source;
            let s = self.feed.with_value(|f| {
                open_log(kube, ns, &o.pod, params, src, f.clone(), move |s| {
                    state.set_state(src, s)
                })
            });
            self.streams.update_value(|st| {
                st.insert(o.uid, s);
            });
        }
    }
}

/// Follows the `members` of workload `owner_name` in `ns`: a new `query`
/// starts over; then pods join and leave.
fn follow_members(
    kube: Kube,
    state: LogState,
    members: Memo<Option<Vec<Member>>>,
    query: Memo<LogOptions>,
    merged: Merged,
    owner_name: String,
    ns: String,
) {
    let Merged {
        merge,
        streams,
        skipped,
        ..
    } = merged;
    Effect::new(move |last: Option<Option<_>>| {
        let q = query.get();
        if last.flatten().as_ref() != Some(&q) {
            streams.update_value(BTreeMap::clear);
            merge.set_value(Merge::new(owner_name.clone()));
            state.reset();
        }
        let now = members.get()?;
        let previous = state.options.with_untracked(|o| o.previous);
        let plan = merge.try_update_value(|m| m.plan(&now, merged.cap(), previous))?;
        let names = merge.with_value(|m| m.names().to_vec());
        merged.close(state, plan.left, &names);
        if state.names.with_untracked(|n| *n != names) {
            state.names.set(names.clone());
        }
        merged.open(&kube, &ns, state, plan.open, &names);
        skipped.set(plan.over);
        Some(q)
    });
}

/// What went wrong, if anything: the watches' problem (`doing` says what
/// they were for), else each failed stream's.
fn workload_message(
    state: LogState,
    (owner_status, status): (RwSignal<InformerSnapshot>, RwSignal<InformerSnapshot>),
    doing: &str,
) -> Option<(&'static str, String)> {
    if let Some(p) = owner_status
        .with(watch_problem)
        .or_else(|| status.with(watch_problem))
    {
        return Some((p.word(), format!("{} {}", p.explain(doing), p.detail())));
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
}

/// The merged log page: title, who is followed, message, controls, lines.
/// `statuses` are the workload's and the pods' informers'.
#[component]
fn WorkloadLogView(
    state: LogState,
    members: Memo<Option<Vec<Member>>>,
    merged: Merged,
    title: String,
    doing: String,
    statuses: (RwSignal<InformerSnapshot>, RwSignal<InformerSnapshot>),
    file: String,
) -> impl IntoView {
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
    let message = move || workload_message(state, statuses, &doing);
    let following = move || {
        state.names.track();
        state.states.track();
        let total = members.with(|m| m.as_ref().map_or(0, Vec::len));
        merged.skipped.with(|over| {
            merged
                .merge
                .with_value(|m| m.summary(total, merged.cap(), over))
        })
    };
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
}
