//! Deployments with scale buttons, and the live event stream.

use leptos::prelude::*;

use kubeglass_client::actions::ActionKind;

use crate::components::dialog::{ask_label_changes, confirm};
use crate::route::Route;
use crate::state::workloads::{EVENTS_SHOWN, EventFilter, EventIndex, EventRow};
use crate::state::{ClusterState, use_kube};
use std::sync::Arc;

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
                                move |_| match ask_label_changes(&target) {
                                    Some(Ok(kind)) => w.act(&ns, &name, kind),
                                    Some(Err(e)) => w.last_action.set(Some(Err(e))),
                                    None => {}
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

/// The choices of the event filter menus.
#[derive(Clone, PartialEq)]
struct Choices {
    reasons: Vec<String>,
    namespaces: Vec<String>,
    kinds: Vec<String>,
}

/// Minutes the sparkline covers.
const SPARK_MINUTES: usize = 30;

/// The live event stream: newest first, Warnings highlighted, count and
/// first/last seen, filters by type, reason, namespace, kind, involved
/// object and text, pause and resume, an events-per-minute sparkline;
/// involved objects link to their pages.
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
    let filter = RwSignal::new(EventFilter::default());
    let paused = RwSignal::new(false);
    // While paused the stream reads a copy taken at the pause (rows are
    // shared, so the copy is pointers).
    let frozen: RwSignal<EventIndex> = RwSignal::new(EventIndex::default());
    let toggle_pause = move |_| {
        if !paused.get_untracked() {
            frozen.set(w.events.get_untracked());
        }
        paused.update(|p| *p = !*p);
    };
    let with_source = move |f: &mut dyn FnMut(&EventIndex)| {
        if paused.get() {
            frozen.with(|ix| f(ix))
        } else {
            w.events.with(|ix| f(ix))
        }
    };
    // The newest events that pass the filter; the walk stops at EVENTS_SHOWN.
    let rows = move || {
        let f = filter.get();
        let mut v: Vec<Arc<EventRow>> = Vec::new();
        with_source(&mut |ix| {
            v = ix
                .newest()
                .filter(|e| f.matches(e))
                .take(EVENTS_SHOWN)
                .cloned()
                .collect();
        });
        v
    };
    // The choices of each menu: what the events hold now.
    let choices = Memo::new(move |_| {
        w.events.with(|ix| Choices {
            reasons: ix.reasons().keys().cloned().collect(),
            namespaces: ix.namespaces().keys().cloned().collect(),
            kinds: ix.kinds().keys().cloned().collect(),
        })
    });
    let menu = move |label: &'static str,
                     testid: &'static str,
                     pick: fn(&Choices) -> &Vec<String>,
                     set: fn(&mut EventFilter, String),
                     get: fn(&EventFilter) -> String| {
        view! {
            <select aria-label=label data-testid=testid
                prop:value=move || filter.with(get)
                on:change=move |ev| { let v = event_target_value(&ev); filter.update(|f| set(f, v)); }>
                <option value="">{format!("All {}", label.to_lowercase())}</option>
                {move || {
                    let current = filter.with(get);
                    let mut options = choices.with(|c| pick(c).clone());
                    // Keep a chosen value listed even when its events have gone.
                    if !current.is_empty() && !options.contains(&current) {
                        options.push(current.clone());
                    }
                    options.into_iter().map(|o| {
                        let selected = o == current;
                        view! { <option value=o.clone() selected=selected>{o.clone()}</option> }
                    }).collect_view()
                }}
            </select>
        }
    };
    let discovered = use_kube().discovered;
    // The involved object's page, when discovery knows its kind.
    let object_href = move |e: &EventRow| {
        let d = discovered.get().and_then(Result::ok)?;
        let (group, version) = e
            .involved
            .api_version
            .rsplit_once('/')
            .unwrap_or(("", &e.involved.api_version));
        let version = (!version.is_empty()).then_some(version);
        let r = d
            .mapper()
            .resource_for_kind(group, version, &e.involved.kind)?;
        Some(
            Route::Object {
                resource: r.qualified_name(),
                namespace: (!e.involved.namespace.is_empty()).then(|| e.involved.namespace.clone()),
                name: e.involved.name.clone(),
            }
            .href(),
        )
    };
    // Events per minute over the last half hour, by last seen.
    let spark = move || {
        let t = now();
        let mut buckets = [0u32; SPARK_MINUTES];
        w.events.with(|ix| {
            // Newest first: stop at the first event older than the window.
            for e in ix.newest() {
                let ago = ((t - e.last_seen as f64) / 60.0).floor();
                if ago >= SPARK_MINUTES as f64 {
                    break;
                }
                if ago >= 0.0 {
                    buckets[SPARK_MINUTES - 1 - ago as usize] += 1;
                }
            }
        });
        let max = buckets.iter().copied().max().unwrap_or(0).max(1) as f64;
        let points = buckets
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{},{:.1}", i * 4, 22.0 - 20.0 * *n as f64 / max))
            .collect::<Vec<_>>()
            .join(" ");
        let held = w.events.with(|ix| {
            if ix.is_empty() {
                "no events".to_string()
            } else {
                format!("{} events", ix.len())
            }
        });
        (points, buckets[SPARK_MINUTES - 1], max as u32, held)
    };
    view! {
        <section class="panel" data-testid="event-stream">
            <div class="resource-head">
                <h2>"Events"</h2>
                {move || {
                    let (points, last, max, held) = spark();
                    view! {
                        <svg class="spark" viewBox="0 0 120 24" width="120" height="24" role="img"
                            aria-label=format!("events per minute, last 30 minutes; peak {max}")>
                            <polyline points=points fill="none" stroke="currentColor" stroke-width="1.5"/>
                        </svg>
                        <span class="muted small" data-testid="events-per-minute">{format!("{held} · {last}/min now · peak {max}/min")}</span>
                    }
                }}
            </div>
            <div class="toolbar">
                <select aria-label="Event type" data-testid="event-type-filter"
                    on:change=move |ev| { let v = event_target_value(&ev); filter.update(|f| f.type_ = v); }>
                    <option value="">"All types"</option>
                    <option value="Warning">"Warning"</option>
                    <option value="Normal">"Normal"</option>
                </select>
                {menu("Reasons", "event-reason-filter", |c| &c.reasons, |f, v| f.reason = v, |f| f.reason.clone())}
                {menu("Namespaces", "event-namespace-filter", |c| &c.namespaces, |f, v| f.namespace = v, |f| f.namespace.clone())}
                {menu("Kinds", "event-kind-filter", |c| &c.kinds, |f, v| f.kind = v, |f| f.kind.clone())}
                <input class="filter narrow" type="search" placeholder="Object name"
                    aria-label="Involved object name" data-testid="event-object-filter"
                    prop:value=move || filter.with(|f| f.object.clone())
                    on:input=move |ev| { let v = event_target_value(&ev); filter.update(|f| f.object = v); }/>
                <input class="filter" type="search" placeholder="Text in reason, object, message, source"
                    aria-label="Filter events" data-testid="event-filter"
                    prop:value=move || filter.with(|f| f.text.clone())
                    on:input=move |ev| { let v = event_target_value(&ev); filter.update(|f| f.text = v); }/>
                <button class="theme-toggle" data-testid="event-pause" on:click=toggle_pause>
                    {move || if paused.get() { "▶ Resume" } else { "⏸ Pause" }}
                </button>
            </div>
            <div class="events-scroll">
            <table class="grid events" data-testid="event-table">
                <thead>
                    <tr><th>"Last seen"</th><th>"First seen"</th><th>"Type"</th><th>"Reason"</th><th>"Object"</th><th class="num">"Count"</th><th>"Message"</th><th>"From"</th></tr>
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
                                    <td class="muted">{age(e.first_seen)}</td>
                                    <td>{e.type_.clone()}</td>
                                    <td>{e.reason.clone()}</td>
                                    <td class="name">{
                                        // A link once discovery knows the kind (it may load after the row).
                                        let text = format!("{}/{}", e.namespace, e.object);
                                        let e = e.clone();
                                        move || match object_href(&e) {
                                            Some(href) => view! { <a href=href data-testid="event-object-link">{text.clone()}</a> }.into_any(),
                                            None => view! { <span>{text.clone()}</span> }.into_any(),
                                        }
                                    }</td>
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
