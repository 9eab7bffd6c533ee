//! The X-ray page: the client-go machinery at work inside this tab — informers, work queues, connections by kind, requests, the discovery cache.

use crate::kube::subscribe::{FactoryEntry, InformerSnapshot};
use leptos::prelude::*;

use crate::actions::Actions;
use crate::kube::Kube;
use crate::kube::Now;
use crate::kube::use_kube;
use crate::rules::rates::Rates;
use crate::rules::time::{Seconds, short_age};
use crate::rules::unread::unread;

mod saved;
mod shared;
use saved::{XrayQuiet, XraySaved};
use shared::XrayShared;

fn state_class(label: &str) -> &'static str {
    match label {
        "watching" => "status-ok",
        "listing" | "idle" => "status-warn",
        _ => "status-bad",
    }
}

/// One row of the informer table, with events per second over the last tick.
#[derive(Clone, PartialEq)]
struct InformerRow {
    entry: FactoryEntry,
    events_per_sec: f64,
}

/// The tab's client, held by the page.
type KubeValue = StoredValue<Kube, LocalStorage>;

/// The page.
#[component]
pub fn Xray() -> impl IntoView {
    let kube = StoredValue::new_local(use_kube());
    let actions = expect_context::<Actions>();
    let now = expect_context::<Now>().0;
    let informers = informer_rows(kube, now);

    view! {
        <section class="panel xray" data-testid="xray-page">
            <h2>"X-ray: the machinery in this tab"</h2>
            <XrayPipeline/>
            <XrayInformers informers now/>
            <XrayQueues actions now/>
            <div class="two-col">
                <div>
                    <XrayConnections kube now/>
                    <XrayLogStreams now/>
                    <XrayPolls kube now/>
                    <XrayCaches kube now/>
                    <XrayQuiet/>
                    <XraySaved kube now/>
                    <XrayShared kube now/>
                </div>
                <div>
                    <XrayRequests kube now/>
                </div>
            </div>
        </section>
    }
}

/// Every informer of the tab's factory, with its events per second, on each tick.
fn informer_rows(kube: KubeValue, now: RwSignal<Seconds>) -> Memo<Vec<InformerRow>> {
    let rates: StoredValue<Rates> = StoredValue::new(Rates::default());
    Memo::new(move |_| {
        let t = now.get();
        let entries = kube.with_value(|k| k.informer_snapshots());
        let totals = entries.iter().map(|entry| {
            let r = &entry.snapshot.reflector;
            (
                entry.key.to_string(),
                r.added + r.modified + r.deleted + r.bookmarks,
            )
        });
        let per_sec = rates
            .try_update_value(|rates| rates.read(t, totals))
            .unwrap_or_default();
        entries
            .into_iter()
            .zip(per_sec)
            .map(|(entry, events_per_sec)| InformerRow {
                entry,
                events_per_sec,
            })
            .collect::<Vec<_>>()
    })
}

/// The words on client-go's informer design and the pipeline they describe.
#[component]
fn XrayPipeline() -> impl IntoView {
    view! {
        <p class="muted">
            "Each informer is client-go's design running in WebAssembly: a "
            <b>"Reflector"</b> " lists (or streams the list) and then watches from the list's resourceVersion with bookmarks → an "
            <b>"in-order queue"</b> " → the " <b>"indexer"</b> " (the cache views read) → "
            <b>"handlers"</b> " that update the screen once per frame. One informer per resource, namespace, selectors and format, however many views use it; it stops when no view needs it."
        </p>
        <div class="pipeline" aria-hidden="true">
            <span class="stage">"API server"</span><span class="arrow">"→ list + watch →"</span>
            <span class="stage">"Reflector"</span><span class="arrow">"→"</span>
            <span class="stage">"Queue"</span><span class="arrow">"→"</span>
            <span class="stage">"Indexer"</span><span class="arrow">"→"</span>
            <span class="stage">"Handlers"</span><span class="arrow">"→"</span>
            <span class="stage">"Views"</span>
        </div>
    }
}

/// The "Informers" table, a row per informer.
#[component]
fn XrayInformers(informers: Memo<Vec<InformerRow>>, now: RwSignal<Seconds>) -> impl IntoView {
    view! {
        <h3>"Informers"</h3>
        <div class="scroll-x">
        <table class="grid compact" data-testid="xray-informers">
            <thead><tr>
                <th>"Watching"</th><th>"State"</th><th class="num" title="Views holding it; 0 means kept warm for a minute after the last view left">"Views"</th><th>"resourceVersion"</th>
                <th class="num">"Objects"</th><th class="num">"Events/s"</th>
                <th class="num" title="ADDED / MODIFIED / DELETED events received">"Added · mod · del"</th>
                <th class="num" title="Bookmarks arrive about once a minute on a quiet watch; they move the resourceVersion on so a reconnect need not relist">"Bookmarks"</th>
                <th class="num">"Relists"</th><th class="num">"Watch restarts"</th><th>"Last event"</th>
            </tr></thead>
            <tbody>
                <For
                    each=move || informers.get()
                    key=|r| (r.entry.key.to_string(), r.entry.snapshot.reflector.added, r.entry.snapshot.reflector.modified, r.entry.snapshot.reflector.deleted, r.entry.snapshot.reflector.bookmarks, r.entry.refs, r.entry.snapshot.objects, r.entry.snapshot.reflector.errors, r.entry.snapshot.state_label(), (r.events_per_sec * 10.0) as u64, (r.entry.snapshot.reflector.undecodable.len(), r.entry.snapshot.stale.len(), r.entry.snapshot.reflector.watch_list_fallbacks, r.entry.snapshot.relists, r.entry.snapshot.reflector.resumes, r.entry.snapshot.reflector.resuming))
                    children=move |row| view! { <XrayInformer row now/> }
                />
            </tbody>
        </table>
        </div>
    }
}

/// One informer's row: what it watches (and what it could not read), its state and counts.
#[component]
fn XrayInformer(row: InformerRow, now: RwSignal<Seconds>) -> impl IntoView {
    let r = row;
    let s = r.entry.snapshot.clone();
    let label = s.state_label();
    let last = s
        .reflector
        .last_event_at
        .map(|at| format!("{} ago", short_age(now.get_untracked() - at.as_secs_f64())))
        .unwrap_or_else(|| "—".into());
    let bookmark = s
        .reflector
        .last_bookmark_at
        .map(|at| {
            format!(
                " · {} ago",
                short_age(now.get_untracked() - at.as_secs_f64())
            )
        })
        .unwrap_or_default();
    view! {
        <tr data-testid="xray-informer">
            <td class="name"><code>{r.entry.key.to_string()}</code>
                {s.reflector.last_error.clone().map(|e| view! { <div class="error-text small" data-testid="xray-informer-error">{e}</div> })}
                <XrayUnread snapshot=s.clone()/>
                {(s.reflector.resumes > 0).then(|| view! {
                    <div class="muted small" data-testid="xray-resumed" title="Started with a watch from a version it already held (the rows saved last visit, or its own before a pause) instead of a list; a version the server no longer has costs one list">
                        {format!(
                            "resumed from a held version {}× ({} list{}){}",
                            s.reflector.resumes,
                            s.reflector.lists,
                            if s.reflector.lists == 1 { "" } else { "s" },
                            if s.reflector.resuming { ", resyncing" } else { "" },
                        )}
                    </div>
                })}
                {s.reflector.last_fallback.clone().map(|f| view! {
                    <div class="muted small" data-testid="xray-fallback" title="The streaming list (WatchList) failed; the informer used a plain paged LIST, as client-go does">
                        {format!("streaming list fell back to a paged list ({}×): ", s.reflector.watch_list_fallbacks)} {f}
                    </div>
                })}
            </td>
            <td class=state_class(label)>{label}</td>
            <td class="num">{r.entry.refs}</td>
            <td><code>{s.reflector.last_resource_version.clone().unwrap_or_default()}</code></td>
            <td class="num">{s.objects}</td>
            <td class="num">{format!("{:.1}", r.events_per_sec)}</td>
            <td class="num">{format!("{} · {} · {}", s.reflector.added, s.reflector.modified, s.reflector.deleted)}</td>
            <td class="num" data-testid="xray-bookmarks">{s.reflector.bookmarks}<span class="muted small">{bookmark}</span></td>
            <td class="num">{s.relists}</td>
            <td class="num">{s.watch_restarts}</td>
            <td>{last}</td>
        </tr>
    }
}

/// How many objects an informer's row names that it cannot read now.
const UNREAD_NAMED: usize = 100;

/// The objects an informer cannot read now: each stale one (its last good
/// copy kept and shown) and each left out (never read), with why.
#[component]
fn XrayUnread(snapshot: InformerSnapshot) -> impl IntoView {
    let (objects, more) = unread(&snapshot.reflector, &snapshot.stale, UNREAD_NAMED);
    let lines = objects.into_iter().map(|u| {
        if u.kept {
            view! {
                <div class="stale-text small" data-testid="xray-stale" title="Stale: the server's copy no longer decodes as this view expects, so the cache keeps the copy it last read (not a deletion) until one that decodes comes or the server deletes it">
                    "stale, last good copy kept: " <code>{u.key}</code> ": " {u.why}
                </div>
            }
            .into_any()
        } else {
            view! {
                <div class="error-text small" data-testid="xray-undecodable" title="Left out of the cache: it does not decode as this view expects; every other object stays live">
                    "cannot read " <code>{u.key}</code> ": " {u.why}
                </div>
            }
            .into_any()
        }
    });
    view! {
        {lines.collect_view()}
        {(more > 0).then(|| view! { <div class="muted small">{format!("and {more} more")}</div> })}
    }
}

/// The "Work queues" table: the action queue, then each view's frame queue.
#[component]
fn XrayQueues(actions: Actions, now: RwSignal<Seconds>) -> impl IntoView {
    view! {
        <h3>"Work queues"</h3>
        <p class="muted small">"The action queue is rate-limited (client-go's controller limiter); each view's frame queue collects changed keys and applies them once per animation frame — “work” is how long a frame's apply took, and its mean is per key (client-go's workqueue_work_duration), so one large first batch weighs as much as its keys: the slowest frame is the per-frame figure."</p>
        <div class="scroll-x">
        <table class="grid compact" data-testid="xray-queues">
            <thead><tr><th>"Queue"</th><th>"Kind"</th><th class="num">"Depth"</th><th class="num">"Adds"</th><th class="num">"Retries"</th><th class="num">"Frames"</th><th class="num">"Largest batch"</th><th class="num">"Mean wait"</th><th class="num">"Mean work per key"</th><th class="num">"Slowest"</th></tr></thead>
            <tbody>
                {move || {
                    now.track();
                    let ms = |v: f64| format!("{v:.1} ms");
                    let mean = |h: &kubeglass_client::workqueue::metrics::Histogram| {
                        if h.count == 0 { "—".to_string() } else { ms(h.sum / h.count as f64 * 1000.0) }
                    };
                    let action = actions.metrics().map(|m| view! {
                        <tr data-testid="xray-queue">
                            <td class="name"><code>{m.name.clone()}</code></td><td>"actions (rate-limited)"</td><td class="num">{m.depth}</td><td class="num">{m.adds}</td>
                            <td class="num">{m.retries}</td><td class="num">"—"</td><td class="num">"—"</td>
                            <td class="num">{mean(&m.queue_latency)}</td><td class="num">{mean(&m.work_duration)}</td><td class="num">"—"</td>
                        </tr>
                    });
                    let frames = crate::platform::frame_queue_stats().into_iter().map(|q| {
                        let m = &q.metrics;
                        view! {
                            <tr data-testid="xray-queue">
                                <td class="name"><code>{m.name.clone()}</code></td><td class="muted">{if q.live > 0 { "frames".to_string() } else { "frames · view closed".to_string() }}</td><td class="num">{m.depth}</td><td class="num">{m.adds}</td>
                                <td class="num">{m.retries}</td><td class="num">{q.frames}</td><td class="num">{q.largest_batch}</td>
                                <td class="num">{mean(&m.queue_latency)}</td><td class="num">{mean(&m.work_duration)}</td><td class="num">{ms(q.slowest_apply_ms)}</td>
                            </tr>
                        }
                    }).collect_view();
                    (action, frames)
                }}
            </tbody>
        </table>
        </div>
    }
}

/// The "Connections" table: requests and watches open, requests sent and sent again.
#[component]
fn XrayConnections(kube: KubeValue, now: RwSignal<Seconds>) -> impl IntoView {
    let connections = move || {
        now.track();
        kube.with_value(|k| {
            let c = k.connection_counts();
            (
                c.requests.get(),
                c.streams.get(),
                c.websockets.get(),
                c.total.get(),
            )
        })
    };
    let retries = move || {
        now.track();
        kube.with_value(|k| k.client().metrics().retries)
    };
    let websockets_on = kube.with_value(|k| k.sockets().websockets_enabled());
    view! {
        <h3>"Connections"</h3>
        {move || {
            let (req, streams, ws, total) = connections();
            view! {
                <table class="grid" data-testid="xray-connections">
                    <tbody>
                        <tr><td>"Requests in flight (fetch)"</td><td class="num">{req}</td></tr>
                        <tr><td>"Watch streams over fetch (each holds 1 of the browser's 6 connections)"</td><td class="num" data-testid="xray-streams">{streams}</td></tr>
                        <tr><td>"Watches over WebSocket"</td><td class="num" data-testid="xray-websockets">{ws}</td></tr>
                        <tr><td>"Requests sent since the page opened"</td><td class="num">{total}</td></tr>
                        <tr><td>"Sent again (429/5xx with Retry-After, a broken GET)"</td><td class="num" data-testid="xray-retries">{retries}</td></tr>
                        <tr><td>"WebSocket watches"</td><td>{if websockets_on { "on" } else { "off (fell back to fetch)" }}</td></tr>
                    </tbody>
                </table>
            }
        }}
    }
}

/// The "Log streams" table, or that no log was opened yet.
#[component]
fn XrayLogStreams(now: RwSignal<Seconds>) -> impl IntoView {
    view! {
        <h3>"Log streams"</h3>
        {move || {
            now.track();
            let streams = crate::kube::subscribe::logs::log_streams();
            if streams.is_empty() {
                return view! { <p class="muted" data-testid="xray-logs">"No log opened yet."</p> }.into_any();
            }
            view! {
                <table class="grid" data-testid="xray-logs">
                    <thead><tr><th>"Pod"</th><th>"Container"</th><th>"Over"</th><th class="num">"Lines"</th><th>"State"</th></tr></thead>
                    <tbody>
                        {streams.into_iter().map(|s| view! {
                            <tr data-testid="xray-log-stream">
                                <td class="name">{s.pod}</td><td>{s.container}</td><td>{s.over}</td>
                                <td class="num">{s.lines}</td>
                                <td>{match (s.open, s.follow) { (true, true) => "following", (true, false) => "reading", (false, _) => "closed" }}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
    }
}

/// The usage polls of metrics.k8s.io (it has no watch): one per target while
/// a view shows it, beside the informers. The heading keeps the words
/// "Metrics polls" the page has always shown.
#[component]
fn XrayPolls(kube: KubeValue, now: RwSignal<Seconds>) -> impl IntoView {
    use kubeglass_kubectl::usage::PollState;
    view! {
        <h3>"Metrics polls"</h3>
        {move || {
            now.track();
            let polls = kube.with_value(|k| k.usage_poll_snapshots());
            if polls.is_empty() {
                return view! { <p class="muted" data-testid="xray-polls">"No metrics shown yet (Top, or a pod's or node's page, polls metrics.k8s.io every 15 s while open)."</p> }.into_any();
            }
            view! {
                <table class="grid" data-testid="xray-polls">
                    <thead><tr><th>"Polls"</th><th class="num">"Views"</th><th class="num">"Done"</th><th class="num">"Failed"</th><th class="num">"Objects"</th><th class="num">"Points"</th><th class="num" title="Points kept from an earlier visit">"Kept"</th><th>"State"</th></tr></thead>
                    <tbody>
                        {polls.into_iter().map(|p| {
                            let state = match &p.state {
                                PollState::Waiting => "waiting".to_string(),
                                PollState::Fresh { .. } => match (p.last_took_ms, p.last_read) {
                                    (Some(ms), Some(r)) => format!("fresh ({ms:.0} ms; {} KiB, decoded in {:.0} ms)", r.bytes / 1024, r.decode_ms),
                                    (Some(ms), None) => format!("fresh ({ms:.0} ms)"),
                                    _ => "fresh".to_string(),
                                },
                                PollState::NotServed(_) => "not served".to_string(),
                                PollState::Forbidden(_) => "forbidden".to_string(),
                                PollState::Failed(w) => format!("failed: {w}"),
                            };
                            view! {
                                <tr data-testid="xray-poll" data-took-ms=p.last_took_ms.map(|t| t.to_string())
                                    data-bytes=p.last_read.map(|r| r.bytes.to_string())
                                    data-decode-ms=p.last_read.map(|r| r.decode_ms.to_string())>
                                    <td class="name">{p.target.to_string()}</td><td class="num">{p.holders}</td>
                                    <td class="num">{p.polls}</td><td class="num">{p.failures}</td>
                                    <td class="num">{p.objects}</td><td class="num">{p.points}</td>
                                    <td class="num" data-testid="xray-poll-kept">{p.restored}</td><td>{state}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
    }
}

/// What the tab holds: the discovery cache's age, WebAssembly memory and the objects' versions.
#[component]
fn XrayCaches(kube: KubeValue, now: RwSignal<Seconds>) -> impl IntoView {
    let discovery_age = move || {
        now.track();
        match kube.with_value(|k| k.discovery_age()) {
            Some(age) => format!("{} old (refreshed after 10m)", short_age(age.as_secs_f64())),
            None => "not cached yet".into(),
        }
    };
    let versions = crate::kube::stores::versions::use_versions();
    let versions_held = move || {
        let (bytes, objects, dropped) = versions.held();
        format!(
            "{objects} objects, {:.1} MiB of versions (at most {} MiB), {dropped} dropped",
            bytes as f64 / 1_048_576.0,
            crate::rules::versions::TOTAL_BYTES >> 20
        )
    };
    let changes = crate::kube::stores::changes::use_changes();
    let changes_held = move || match changes.held() {
        None => "not recording (it starts when the Changes page first opens)".to_string(),
        Some((rows, bytes, dropped)) => format!(
            "{rows} rows, {:.1} MiB of diffs (at most {} rows and {} MiB), {dropped} dropped",
            bytes as f64 / 1_048_576.0,
            crate::rules::changes::MAX_ENTRIES,
            crate::rules::changes::MAX_BYTES >> 20
        ),
    };
    let memory = move || {
        now.track();
        format!(
            "{:.1} MiB of WebAssembly memory: the most this tab has needed (it grows and never shrinks), besides the JavaScript heap.",
            crate::platform::wasm_memory_bytes() as f64 / 1_048_576.0
        )
    };
    view! {
        <h3>"Discovery cache"</h3>
        <p data-testid="xray-discovery">{discovery_age}</p>
        <h3>"Memory"</h3>
        <p data-testid="xray-memory">{memory}</p>
        <h3>"Object history"</h3>
        <p data-testid="xray-history">{versions_held}</p>
        <h3>"Change timeline"</h3>
        <p data-testid="xray-timeline">{changes_held}</p>
    }
}

/// The "Requests by verb and code" table, with each pair's mean latency.
#[component]
fn XrayRequests(kube: KubeValue, now: RwSignal<Seconds>) -> impl IntoView {
    let requests = move || {
        now.track();
        kube.with_value(|k| k.client().metrics())
            .by_verb_code
            .into_iter()
            .map(|((verb, code), s)| (verb, code, s.count, s.latency_sum / s.count.max(1) as f64))
            .collect::<Vec<_>>()
    };
    view! {
        <h3>"Requests by verb and code"</h3>
        <table class="grid" data-testid="xray-requests">
            <thead><tr><th>"Verb"</th><th>"Code"</th><th class="num">"Count"</th><th class="num">"Mean latency"</th></tr></thead>
            <tbody>
                {move || requests().into_iter().map(|(verb, code, count, mean)| view! {
                    <tr><td>{verb}</td><td>{code}</td><td class="num">{count}</td><td class="num">{format!("{:.0} ms", mean * 1000.0)}</td></tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}
