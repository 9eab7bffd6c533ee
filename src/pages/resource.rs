//! The live table of any resource, built-in or CRD: kubectl's columns from a
//! server-side Table informer, sorted incrementally, filtered, virtualized.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use kubeglass_client::api::Api;
use kubeglass_client::cache::{InformerOptions, InformerSnapshot};
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::kube_core::params::ListParams;
use kubeglass_client::rest::table::{TableColumn, TableRowObject};
use kubeglass_web::spawn;
use leptos::ev::{Event, KeyboardEvent};
use leptos::prelude::*;

use crate::components::scroll::ScrollWindow;
use crate::route::{Route, navigate};
use crate::state::table::{Sort, TableModel, is_age, parse_time, row_text, short_age};
use crate::state::{ClusterState, Now, use_kube};

/// Height of one row in pixels (style/main.css `.vrow` agrees).
const ROW_HEIGHT: f64 = 30.0;
/// Rows rendered above and below the viewport.
const OVERSCAN: usize = 10;

/// localStorage key: "1" when tables show kubectl's wide columns.
const WIDE_KEY: &str = "kubeglass.wide";

/// Numbers each table's ring of rows, so their element ids are unique.
static NEXT_RING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The element id of one slot of one table's ring.
fn slot_id(ring: usize, slot: usize) -> String {
    format!("ring{ring}-{slot}")
}

/// How long a changed row stays highlighted, in seconds.
const FLASH_SECS: f64 = 1.5;
/// Rows read in one page to show at once while the informer's first list
/// (the whole collection in one piece) is under way.
const PREVIEW_ROWS: u32 = 100;
/// How long a deleted row stays, fading out, before it goes (seconds; the
/// once-a-second clock removes it, so it stays this long to a second more).
const FADE_SECS: f64 = 1.5;

/// The page for `#/r/<resource>`: resolves the name, then shows the table.
#[component]
pub fn ResourcePage(
    resource: String,
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
) -> impl IntoView {
    let kube = use_kube();
    let info: RwSignal<Option<Result<ResourceInfo, String>>> = RwSignal::new(None);
    let name = resource.clone();
    spawn(async move {
        let r = match kube.resolve(&name).await {
            Ok(Some(i)) if i.supports("list") && i.supports("watch") => Ok(i),
            Ok(Some(i)) => Err(format!(
                "{} cannot be listed and watched",
                i.qualified_name()
            )),
            Ok(None) => Err(format!("the server has no resource called “{name}”")),
            Err(e) => Err(format!("could not read the server's resources: {e}")),
        };
        info.set(Some(r));
    });
    move || {
        match info.get() {
        None => view! { <p class="muted">"Resolving " {resource.clone()} "…"</p> }.into_any(),
        Some(Err(e)) => view! { <p class="error-box" data-testid="resource-error">{e}</p> }.into_any(),
        Some(Ok(i)) => view! {
            <LiveTable info=i namespace=namespace.clone() labels=labels.clone() fields=fields.clone()/>
        }
        .into_any(),
    }
    }
}

/// The keys a table shows, in order; equal when the generation is.
#[derive(Clone)]
struct Keys {
    generation: u64,
    /// The filtered keys; `None` when unfiltered: then they are the model's
    /// own order, read in place (not copied on every change frame).
    filtered: Option<std::sync::Arc<Vec<String>>>,
    /// How many keys there are.
    len: usize,
    /// How many of them are deleted rows still fading out.
    leaving: usize,
}

/// What one on-screen row shows. DOM rows are slots in a ring: row `index`
/// goes to slot `index % slots`, placed at `index × ROW_HEIGHT`, so
/// scrolling by a few rows rewrites only the slots of the rows that came
/// into view; the others keep their elements, text and place.
#[derive(Clone, PartialEq)]
struct RowView {
    index: usize,
    key: String,
    class: String,
    namespace: String,
    cells: Vec<(String, String)>,
}

impl PartialEq for Keys {
    fn eq(&self, other: &Self) -> bool {
        self.generation == other.generation
    }
}

/// The model's keys in order, after the text or /regex/ filter (an invalid
/// expression matches nothing; the filter box says why).
fn keys_in_order(model: &TableModel, filter: &str) -> Vec<String> {
    if filter.is_empty() {
        return model.order().to_vec();
    }
    match filter.strip_prefix('/').and_then(|r| r.strip_suffix('/')) {
        Some(re) => match regex(re) {
            Ok(re) => model.filtered(|r| re.test(&row_text(r))),
            Err(_) => Vec::new(),
        },
        None => {
            let needle = filter.to_lowercase();
            model.filtered(|r| row_text(r).to_lowercase().contains(&needle))
        }
    }
}

/// Flash state and the model, kept outside the reactive graph.
struct Live {
    model: TableModel,
    changed_at: HashMap<String, f64>,
    /// Deleted rows still shown, fading out, with when they were deleted.
    leaving: HashMap<String, f64>,
    /// True while the first page's rows are shown, before the informer's.
    preview: bool,
    /// True once the informer has delivered rows (a late preview is dropped).
    from_informer: bool,
}

fn cell_class(column: &TableColumn, text: &str) -> &'static str {
    let name = column.name.to_ascii_lowercase();
    if !(name == "status" || name == "phase" || name == "ready" || name == "state") {
        return "";
    }
    match text {
        "Running" | "Active" | "Ready" | "True" | "Bound" | "Succeeded" | "Completed"
        | "Available" => "status-ok",
        "Pending" | "ContainerCreating" | "Terminating" | "Unknown" | "SchedulingDisabled" => {
            "status-warn"
        }
        t if t.contains("Error")
            || t.contains("BackOff")
            || t.contains("Failed")
            || t.contains("NotReady")
            || t == "False"
            || t == "Evicted" =>
        {
            "status-bad"
        }
        t if name == "ready" => match t.split_once('/') {
            Some((a, b)) if a == b => "status-ok",
            Some(_) => "status-warn",
            None => "",
        },
        _ => "",
    }
}

/// A case-insensitive JavaScript RegExp, or why `pattern` is not one.
pub fn regex(pattern: &str) -> Result<js_sys::RegExp, String> {
    use wasm_bindgen::JsCast;
    let ctor = js_sys::Reflect::get(&js_sys::global(), &"RegExp".into())
        .map_err(|_| "no RegExp".to_string())?;
    let args = js_sys::Array::of2(&pattern.into(), &"i".into());
    js_sys::Reflect::construct(ctor.unchecked_ref::<js_sys::Function>(), &args)
        .map_err(|e| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .unwrap_or_else(|| "invalid regular expression".into())
        })
        .map(|v| v.unchecked_into())
}

fn cell_text(row: &TableRowObject, i: usize, column: &TableColumn, now: f64) -> String {
    if is_age(column)
        && let Some(t) = &row.metadata.creation_timestamp
    {
        return short_age(now - t.0.as_second() as f64);
    }
    let text = row.row.cell_text(i).into_owned();
    if column.type_ == "date"
        && let Some(t) = parse_time(&text)
    {
        return short_age(now - t);
    }
    text
}

#[component]
fn LiveTable(
    info: ResourceInfo,
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
) -> impl IntoView {
    let kube = use_kube();
    let cluster = expect_context::<ClusterState>();
    let now = expect_context::<Now>().0;

    let path = match info.collection_path(namespace.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            return view! { <p class="error-box" data-testid="route-error">{e.to_string()}</p> }
                .into_any();
        }
    };
    let mut options = InformerOptions::<TableRowObject>::new(path);
    options.reflector = options.reflector.tables();
    options.reflector.label_selector = labels.clone();
    options.reflector.field_selector = fields.clone();

    let live = Rc::new(RefCell::new(Live {
        model: TableModel::new(),
        changed_at: HashMap::new(),
        leaving: HashMap::new(),
        preview: false,
        from_informer: false,
    }));
    let version = RwSignal::new(0u64);
    let snapshot: RwSignal<Option<InformerSnapshot>> = RwSignal::new(None);
    let columns: RwSignal<Vec<TableColumn>> = RwSignal::new(Vec::new());
    // While a preview shows: how many rows the server said follow it.
    // (`None` inside: more follow but the server did not say how many, as
    // it does not when a selector is set.)
    let preview_more: RwSignal<Option<Option<i64>>> = RwSignal::new(None);

    let l = live.clone();
    let clock = kube.clock.clone();
    let watch = kube.watch_frames("resource-rows", options, move |inf, keys| {
        let mut live = l.borrow_mut();
        // The informer's rows replace a preview wholesale.
        if std::mem::take(&mut live.preview) {
            live.model = TableModel::new();
            preview_more.set(None);
        }
        live.from_informer = true;
        let cols = inf.columns();
        if cols.as_slice() != live.model.columns() {
            live.model.set_columns(cols.clone());
            columns.set(cols);
        }
        let t = clock.now().as_secs_f64();
        let indexer = inf.indexer();
        let indexer = indexer.borrow();
        let initial = live.model.is_empty();
        for k in keys {
            match indexer.get(&k) {
                Some(r) => {
                    live.model.upsert(r);
                    live.leaving.remove(&k);
                    if !initial {
                        live.changed_at.insert(k, t);
                    }
                }
                // Deleted: stays, fading out, until the clock removes it.
                None if live.model.get(&k).is_some() => {
                    live.changed_at.remove(&k);
                    live.leaving.entry(k).or_insert(t);
                }
                None => {}
            }
        }
        live.changed_at.retain(|_, at| t - *at < FLASH_SECS);
        version.update(|v| *v += 1);
        snapshot.set(Some(inf.snapshot()));
    });
    // First rows at once: the informer's first list is the whole collection
    // in one piece (seconds at 10,000 pods), so one page of rows, read
    // straight from etcd, is shown until the informer's rows replace it.
    if !watch.has_synced() {
        let api = Api::<DynamicObject>::dynamic(
            kube.client.clone(),
            &info.api_resource(),
            namespace.as_deref().filter(|_| info.namespaced),
        );
        let mut params = ListParams::default().limit(PREVIEW_ROWS);
        params.label_selector = labels.clone();
        params.field_selector = fields.clone();
        let l = live.clone();
        spawn(async move {
            // A failure is the informer's to report; the preview just does not show.
            let Ok(page) = api.list_table_rows(&params).await else {
                return;
            };
            let mut live = l.borrow_mut();
            if live.from_informer {
                return;
            }
            let more = match page.metadata.remaining_item_count {
                Some(n) => Some(n),
                None if page
                    .metadata
                    .continue_
                    .as_deref()
                    .is_some_and(|c| !c.is_empty()) =>
                {
                    None
                }
                None => Some(0),
            };
            live.model.set_columns(page.column_definitions.clone());
            for row in page.rows {
                live.model.upsert(Rc::new(row));
            }
            live.preview = true;
            columns.set(page.column_definitions);
            preview_more.set(Some(more));
            version.update(|v| *v += 1);
        });
    }
    let inf_for_status = (*watch).clone();
    snapshot.set(Some(inf_for_status.snapshot()));
    let _watch = StoredValue::new_local(watch);
    // Rows that have faded out go.
    {
        let live = live.clone();
        let clock = kube.clock.clone();
        Effect::new(move |_| {
            now.track();
            let t = clock.now().as_secs_f64();
            let mut live = live.borrow_mut();
            let gone: Vec<String> = live
                .leaving
                .iter()
                .filter(|(_, at)| t - **at >= FADE_SECS)
                .map(|(k, _)| k.clone())
                .collect();
            if gone.is_empty() {
                return;
            }
            for k in gone {
                live.leaving.remove(&k);
                live.model.remove(&k);
            }
            version.update(|v| *v += 1);
        });
    }
    // Status without row changes (errors, backoff) shows within a second.
    Effect::new(move |_| {
        now.track();
        let s = Some(inf_for_status.snapshot());
        if snapshot.get_untracked() != s {
            snapshot.set(s);
        }
    });

    let live = StoredValue::new_local(live);
    let sort = RwSignal::new(Sort::default());
    let filter = RwSignal::new(String::new());
    let selected = RwSignal::new(0usize);
    let scroll = ScrollWindow::new(600.0);

    // Keys in order after the text filter; recomputed when rows, sort or filter change.
    // Recomputed when rows, sort or filter change; compared by generation,
    // not by content (comparing 20,000 keys per frame costs a frame).
    let generation = StoredValue::new(0u64);
    let visible_keys = Memo::new(move |_| {
        version.track();
        let f = filter.get();
        let s = sort.get();
        generation.update_value(|g| *g += 1);
        let (filtered, len, leaving) = live.with_value(|l| {
            let mut l = l.borrow_mut();
            l.model.set_sort(s);
            let filtered = (!f.is_empty()).then(|| keys_in_order(&l.model, &f));
            let keys = filtered.as_deref().unwrap_or(l.model.order());
            // Fading rows are all in the model's order; only a filter
            // needs them counted.
            let leaving = match &filtered {
                Some(keys) if !l.leaving.is_empty() => {
                    keys.iter().filter(|k| l.leaving.contains_key(*k)).count()
                }
                Some(_) => 0,
                None => l.leaving.len(),
            };
            let len = keys.len();
            (filtered, len, leaving)
        });
        Keys {
            generation: generation.get_value(),
            filtered: filtered.map(std::sync::Arc::new),
            len,
            leaving,
        }
    });
    // Keys `range` of what the table shows, in order.
    let keys_in = move |range: std::ops::Range<usize>| -> Vec<String> {
        visible_keys.with(|k| match &k.filtered {
            Some(keys) => keys.get(range).map(<[String]>::to_vec).unwrap_or_default(),
            None => live.with_value(|l| {
                l.borrow()
                    .model
                    .order()
                    .get(range)
                    .map(<[String]>::to_vec)
                    .unwrap_or_default()
            }),
        })
    };
    let total = Memo::new(move |_| {
        version.track();
        live.with_value(|l| {
            let l = l.borrow();
            l.model.len() - l.leaving.len()
        })
    });
    let total = move || total.get();
    // Counts as memos: a change that keeps them does not touch the DOM.
    let shown = Memo::new(move |_| visible_keys.with(|k| k.len - k.leaving));
    let rows_shown = Memo::new(move |_| visible_keys.with(|k| k.len));
    let shown = move || shown.get();
    let rows_shown = move || rows_shown.get();

    // kubectl's default columns; `-o wide`'s (priority > 0) too when wide,
    // remembered across pages in localStorage.
    let wide = RwSignal::new(
        window()
            .local_storage()
            .ok()
            .flatten()
            .and_then(|s| s.get_item(WIDE_KEY).ok().flatten())
            .is_some_and(|v| v == "1"),
    );
    let toggle_wide = move || {
        let on = !wide.get_untracked();
        if let Some(s) = window().local_storage().ok().flatten() {
            let _ = s.set_item(WIDE_KEY, if on { "1" } else { "0" });
        }
        // Not sorted by a column that goes out of sight.
        let hidden = sort.with_untracked(|s| s.column).is_some_and(|i| {
            columns.with_untracked(|cs| cs.get(i).is_some_and(|c| c.priority > 0))
        });
        if !on && hidden {
            sort.set(Sort::default());
        }
        wide.set(on);
    };
    let has_wide = move || columns.with(|cs| cs.iter().any(|c| c.priority > 0));
    let header_columns = move || {
        let wide = wide.get();
        columns
            .get()
            .into_iter()
            .enumerate()
            .filter(|(_, c)| wide || c.priority == 0)
            .collect::<Vec<_>>()
    };
    let sort_by = move |i: usize| {
        sort.update(|s| {
            if s.column == Some(i) {
                s.descending = !s.descending;
            } else {
                *s = Sort {
                    column: Some(i),
                    descending: false,
                };
            }
        })
    };
    let arrow = move |i: usize| {
        let s = sort.get();
        match (s.column == Some(i), s.descending) {
            (true, false) => " ▲",
            (true, true) => " ▼",
            _ => "",
        }
    };

    let kind = info.kind.clone();
    let qualified = info.qualified_name();
    let namespaced = info.namespaced;
    let resource_for_rows = qualified.clone();
    let open_row = move |key: &str| {
        let (ns, name) = match key.split_once('/') {
            Some((ns, n)) => (Some(ns.to_string()), n.to_string()),
            None => (None, key.to_string()),
        };
        navigate(&Route::Object {
            resource: resource_for_rows.clone(),
            namespace: ns,
            name,
        });
    };
    let open_row = StoredValue::new(open_row);

    // Only the rows in view (plus overscan) are in the DOM.
    let ring = NEXT_RING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let window = move || {
        let len = visible_keys.with(|k| k.len);
        let (first, count) = scroll.rows(len, ROW_HEIGHT, OVERSCAN);
        let end = (first + count).min(len);
        (first, keys_in(first..end), count.max(1))
    };
    // The rows in the window, as data (the DOM rows read them).
    let window_rows = Memo::new(move |_| {
        let (first, keys, slots) = window();
        let t = now.get();
        let cols = header_columns();
        let sel = selected.get();
        version.track();
        let rows = live.with_value(|l| {
            let l = l.borrow();
            keys.into_iter()
                .enumerate()
                .filter_map(|(j, k)| {
                    let row = l.model.get(&k)?;
                    let mut class = String::from("vrow");
                    if l.leaving.contains_key(&k) {
                        class.push_str(" gone");
                    } else if l.changed_at.get(&k).is_some_and(|at| t - at < FLASH_SECS) {
                        class.push_str(" flash");
                    }
                    if row.metadata.deletion_timestamp.is_some() {
                        class.push_str(" deleting");
                    }
                    if first + j == sel {
                        class.push_str(" selected");
                    }
                    let cells = cols
                        .iter()
                        .map(|(i, c)| {
                            let text = cell_text(&row, *i, c, t);
                            let name = if *i == 0 || c.format == "name" {
                                " name"
                            } else {
                                ""
                            };
                            let cls = format!("vcell{name} {}", cell_class(c, &text));
                            (text, cls)
                        })
                        .collect();
                    Some(RowView {
                        index: first + j,
                        namespace: row.metadata.namespace.clone().unwrap_or_default(),
                        key: k,
                        class,
                        cells,
                    })
                })
                .collect::<Vec<_>>()
        });
        (slots, rows)
    });
    let on_scroll = move |ev: Event| scroll.on_scroll(&ev);
    let body_ref = NodeRef::<leptos::html::Div>::new();
    let filter_ref = NodeRef::<leptos::html::Input>::new();
    let scroll_to = move |i: usize| {
        if let Some(el) = body_ref.get_untracked() {
            let top = i as f64 * ROW_HEIGHT;
            let h = el.client_height() as f64;
            let cur = el.scroll_top() as f64;
            if top < cur {
                el.set_scroll_top(top as i32);
            } else if top + ROW_HEIGHT > cur + h {
                el.set_scroll_top((top + ROW_HEIGHT - h) as i32);
            }
        }
    };
    // Keys: / filter, j/k move, Enter opens, Esc clears.
    let keys = window_event_listener(leptos::ev::keydown, move |ev: KeyboardEvent| {
        let typing = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<leptos::web_sys::HtmlElement>(t).ok())
            .is_some_and(|el| el.tag_name() == "INPUT" || el.tag_name() == "SELECT");
        let n = visible_keys.with_untracked(|k| k.len);
        match ev.key().as_str() {
            "/" if !typing => {
                ev.prevent_default();
                if let Some(i) = filter_ref.get_untracked() {
                    let _ = i.focus();
                }
            }
            "Escape" => {
                filter.set(String::new());
                if let Some(i) = filter_ref.get_untracked() {
                    let _ = i.blur();
                }
            }
            "j" | "ArrowDown" if !typing && n > 0 => {
                ev.prevent_default();
                let i = (selected.get_untracked() + 1).min(n - 1);
                selected.set(i);
                scroll_to(i);
            }
            "k" | "ArrowUp" if !typing && n > 0 => {
                ev.prevent_default();
                let i = selected.get_untracked().saturating_sub(1);
                selected.set(i);
                scroll_to(i);
            }
            "w" if !typing
                && !ev.ctrl_key()
                && !ev.meta_key()
                && !ev.alt_key()
                && untrack(has_wide) =>
            {
                toggle_wide()
            }
            "Enter" if !typing && n > 0 => {
                let i = selected.get_untracked().min(n - 1);
                if let Some(k) = untrack(|| keys_in(i..i + 1)).pop() {
                    open_row.with_value(|f| f(&k));
                }
            }
            _ => {}
        }
    });
    on_cleanup(move || keys.remove());

    // Namespace switcher and server-side selectors change the URL.
    let route_with = {
        let qualified = qualified.clone();
        move |ns: Option<String>, l: Option<String>, f: Option<String>| Route::Resource {
            resource: qualified.clone(),
            namespace: ns,
            labels: l,
            fields: f,
        }
    };
    let route_with = StoredValue::new(route_with);
    let current_ns = namespace.clone();
    let (cur_l, cur_f) = (labels.clone(), fields.clone());
    let on_namespace = move |ev: Event| {
        let v = event_target_value(&ev);
        let ns = (!v.is_empty()).then_some(v);
        navigate(&route_with.with_value(|r| r(ns, cur_l.clone(), cur_f.clone())));
    };
    let on_namespace = StoredValue::new(on_namespace);
    let label_input = RwSignal::new(labels.clone().unwrap_or_default());
    let field_input = RwSignal::new(fields.clone().unwrap_or_default());
    let ns_for_selectors = namespace.clone();
    let apply_selectors = move || {
        let l = label_input.get_untracked();
        let f = field_input.get_untracked();
        navigate(&route_with.with_value(|r| {
            r(
                ns_for_selectors.clone(),
                (!l.trim().is_empty()).then(|| l.trim().to_string()),
                (!f.trim().is_empty()).then(|| f.trim().to_string()),
            )
        }));
    };
    let apply_selectors = StoredValue::new(apply_selectors);

    let state_label = move || snapshot.with(|s| s.as_ref().map_or("idle", |s| s.state_label()));
    let error = move || {
        snapshot.with(|s| {
            s.as_ref().and_then(|s| {
                s.reflector
                    .last_error
                    .clone()
                    .filter(|_| !s.synced || s.reflector.errors > 0)
            })
        })
    };
    let filter_error = move || {
        let f = filter.get();
        f.strip_prefix('/')
            .and_then(|r| r.strip_suffix('/'))
            .and_then(|r| regex(r).err())
    };
    let rv = move || {
        snapshot.with(|s| {
            s.as_ref()
                .and_then(|s| s.reflector.last_resource_version.clone())
                .unwrap_or_default()
        })
    };
    let show_ns = namespaced && namespace.is_none();
    let scope_label = if namespaced {
        match &namespace {
            Some(ns) => format!("in {ns}"),
            None => "in all namespaces".to_string(),
        }
    } else {
        "cluster-wide".to_string()
    };

    view! {
        <section class="panel resource-page" data-testid="resource-page">
            <div class="resource-head">
                <h2>
                    <span data-testid="resource-kind">{kind.clone()}</span>
                    <span class="muted">" " {scope_label}</span>
                </h2>
                <span class="badge" data-testid="informer-state">{state_label}</span>
                <span class="muted small">"rv " <code>{rv}</code></span>
                <span class="muted small" data-testid="row-count">
                    {move || match preview_more.get() {
                        Some(Some(more)) => format!("first {} of {} — loading the rest", total(), total() as i64 + more),
                        Some(None) => format!("first {} of more — loading the rest", total()),
                        None => format!("{} of {}", shown(), total()),
                    }}
                </span>
            </div>
            <div class="toolbar">
                <Show when=move || namespaced>
                    <select on:change=move |ev| on_namespace.with_value(|f| f(ev)) data-testid="namespace-select" aria-label="Namespace">
                        <option value="" selected=current_ns.is_none()>"All namespaces"</option>
                        {
                            let current = current_ns.clone();
                            move || cluster.namespaces.get().into_keys().map(|n| {
                                let sel = current.as_deref() == Some(n.as_str());
                                view! { <option value=n.clone() selected=sel>{n.clone()}</option> }
                            }).collect_view()
                        }
                    </select>
                </Show>
                <input
                    node_ref=filter_ref
                    class="filter"
                    type="search"
                    placeholder="Filter (/ to focus, /regex/)"
                    aria-label="Filter rows"
                    data-testid="row-filter"
                    prop:value=move || filter.get()
                    on:input=move |ev| { filter.set(event_target_value(&ev)); selected.set(0); }
                />
                <Show when=has_wide>
                    <button class="theme-toggle" data-testid="wide-toggle" title="kubectl -o wide's columns too (w)"
                        aria-pressed=move || wide.get().to_string()
                        on:click=move |_| toggle_wide()>
                        "Wide"
                    </button>
                </Show>
                <input
                    class="selector"
                    type="text"
                    placeholder="label selector, e.g. app=web"
                    aria-label="Label selector"
                    data-testid="label-selector"
                    prop:value=move || label_input.get()
                    on:input=move |ev| label_input.set(event_target_value(&ev))
                    on:keydown=move |ev: KeyboardEvent| if ev.key() == "Enter" { apply_selectors.with_value(|f| f()) }
                />
                <input
                    class="selector"
                    type="text"
                    placeholder="field selector, e.g. status.phase=Running"
                    aria-label="Field selector"
                    data-testid="field-selector"
                    prop:value=move || field_input.get()
                    on:input=move |ev| field_input.set(event_target_value(&ev))
                    on:keydown=move |ev: KeyboardEvent| if ev.key() == "Enter" { apply_selectors.with_value(|f| f()) }
                />
            </div>
            {move || filter_error().map(|e| view! { <p class="error-box" data-testid="filter-error">"Filter: " {e}</p> })}
            {move || error().map(|e| view! { <p class="error-box" data-testid="informer-error">{e}</p> })}
            <div class="vtable" role="table" aria-rowcount=move || (rows_shown() + 1).to_string()>
                <div class="vrow vhead" role="row" aria-rowindex="1">
                    {show_ns.then(|| view! {
                        <button class="vcell sortable ns" role="columnheader" data-testid="column-header"
                            on:click=move |_| sort.update(|s| {
                                if s.column.is_none() { s.descending = !s.descending } else { *s = Sort::default() }
                            })>
                            "Namespace" {move || match (sort.get().column, sort.get().descending) {
                                (None, false) => " ▲", (None, true) => " ▼", _ => "" }}
                        </button>
                    })}
                    <For
                        each=header_columns
                        key=|(i, c)| (*i, c.name.clone())
                        children=move |(i, c)| view! {
                            <button class=if i == 0 || c.format == "name" { "vcell sortable name-col" } else { "vcell sortable" }
                                role="columnheader" data-testid="column-header"
                                on:click=move |_| sort_by(i)>
                                {c.name.clone()} {move || arrow(i)}
                            </button>
                        }
                    />
                </div>
                <div class="vbody" node_ref=body_ref on:scroll=on_scroll data-testid="table-body">
                    // The rows' DOM order is slot order; aria-owns gives
                    // assistive technology their screen order. (ARIA frowns on
                    // owning one's own children; Chromium orders them by it, as
                    // e2e checks; an engine that keeps DOM order still has
                    // aria-rowindex to number them.)
                    <div class="vspacer" role="rowgroup" data-testid="row-group"
                        style:height=move || format!("{}px", rows_shown() as f64 * ROW_HEIGHT)
                        aria-owns=move || window_rows.with(|(slots, rows)| {
                            rows.iter().map(|r| slot_id(ring, r.index % slots)).collect::<Vec<_>>().join(" ")
                        })>
                        // A ring of DOM rows (see RowView): scrolling moves few of them.
                        <For
                            each=move || window_rows.with(|(slots, rows)| {
                                // In slot order: the set rarely changes as the window
                                // moves, so no element is moved in the DOM.
                                let mut s: Vec<usize> = rows.iter().map(|r| r.index % slots).collect();
                                s.sort_unstable();
                                s
                            })
                            key=|slot| *slot
                            children=move |slot| {
                                let row = Memo::new(move |_| {
                                    window_rows.with(|(slots, rows)| rows.iter().find(|r| r.index % slots == slot).cloned())
                                });
                                let cells = Memo::new(move |_| row.with(|r| r.as_ref().map_or(0, |r| r.cells.len())));
                                let field = move |f: fn(&RowView) -> String| move || row.with(|r| r.as_ref().map(f).unwrap_or_default());
                                view! {
                                    <div class=field(|r| r.class.clone()) role="row" data-testid="resource-row"
                                        id=slot_id(ring, slot)
                                        data-key=field(|r| r.key.clone())
                                        aria-rowindex=field(|r| (r.index + 2).to_string())
                                        style:transform=field(|r| format!("translateY({}px)", r.index as f64 * ROW_HEIGHT))
                                        on:click=move |_| {
                                            if let Some(k) = row.with_untracked(|r| r.as_ref().map(|r| r.key.clone())) {
                                                open_row.with_value(|f| f(&k));
                                            }
                                        }>
                                        {show_ns.then(|| view! { <span class="vcell ns" role="cell">{field(|r| r.namespace.clone())}</span> })}
                                        <For
                                            each=move || 0..cells.get()
                                            key=|i| *i
                                            children=move |i| {
                                                let cell = move |pick: fn(&(String, String)) -> String| move || {
                                                    row.with(|r| r.as_ref().and_then(|r| r.cells.get(i)).map(pick).unwrap_or_default())
                                                };
                                                view! { <span class=cell(|c| c.1.clone()) role="cell">{cell(|c| c.0.clone())}</span> }
                                            }
                                        />
                                    </div>
                                }
                            }
                        />
                    </div>
                </div>
            </div>
        </section>
    }
    .into_any()
}
