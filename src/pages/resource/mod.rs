//! The live table of any resource, built-in or CRD: kubectl's columns from a server-side Table informer, sorted incrementally, filtered, virtualized.
//!
//! This file wires the table's state (rows and their life-cycle from
//! `model::live_rows`, sort, filter, selection, wide columns); the header,
//! toolbar and ring of rows draw it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use kubeglass_client::api::Api;
use kubeglass_client::cache::InformerSnapshot;
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::kube_core::params::ListParams;
use kubeglass_client::rest::table::TableColumn;
use kubeglass_web::spawn;
use leptos::prelude::*;

use crate::components::resolved::Resolved;
use crate::kube::cluster::{ClusterState, Now};
use crate::kube::use_kube;
use crate::kube::watch::table_options;
use crate::model::cells::{Compiled, RowFilter, keys_in_order};
use crate::model::live_rows::{LiveRows, More};
use crate::model::table::Sort;
use crate::prefs;
use crate::route::{Route, navigate};

mod header;
mod ring;
mod toolbar;

use header::TableHeader;
use ring::Ring;
use toolbar::Toolbar;

/// Rows read in one page to show at once while the informer's first list
/// (the whole collection in one piece) is under way.
const PREVIEW_ROWS: u32 = 100;

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

/// The keys a table shows, in order; equal when the generation is.
#[derive(Clone)]
pub(crate) struct Keys {
    generation: u64,
    /// The filtered keys; `None` when unfiltered: then they are the model's
    /// own order, read in place (not copied on every change frame).
    filtered: Option<Arc<Vec<String>>>,
    /// How many keys there are.
    pub len: usize,
    /// How many of them are deleted rows still fading out.
    pub leaving: usize,
}

impl PartialEq for Keys {
    fn eq(&self, other: &Self) -> bool {
        self.generation == other.generation
    }
}

/// A case-insensitive JavaScript RegExp's test, or why `pattern` is not one.
pub fn compile_regex(pattern: &str) -> Compiled {
    use wasm_bindgen::JsCast;
    let ctor = js_sys::Reflect::get(&js_sys::global(), &"RegExp".into())
        .map_err(|_| "no RegExp".to_string())?;
    let args = js_sys::Array::of2(&pattern.into(), &"i".into());
    let re: js_sys::RegExp =
        js_sys::Reflect::construct(ctor.unchecked_ref::<js_sys::Function>(), &args)
            .map_err(|e| {
                e.dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
                    .unwrap_or_else(|| "invalid regular expression".into())
            })?
            .unchecked_into();
    Ok(Box::new(move |text: &str| re.test(text)))
}

/// One table's state, shared by its parts (cheap to copy).
#[derive(Clone, Copy)]
pub(crate) struct Table {
    rows: StoredValue<Rc<RefCell<LiveRows>>, LocalStorage>,
    /// Counts row changes (each frame of changes, each expiry).
    pub changes: RwSignal<u64>,
    pub columns: RwSignal<Vec<TableColumn>>,
    pub status: RwSignal<InformerSnapshot>,
    pub preview: RwSignal<Option<More>>,
    pub sort: RwSignal<Sort>,
    pub filter: RwSignal<String>,
    pub selected: RwSignal<usize>,
    pub wide: RwSignal<bool>,
    pub visible: Memo<Keys>,
    /// The filter box (`/` focuses it).
    pub filter_input: NodeRef<leptos::html::Input>,
    resource: StoredValue<String>,
}

impl Table {
    /// Reads the rows.
    pub fn with_rows<T>(&self, f: impl FnOnce(&LiveRows) -> T) -> T {
        self.rows.with_value(|r| f(&r.borrow()))
    }

    /// Keys `range` of what the table shows, in order.
    pub fn keys_in(&self, range: std::ops::Range<usize>) -> Vec<String> {
        self.visible.with(|k| match &k.filtered {
            Some(keys) => keys.get(range).map(<[String]>::to_vec).unwrap_or_default(),
            None => self.with_rows(|l| {
                l.model()
                    .order()
                    .get(range)
                    .map(<[String]>::to_vec)
                    .unwrap_or_default()
            }),
        })
    }

    /// Opens the object page of the row `key`.
    pub fn open(&self, key: &str) {
        let (namespace, name) = match key.split_once('/') {
            Some((ns, n)) => (Some(ns.to_string()), n.to_string()),
            None => (None, key.to_string()),
        };
        navigate(&Route::Object {
            resource: self.resource.get_value(),
            namespace,
            name,
        });
    }

    /// True when kubectl has wide (`-o wide`) columns for it.
    pub fn has_wide(&self) -> bool {
        self.columns.with(|cs| cs.iter().any(|c| c.priority > 0))
    }

    /// Wide on or off, remembered; not sorted by a column that goes out of sight.
    pub fn toggle_wide(&self) {
        let on = !self.wide.get_untracked();
        prefs::set_flag(prefs::WIDE, on);
        let hidden = self.sort.with_untracked(|s| s.column).is_some_and(|i| {
            self.columns
                .with_untracked(|cs| cs.get(i).is_some_and(|c| c.priority > 0))
        });
        if !on && hidden {
            self.sort.set(Sort::default());
        }
        self.wide.set(on);
    }

    /// The columns shown, with their index in the server's columns.
    pub fn shown_columns(&self) -> Vec<(usize, TableColumn)> {
        let wide = self.wide.get();
        self.columns
            .get()
            .into_iter()
            .enumerate()
            .filter(|(_, c)| wide || c.priority == 0)
            .collect()
    }
}

#[component]
fn LiveTable(
    info: ResourceInfo,
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
) -> impl IntoView {
    let kube = use_kube();
    let now = expect_context::<Now>().0;
    // A namespaced table's namespace is the app's (a link may have named another).
    let cluster = expect_context::<ClusterState>();
    if info.namespaced && cluster.namespace.get_untracked() != namespace {
        cluster.namespace.set(namespace.clone());
    }
    let path = match info.collection_path(namespace.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            return view! { <p class="error-box" data-testid="route-error">{e.to_string()}</p> }
                .into_any();
        }
    };
    let mut options = table_options(&path);
    options.reflector.label_selector = labels.clone();
    options.reflector.field_selector = fields.clone();

    let live = Rc::new(RefCell::new(LiveRows::new()));
    let changes = RwSignal::new(0u64);
    let columns: RwSignal<Vec<TableColumn>> = RwSignal::new(Vec::new());
    let preview: RwSignal<Option<More>> = RwSignal::new(None);

    let l = live.clone();
    let clock = kube.clock.clone();
    let watch = kube.watch_frames("resource-rows", options, move |inf, keys| {
        let cols = inf.columns();
        let indexer = inf.indexer();
        let indexer = indexer.borrow();
        let mut live = l.borrow_mut();
        let changed = keys.into_iter().map(|k| {
            let row = indexer.get(&k);
            (k, row)
        });
        if live.apply(&cols, changed, clock.now().as_secs_f64()) {
            columns.set(cols);
        }
        preview.set(live.preview());
        changes.update(|v| *v += 1);
    });
    // First rows at once: one page read straight from etcd is shown until
    // the informer's rows replace it.
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
            let more = match page.metadata.remaining_item_count {
                Some(n) => More::Count(n),
                None if page
                    .metadata
                    .continue_
                    .as_deref()
                    .is_some_and(|c| !c.is_empty()) =>
                {
                    More::Unknown
                }
                None => More::Count(0),
            };
            let cols = page.column_definitions.clone();
            if l.borrow_mut().show_preview(cols.clone(), page.rows, more) {
                let _ = columns.try_set(cols);
                let _ = preview.try_set(Some(more));
                let _ = changes.try_update(|v| *v += 1);
            }
        });
    }
    let status = watch.status();
    let _watch = StoredValue::new_local(watch);
    // Rows that have faded out go, on the clock's tick.
    {
        let live = live.clone();
        let clock = kube.clock.clone();
        Effect::new(move |_| {
            now.track();
            if live.borrow_mut().expire(clock.now().as_secs_f64()) {
                changes.update(|v| *v += 1);
            }
        });
    }

    let rows = StoredValue::new_local(live);
    let sort = RwSignal::new(Sort::default());
    let filter = RwSignal::new(String::new());
    // Recomputed when rows, sort or filter change; compared by generation,
    // not by content (comparing 20,000 keys per frame costs a frame).
    let generation = StoredValue::new(0u64);
    let visible = Memo::new(move |_| {
        changes.track();
        let f = RowFilter::parse(&filter.get());
        let s = sort.get();
        generation.update_value(|g| *g += 1);
        let (filtered, len, leaving) = rows.with_value(|l| {
            let mut l = l.borrow_mut();
            l.model_mut().set_sort(s);
            let filtered =
                (f != RowFilter::All).then(|| keys_in_order(l.model(), &f, compile_regex));
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
    });
    let table = Table {
        rows,
        changes,
        columns,
        status,
        preview,
        sort,
        filter,
        selected: RwSignal::new(0),
        wide: RwSignal::new(prefs::flag(prefs::WIDE)),
        visible,
        filter_input: NodeRef::new(),
        resource: StoredValue::new(info.qualified_name()),
    };
    let show_namespace = info.namespaced && namespace.is_none();
    view! {
        <section class="panel resource-page" data-testid="resource-page">
            <TableHeader table info=info.clone() namespace=namespace.clone()/>
            <Toolbar table info=info.clone() namespace=namespace.clone() labels fields/>
            <Ring table show_namespace/>
        </section>
    }
    .into_any()
}
