//! Deployments with scale buttons, and the live event stream.

use leptos::prelude::*;

use kubeglass_client::actions::ActionKind;

use crate::components::dialog::{ask_label_changes, confirm};
use crate::components::scroll::ScrollWindow;
use crate::route::Route;
use crate::state::session::SessionState;
use crate::state::workloads::{EventFilter, EventIndex, EventRow};
use crate::state::{ClusterState, Now, use_kube};
use std::sync::Arc;

/// Deployments, with − and + to scale them (recorded as Events).
#[component]
pub fn DeploymentsPanel() -> impl IntoView {
    let w = expect_context::<ClusterState>().workloads;
    let read_only = expect_context::<SessionState>().read_only();
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
                                        {(!read_only).then(|| view! {
                                            <button title="Scale down by one" data-testid="scale-down"
                                                disabled=desired == 0
                                                on:click=act.clone()(ActionKind::Scale((desired - 1).max(0)), format!("Scale {target} to {}?", (desired - 1).max(0)))>"−"</button>
                                        })}
                                        <span data-testid="desired">{desired}</span>
                                        {(!read_only).then(|| view! {
                                            <button title="Scale up by one" data-testid="scale-up"
                                                on:click=act.clone()(ActionKind::Scale(desired + 1), format!("Scale {target} to {}?", desired + 1))>"+"</button>
                                        })}
                                    </td>
                                    <td class="actions">
                                        {(!read_only).then(|| view! {
                                            <button data-testid="restart" title="kubectl rollout restart"
                                                on:click=act.clone()(ActionKind::RestartRollout, format!("Restart the rollout of {target}?"))>"Restart"</button>
                                            <button data-testid="labels" title="Set or remove labels" on:click=labels>"Labels"</button>
                                            <button data-testid="delete" class="danger" title="Delete this Deployment"
                                                on:click=act(ActionKind::Delete, format!("Delete {target}? Its pods go too."))>"Delete"</button>
                                        })}
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
/// Height of one event row, px (`.erow` in style/main.css).
const EVENT_ROW: f64 = 30.0;
/// Height of the event list before it is first measured, px (`.ebody`'s
/// max-height).
const EVENTS_VIEWPORT: f64 = 460.0;
/// Rows kept in the DOM above and below the visible ones.
const EVENT_OVERSCAN: usize = 6;

/// The live event stream: newest first, Warnings highlighted, count and
/// first/last seen, filters by type, reason, namespace, kind, involved
/// object and text, pause and resume, an events-per-minute sparkline;
/// involved objects link to their pages.
#[component]
pub fn EventStream() -> impl IntoView {
    let w = expect_context::<ClusterState>().workloads;
    let _watch = StoredValue::new_local(w.watch_events(&use_kube()));
    // The app's once-a-second clock: ages and the sparkline keep ticking
    // between events.
    let clock = expect_context::<Now>().0;
    let now = move || clock.get();
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
    // While paused the stream reads a copy of the index taken at the pause
    // (its keys and counts; the rows themselves are shared).
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
    // With a filter set, every event that passes it, newest first (shared
    // rows: a frame copies pointers). Without one, the index is read in
    // place.
    let filtered = Memo::new(move |_| {
        let f = filter.get();
        (f != EventFilter::default()).then(|| {
            let mut v: Vec<Arc<EventRow>> = Vec::new();
            let pass = f.matcher();
            with_source(&mut |ix| {
                v = ix.newest().filter(|e| pass(e)).cloned().collect();
            });
            v
        })
    });
    let shown_len = move || {
        filtered.with(|v| match v {
            Some(v) => v.len(),
            None => {
                let mut n = 0;
                with_source(&mut |ix| n = ix.len());
                n
            }
        })
    };
    // Only the rows in view (plus overscan) are in the DOM.
    let scroll = ScrollWindow::new(EVENTS_VIEWPORT);
    let span = Memo::new(move |_| scroll.rows(shown_len(), EVENT_ROW, EVENT_OVERSCAN));
    let first = move || span.get().0;
    // A new filter starts at the newest match.
    let body_ref = NodeRef::<leptos::html::Div>::new();
    Effect::watch(
        move || filter.track(),
        move |_, _, _| {
            if let Some(el) = body_ref.get_untracked() {
                el.set_scroll_top(0);
            }
            scroll.to_top();
        },
        false,
    );
    let window = move || {
        let (first, count) = span.get();
        filtered.with(|v| match v {
            Some(v) => v
                .iter()
                .skip(first)
                .take(count)
                .cloned()
                .collect::<Vec<_>>(),
            None => {
                let mut rows = Vec::new();
                with_source(&mut |ix| {
                    rows = ix.newest().skip(first).take(count).cloned().collect();
                });
                rows
            }
        })
    };
    let on_scroll = move |ev: leptos::ev::Event| scroll.on_scroll(&ev);
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
        // No link when the namespace or name could not be part of a request
        // path (a hostile Event): the object is then shown as text.
        Route::Object {
            resource: r.qualified_name(),
            namespace: (!e.involved.namespace.is_empty()).then(|| e.involved.namespace.clone()),
            name: e.involved.name.clone(),
        }
        .link()
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
        let mut held = String::new();
        with_source(&mut |ix| {
            held = match ix.len() {
                0 => "no events".to_string(),
                1 => "1 event".to_string(),
                n => format!("{n} events"),
            };
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
            <div class="etable" role="table" data-testid="event-table"
                aria-rowcount=move || (shown_len() + 1).to_string()>
                <div class="erow ehead" role="row" aria-rowindex="1">
                    <span role="columnheader">"Last seen"</span><span role="columnheader">"First seen"</span>
                    <span role="columnheader">"Type"</span><span role="columnheader">"Reason"</span>
                    <span role="columnheader">"Object"</span><span role="columnheader" class="num">"Count"</span>
                    <span role="columnheader">"Message"</span><span role="columnheader">"From"</span>
                </div>
                <div class="ebody" node_ref=body_ref on:scroll=on_scroll data-testid="event-body"
                    tabindex="0" aria-label="Events, newest first">
                    // Fixed-height rows in flow after a padding for the rows above.
                    <div role="rowgroup"
                        style:height=move || format!("{}px", shown_len() as f64 * EVENT_ROW)
                        style:padding-top=move || format!("{}px", first() as f64 * EVENT_ROW)>
                        <ForEnumerate
                            each=window
                            key=|e| (e.key.clone(), e.count, e.last_seen, e.message.clone())
                            children={move |i: ReadSignal<usize>, e: Arc<EventRow>| {
                                let class = if e.type_ == "Warning" { "erow event-warning" } else { "erow" };
                                let object = format!("{}/{}", e.namespace, e.object);
                                let object_title = object.clone();
                                view! {
                                    <div class=class role="row" data-testid="event-row"
                                        aria-rowindex=move || (first() + i.get() + 2).to_string()>
                                        <span role="cell">{let t = e.last_seen; move || age(t)}</span>
                                        <span role="cell" class="muted">{let t = e.first_seen; move || age(t)}</span>
                                        <span role="cell">{e.type_.clone()}</span>
                                        <span role="cell" title=e.reason.clone()>{e.reason.clone()}</span>
                                        <span role="cell" class="name" title=object_title>{
                                            // A link once discovery knows the kind (it may load after the row).
                                            let e = e.clone();
                                            move || match object_href(&e) {
                                                Some(href) => view! { <a href=href data-testid="event-object-link">{object.clone()}</a> }.into_any(),
                                                None => view! { <span>{object.clone()}</span> }.into_any(),
                                            }
                                        }</span>
                                        <span role="cell" class="num">{e.count}</span>
                                        <span role="cell" class="message" title=e.message.clone()>{e.message.clone()}</span>
                                        <span role="cell" class="muted" title=e.source.clone()>{e.source.clone()}</span>
                                    </div>
                                }
                            }}
                        />
                    </div>
                </div>
            </div>
        </section>
    }
}

/// Nodes, with cordon and uncordon.
#[component]
pub fn NodesPanel() -> impl IntoView {
    let w = expect_context::<ClusterState>().workloads;
    let read_only = expect_context::<SessionState>().read_only();
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
                                    <td class="actions">{(!read_only).then(|| view! { <button data-testid="cordon" on:click=toggle>{label}</button> })}</td>
                                </tr>
                            }
                        }
                    />
                </tbody>
            </table>
        </section>
    }
}
