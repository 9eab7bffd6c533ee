//! The live table of any resource, built-in or CRD: kubectl's columns from a server-side Table informer, sorted incrementally, filtered, virtualized.
//!
//! This file wires the table's state (rows and their life-cycle from
//! `rules::live_rows`, sort, filter, selection, wide columns); the header,
//! toolbar and ring of rows draw it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::platform::spawn;
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::rest::table::{TableColumn, TableRowObject};
use kubeglass_kubectl::access::Reviews;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::components::resolved::Resolved;
use crate::kube::requests::reads::preview_page;
use crate::kube::stores::saved::key_of;
use crate::kube::use_kube;
use crate::kube::subscribe::InformerSnapshot;
use crate::kube::{Kube, Now, Watch};
use crate::rules::cells::keys_in_order;
use crate::rules::filter::Filter;
use crate::rules::live_rows::{LiveRows, More};
use crate::rules::custom_columns::{CustomCells, with_cells};
use crate::rules::usage::UsageCells;
use crate::rules::problem::Problem;
use crate::rules::table::Sort;
use crate::rules::time::Seconds;
use crate::prefs;

mod bulk;
mod header;
mod ring;
mod shell;
mod state;
mod columns;
mod toolbar;
mod usage;

use bulk::BulkBar;
use header::TableHeader;
use ring::Ring;
use state::{Keys, Table, compile_regex};
use columns::custom_feed;
use toolbar::Toolbar;
use usage::{UsageFeed, new_cells, usage_of};

/// The page for `#/r/<resource>`: resolves the name, then shows the table.
#[component]
pub fn ResourcePage(
    resource: String,
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
) -> impl IntoView {
    view! {
        <Resolved name=resource verbs=&["list", "watch"] let:info>
            <LiveTable info namespace=namespace.clone() labels=labels.clone() fields=fields.clone()/>
        </Resolved>
    }
}

/// The live table of resource `info` in `namespace` (None: all), with
/// the given label and field selectors.
#[component]
fn LiveTable(
    info: ResourceInfo,
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
) -> impl IntoView {
    let kube = use_kube();
    let now = expect_context::<Now>().0;
    let path = match info.collection_path(namespace.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            let problem = Problem::from(e);
            return view! { <ProblemBox problem doing="open this table".to_string() testid="route-error"/> }
                .into_any();
        }
    };

    let feed = Feed {
        live: Rc::new(RefCell::new(LiveRows::new())),
        changed: Trigger::new(),
        columns: RwSignal::new(Vec::new()),
        preview: RwSignal::new(None),
        usage: new_cells(&info),
        custom: Rc::default(),
    };
    let selectors = (labels.clone(), fields.clone());
    let watch = watch_rows(&kube, &path, selectors.clone(), feed.clone());
    let status = watch.status();
    let resync = first_rows(&kube, (&watch, &path), &info, namespace.clone(), selectors, feed.clone());
    let _watch = StoredValue::new_local(watch);
    // Rows that have faded out go, on the clock's tick.
    expire_rows(&kube, now, feed.clone());

    let table = table_state(feed.clone(), status, &info);
    // A deleted row leaves the marks.
    Effect::new(move |_| {
        table.changed.track();
        let gone = table.marks.with_untracked(|m| {
            !m.is_empty() && table.with_rows(|l| m.iter().any(|k| !l.is_live(k)))
        });
        if gone {
            table.marks.update(|m| {
                table.with_rows(|l| m.retain(|k| l.is_live(k)));
            });
        }
    });
    // Changes once (the status itself changes with every event): the
    // usage and custom columns' informers start once the table's own list
    // is in, so they do not slow its first rows or its sync.
    let synced = Memo::new(move |_| status.with(|s| s.synced));
    let custom = custom_feed(&info, (namespace.clone(), labels.clone(), fields.clone()), synced, feed.clone());
    let usage_feed = table.usage.map(|of| {
        let (ns, labels, fields) = (namespace.clone(), labels.clone(), fields.clone());
        let feed = StoredValue::new_local(feed.clone());
        view! {
            <Show when=move || table.usage_on.get() && synced.get()>
                <UsageFeed of namespace=ns.clone() labels=labels.clone() fields=fields.clone() feed=feed.get_value()/>
            </Show>
        }
    });
    let show_namespace = info.namespaced && namespace.is_none();
    // The scope this table reads, for tests to tell it from the table it replaces.
    let scope = namespace.clone().unwrap_or_default();
    view! {
        <section class="panel resource-page" data-testid="resource-page" data-namespace=scope>
            <TableHeader table info=info.clone() namespace=namespace.clone() resync/>
            <Toolbar table info=info.clone() namespace=namespace.clone() labels fields/>
            <BulkBar table info=info.clone()/>
            {usage_feed}
            {custom}
            <Ring table show_namespace/>
        </section>
    }
    .into_any()
}

/// The table's state over the rows `feed` fills: sorted by key, unfiltered,
/// the first row selected, wide as last chosen.
fn table_state(feed: Feed, status: RwSignal<InformerSnapshot>, info: &ResourceInfo) -> Table {
    let Feed {
        live,
        changed,
        columns,
        preview,
        ..
    } = feed;
    let rows = StoredValue::new_local(live);
    let sort = RwSignal::new(Sort::default());
    let filter = RwSignal::new(String::new());
    let visible = visible_keys(rows, changed, sort, filter);
    Table {
        rows,
        changed,
        columns,
        status,
        stale: Memo::new(move |_| status.with(|s| s.stale.clone())),
        preview,
        sort,
        filter,
        selected: RwSignal::new(0),
        marks: RwSignal::new(Default::default()),
        wide: RwSignal::new(prefs::flag(prefs::WIDE)),
        visible,
        filter_input: NodeRef::new(),
        resource: StoredValue::new(info.qualified_name()),
        usage: usage_of(info),
        usage_on: RwSignal::new(prefs::flag_or(prefs::USAGE, true)),
        reviews: StoredValue::new_local(Reviews::new(use_kube().client().clone())),
        shell: shell::shell_column(info),
    }
}

/// First rows at once: the rows saved last visit, or else one page read
/// straight from etcd, shown until the informer's rows replace it. Returns
/// what the heading says meanwhile: set while the rows drawn from a save
/// are not yet confirmed by the server, with when they were saved.
fn first_rows(
    kube: &Kube,
    (watch, path): (&Watch<TableRowObject>, &str),
    info: &ResourceInfo,
    namespace: Option<String>,
    selectors: (Option<String>, Option<String>),
    feed: Feed,
) -> Memo<Option<Option<Seconds>>> {
    let status = watch.status();
    let saved_key = key_of(
        "table",
        path,
        selectors.0.as_deref(),
        selectors.1.as_deref(),
    );
    if !watch.has_synced() {
        let inf = (**watch).clone();
        let (k, i) = (kube.clone(), info.clone());
        spawn(async move {
            let seeded = inf.wait_seeded().await;
            // The informer is listing now (or watching from the seed): say
            // so before the preview's rows, not at the next tick.
            let _ = status.try_set(inf.snapshot());
            if !seeded && !inf.has_synced() {
                load_preview(&k, &i, namespace, selectors, feed);
            }
        });
    }
    let saved = StoredValue::new_local(kube.saved().clone());
    Memo::new(move |_| {
        status
            .with(|s| s.reflector.resuming)
            .then(|| saved.with_value(|s| s.restored_at(&saved_key)))
    })
}

/// The rows as the informer's frames (and the preview) leave them, and
/// the signals that say they changed.
#[derive(Clone)]
struct Feed {
    live: Rc<RefCell<LiveRows>>,
    /// Fires when the rows change (each frame of changes, each expiry).
    changed: Trigger,
    columns: RwSignal<Vec<TableColumn>>,
    preview: RwSignal<Option<More>>,
    /// The CPU and memory cells of a pod or node table (see `usage`).
    usage: Rc<RefCell<UsageCells>>,
    /// The person's own columns' cells (see `columns`).
    custom: Rc<RefCell<CustomCells>>,
}

/// Subscribes to the rows at `path` under `(labels, fields)` selectors;
/// each frame of changes lands in `feed`.
fn watch_rows(
    kube: &Kube,
    path: &str,
    (labels, fields): (Option<String>, Option<String>),
    feed: Feed,
) -> Watch<TableRowObject> {
    let Feed {
        live: l,
        changed,
        columns,
        preview,
        usage,
        custom,
    } = feed;
    let clock = kube.clock();
    let mut subscription = kube.subscribe("resource-rows", path).table().labels(labels);
    if let Some(f) = fields {
        subscription = subscription.fields(f);
    }
    subscription.frames(move |inf, keys| {
        let server = inf.columns();
        let (usage, custom) = (usage.borrow(), custom.borrow());
        let with_usage = usage.columns(&server);
        let cols = custom.columns(&with_usage);
        let indexer = inf.indexer();
        let indexer = indexer.borrow();
        let mut live = l.borrow_mut();
        // Each row with its CPU and memory cells, if the table shows them,
        // then the person's own.
        let rows = keys.into_iter().map(|k| {
            let row = indexer
                .get(&k)
                .map(|r| with_cells(r, server.len(), &usage, &custom));
            (k, row)
        });
        if live.apply(&cols, rows, clock.now().as_secs_f64()) {
            columns.set(cols);
        }
        preview.set(live.preview());
        changed.notify();
    })
}

/// Reads one page of the rows straight from etcd and shows it until the
/// informer's rows replace it.
fn load_preview(
    kube: &Kube,
    info: &ResourceInfo,
    ns: Option<String>,
    (labels, fields): (Option<String>, Option<String>),
    feed: Feed,
) {
    let (kube, info) = (kube.clone(), info.clone());
    let Feed {
        live: l,
        changed,
        columns,
        preview,
        ..
    } = feed;
    spawn(async move {
        // A failure is the informer's to report; the preview just does not show.
        let Ok(p) = preview_page(&kube, &info, ns.as_deref(), labels, fields).await else {
            return;
        };
        let (cols, more) = (p.columns.clone(), p.more);
        if l.borrow_mut().show_preview(p.columns, p.rows, more) {
            let _ = columns.try_set(cols);
            let _ = preview.try_set(Some(more));
            changed.notify();
        }
    });
}

/// Drops the rows that have faded out, on each tick of `now`.
fn expire_rows(kube: &Kube, now: RwSignal<Seconds>, feed: Feed) {
    let Feed { live, changed, .. } = feed;
    let clock = kube.clock();
    Effect::new(move |_| {
        now.track();
        if live.borrow_mut().expire(clock.now().as_secs_f64()) {
            changed.notify();
        }
    });
}

/// The keys shown, recomputed when rows, sort or filter change; compared
/// by generation, not by content (comparing 20,000 keys per frame costs a
/// frame).
fn visible_keys(
    rows: StoredValue<Rc<RefCell<LiveRows>>, LocalStorage>,
    changed: Trigger,
    sort: RwSignal<Sort>,
    filter: RwSignal<String>,
) -> Memo<Keys> {
    let generation = StoredValue::new(0u64);
    Memo::new(move |_| {
        changed.track();
        let f = Filter::parse(&filter.get());
        let s = sort.get();
        generation.update_value(|g| *g += 1);
        let (filtered, len, leaving) = rows.with_value(|l| {
            let mut l = l.borrow_mut();
            l.model_mut().set_sort(s);
            let filtered = (f != Filter::All).then(|| keys_in_order(l.model(), &f, compile_regex));
            match &filtered {
                Some(keys) => (
                    Some(Arc::new(keys.clone())),
                    keys.len(),
                    l.leaving_among(keys),
                ),
                None => (None, l.model().len(), l.leaving_len()),
            }
        });
        Keys {
            generation: generation.get_value(),
            filtered,
            len,
            leaving,
        }
    })
}
