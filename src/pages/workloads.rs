//! Deployments with scale buttons, and the live event stream.

use leptos::prelude::*;

use kubeglass_client::actions::ActionKind;

use crate::components::dialog::{confirm, prompt};
use crate::state::workloads::{EVENTS_SHOWN, EventRow, parse_label_changes};
use crate::state::{ClusterState, use_kube};

/// Deployments, with − and + to scale them (recorded as Events).
#[component]
pub fn DeploymentsPanel() -> impl IntoView {
    let w = expect_context::<ClusterState>().workloads;
    let _watch = StoredValue::new_local(w.watch_deployments(&use_kube()));
    let outcome = move || {
        w.last_action.get().map(|r| match r {
            Ok(m) => {
                view! { <div class="action-ok" data-testid="action-result">{m}</div> }.into_any()
            }
            Err(e) => {
                view! { <div class="action-err" data-testid="action-result" role="alert">{e}</div> }
                    .into_any()
            }
        })
    };
    view! {
        <section class="panel">
            <h2>"Deployments"</h2>
            {outcome}
            <table class="grid" data-testid="deployment-table">
                <thead>
                    <tr><th>"Namespace"</th><th>"Name"</th><th class="num">"Ready"</th><th class="num">"Scale"</th><th>"Actions"</th></tr>
                </thead>
                <tbody>
                    <For
                        each=move || w.deployments.get().into_values()
                        key=|r| (r.key.clone(), r.desired, r.ready)
                        children=move |r| {
                            let (ns, name, desired) = (r.namespace.clone(), r.name.clone(), r.desired);
                            let target = format!("{ns}/{name}");
                            let act = move |kind: ActionKind, question: String| {
                                let (ns, name) = (ns.clone(), name.clone());
                                move |_| {
                                    if confirm(&question) {
                                        w.act(&ns, &name, kind.clone());
                                    }
                                }
                            };
                            let labels = {
                                let (ns, name, target) = (r.namespace.clone(), r.name.clone(), target.clone());
                                move |_| {
                                    let Some(text) = prompt(
                                        &format!("Labels for {target} (key=value to set, key- to remove):"),
                                        "",
                                    ) else {
                                        return;
                                    };
                                    match parse_label_changes(&text) {
                                        Ok(changes) => w.act(&ns, &name, ActionKind::Labels(changes)),
                                        Err(e) => w.last_action.set(Some(Err(format!("{target}: {e}")))),
                                    }
                                }
                            };
                            let ok = if r.ready == r.desired { "status-ok" } else { "status-warn" };
                            view! {
                                <tr data-testid="deployment-row" data-key=r.key.clone()>
                                    <td>{r.namespace.clone()}</td>
                                    <td class="name">{r.name.clone()}</td>
                                    <td class=format!("num {ok}")>{format!("{}/{}", r.ready, r.desired)}</td>
                                    <td class="num scale">
                                        <button title="Scale down by one" data-testid="scale-down"
                                            disabled=desired == 0
                                            on:click=act(ActionKind::Scale((desired - 1).max(0)), format!("Scale {target} to {}?", (desired - 1).max(0)))>"−"</button>
                                        <span data-testid="desired">{desired}</span>
                                        <button title="Scale up by one" data-testid="scale-up"
                                            on:click=act(ActionKind::Scale(desired + 1), format!("Scale {target} to {}?", desired + 1))>"+"</button>
                                    </td>
                                    <td class="actions">
                                        <button data-testid="restart" title="kubectl rollout restart"
                                            on:click=act(ActionKind::RestartRollout, format!("Restart the rollout of {target}?"))>"Restart"</button>
                                        <button data-testid="labels" title="Set or remove labels" on:click=labels>"Labels"</button>
                                        <button data-testid="delete" class="danger" title="Delete this Deployment"
                                            on:click=act(ActionKind::Delete, format!("Delete {target}? Its pods go too."))>"Delete"</button>
                                    </td>
                                </tr>
                            }
                        }
                    />
                </tbody>
            </table>
        </section>
    }
}

/// Minutes the sparkline covers.
const SPARK_MINUTES: usize = 30;

/// The live event stream: newest first, Warnings highlighted, filters by
/// type and by text (reason, namespace, kind/name, message, source), pause
/// and resume, and an events-per-minute sparkline.
#[component]
pub fn EventStream() -> impl IntoView {
    let w = expect_context::<ClusterState>().workloads;
    let _watch = StoredValue::new_local(w.watch_events(&use_kube()));
    let now = move || js_sys::Date::now() / 1000.0;
    let age = move |t: i64| {
        let s = (now() - t as f64).max(0.0) as i64;
        match s {
            0..60 => format!("{s}s"),
            60..3600 => format!("{}m", s / 60),
            _ => format!("{}h", s / 3600),
        }
    };
    let type_filter = RwSignal::new(String::new());
    let text = RwSignal::new(String::new());
    let paused = RwSignal::new(false);
    let frozen: RwSignal<Vec<EventRow>> = RwSignal::new(Vec::new());
    let toggle_pause = move |_| {
        if !paused.get_untracked() {
            frozen.set(w.events.get_untracked());
        }
        paused.update(|p| *p = !*p);
    };
    let source = move || {
        if paused.get() {
            frozen.get()
        } else {
            w.events.get()
        }
    };
    let rows = move || {
        let t = type_filter.get();
        let q = text.get().to_lowercase();
        let mut v: Vec<EventRow> = source()
            .into_iter()
            .filter(|e| t.is_empty() || e.type_ == t)
            .filter(|e| {
                q.is_empty()
                    || [&e.reason, &e.namespace, &e.object, &e.message, &e.source]
                        .iter()
                        .any(|f| f.to_lowercase().contains(&q))
            })
            .collect();
        v.truncate(EVENTS_SHOWN);
        v
    };
    // Events per minute over the last half hour, by last seen.
    let spark = move || {
        let t = now();
        let mut buckets = [0u32; SPARK_MINUTES];
        for e in w.events.get() {
            let ago = ((t - e.last_seen as f64) / 60.0).floor();
            if (0.0..SPARK_MINUTES as f64).contains(&ago) {
                buckets[SPARK_MINUTES - 1 - ago as usize] += 1;
            }
        }
        let max = buckets.iter().copied().max().unwrap_or(0).max(1) as f64;
        let points = buckets
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{},{:.1}", i * 4, 22.0 - 20.0 * *n as f64 / max))
            .collect::<Vec<_>>()
            .join(" ");
        (points, buckets[SPARK_MINUTES - 1], max as u32)
    };
    view! {
        <section class="panel" data-testid="event-stream">
            <div class="resource-head">
                <h2>"Events"</h2>
                {move || {
                    let (points, last, max) = spark();
                    view! {
                        <svg class="spark" viewBox="0 0 120 24" width="120" height="24" role="img"
                            aria-label=format!("events per minute, last 30 minutes; peak {max}")>
                            <polyline points=points fill="none" stroke="currentColor" stroke-width="1.5"/>
                        </svg>
                        <span class="muted small" data-testid="events-per-minute">{format!("{last}/min now · peak {max}/min")}</span>
                    }
                }}
            </div>
            <div class="toolbar">
                <select aria-label="Event type" data-testid="event-type-filter"
                    on:change=move |ev| type_filter.set(event_target_value(&ev))>
                    <option value="">"All types"</option>
                    <option value="Warning">"Warning"</option>
                    <option value="Normal">"Normal"</option>
                </select>
                <input class="filter" type="search" placeholder="Filter by reason, namespace, kind/name, message, source"
                    aria-label="Filter events" data-testid="event-filter"
                    prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))/>
                <button class="theme-toggle" data-testid="event-pause" on:click=toggle_pause>
                    {move || if paused.get() { "▶ Resume" } else { "⏸ Pause" }}
                </button>
            </div>
            <div class="events-scroll">
            <table class="grid events" data-testid="event-table">
                <thead>
                    <tr><th>"Last seen"</th><th>"Type"</th><th>"Reason"</th><th>"Object"</th><th class="num">"Count"</th><th>"Message"</th><th>"From"</th></tr>
                </thead>
                <tbody>
                    <For
                        each=rows
                        key=|e| (e.key.clone(), e.count, e.last_seen, e.message.clone())
                        children=move |e| {
                            let class = if e.type_ == "Warning" { "event-warning" } else { "" };
                            view! {
                                <tr class=class data-testid="event-row">
                                    <td>{age(e.last_seen)}</td>
                                    <td>{e.type_.clone()}</td>
                                    <td>{e.reason.clone()}</td>
                                    <td class="name">{format!("{}/{}", e.namespace, e.object)}</td>
                                    <td class="num">{e.count}</td>
                                    <td class="message">{e.message.clone()}</td>
                                    <td class="muted">{e.source.clone()}</td>
                                </tr>
                            }
                        }
                    />
                </tbody>
            </table>
            </div>
        </section>
    }
}

/// Nodes, with cordon and uncordon.
#[component]
pub fn NodesPanel() -> impl IntoView {
    let w = expect_context::<ClusterState>().workloads;
    let _watch = StoredValue::new_local(w.watch_nodes(&use_kube()));
    view! {
        <section class="panel">
            <h2>"Nodes"</h2>
            <table class="grid" data-testid="node-table">
                <thead>
                    <tr><th>"Name"</th><th>"Ready"</th><th>"Scheduling"</th><th>"Actions"</th></tr>
                </thead>
                <tbody>
                    <For
                        each=move || w.nodes.get().into_values()
                        key=|n| (n.name.clone(), n.ready.clone(), n.cordoned)
                        children=move |n| {
                            let name = n.name.clone();
                            let cordoned = n.cordoned;
                            let (label, question) = if cordoned {
                                ("Uncordon", format!("Let pods be scheduled on {name} again?"))
                            } else {
                                ("Cordon", format!("Stop scheduling pods on {name}?"))
                            };
                            let toggle = move |_| {
                                if confirm(&question) {
                                    w.act_on_node(&name, ActionKind::Cordon(!cordoned));
                                }
                            };
                            let ready = if n.ready == "True" { "status-ok" } else { "status-warn" };
                            view! {
                                <tr data-testid="node-row" data-name=n.name.clone()>
                                    <td class="name">{n.name.clone()}</td>
                                    <td class=ready>{n.ready.clone()}</td>
                                    <td data-testid="scheduling">{if cordoned { "SchedulingDisabled" } else { "Schedulable" }}</td>
                                    <td class="actions"><button data-testid="cordon" on:click=toggle>{label}</button></td>
                                </tr>
                            }
                        }
                    />
                </tbody>
            </table>
        </section>
    }
}
