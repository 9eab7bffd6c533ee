//! A table's columns of your own: kubectl's custom-columns spec typed under
//! the toolbar, kept in the URL (`c=`, a view's option: the table is not
//! rebuilt) and remembered per resource; each object's cells read from an
//! informer of whole objects (a Secret's metadata only: its data is never
//! fetched for a column), appended after the server's and the usage
//! columns, so they sort and filter as those do.

use std::rc::Rc;

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_kubectl::columns::{Column, parse_spec};
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use super::Feed;
use crate::kube::subscribe::watch_problem;
use crate::kube::use_kube;
use crate::prefs;
use crate::route::{Route, replace, use_route};
use crate::rules::custom_columns::{CustomCells, is_custom_column, object_cells, with_cells};
use crate::rules::usage::is_usage_column;

/// Puts the usage and custom cells' current values into every row at once
/// (one sort, no flash), and the columns with them; the table redraws if
/// anything changed.
pub fn rewrite(feed: &Feed) {
    rewrite_rows(feed, None);
}

/// As [`rewrite`], for the rows under `keys` only (a frame of the custom
/// columns' informer: the other rows' cells are as they were).
fn rewrite_rows(feed: &Feed, keys: Option<&[String]>) {
    let (usage, custom) = (feed.usage.borrow(), feed.custom.borrow());
    let mut live = feed.live.borrow_mut();
    let server: Vec<_> = live
        .model()
        .columns()
        .iter()
        .filter(|c| !is_usage_column(c) && !is_custom_column(c))
        .cloned()
        .collect();
    let n = server.len();
    let with_usage = usage.columns(&server);
    let columns = custom.columns(&with_usage);
    let cells = |r| with_cells(r, n, &usage, &custom);
    let changed = match keys {
        Some(keys) => live.model_mut().rewrite_keys(columns.clone(), keys, cells),
        None => live.model_mut().rewrite(columns.clone(), cells),
    };
    if changed {
        let _ = feed.columns.try_set(columns);
        feed.changed.notify();
    }
}

/// The spec the table shows: the URL's, else the one remembered for the
/// resource.
fn spec_of(route: &Route, remembered: &str) -> Option<String> {
    if !matches!(route, Route::Resource { .. }) {
        return None;
    }
    route
        .own_columns()
        .or_else(|| prefs::get(remembered))
        .filter(|s| !s.trim().is_empty())
}

/// The columns' line under the toolbar (the spec, what is wrong with it)
/// and, once the table's own list is in, the cells' informer.
pub fn custom_feed(
    info: &ResourceInfo,
    (namespace, labels, fields): (Option<String>, Option<String>, Option<String>),
    synced: Memo<bool>,
    feed: Feed,
) -> impl IntoView + use<> {
    let route = use_route();
    let remembered = prefs::columns_key(&info.qualified_name());
    // Bumped when the person applies a spec: clearing one that came from
    // the remembered spec leaves the URL as it was, so the route alone
    // would not say so.
    let applied = RwSignal::new(0u64);
    let spec = {
        let remembered = remembered.clone();
        Memo::new(move |_| {
            applied.track();
            spec_of(&route.get(), &remembered)
        })
    };
    let parsed = Memo::new(move |_| spec.get().map(|s| parse_spec(&s)));
    let text = RwSignal::new(spec.get_untracked().unwrap_or_default());
    let typed_error = RwSignal::new(None::<String>);
    let apply = move |ev: KeyboardEvent| {
        if ev.key() != "Enter" {
            return;
        }
        let typed = text.get_untracked().trim().to_string();
        if let Err(e) = parse_spec(&typed).map(|_| ()).or_else(|e| if typed.is_empty() { Ok(()) } else { Err(e) }) {
            typed_error.set(Some(e.to_string()));
            return;
        }
        typed_error.set(None);
        prefs::set(&remembered, &typed);
        applied.update(|n| *n += 1);
        if let Route::Resource { resource, namespace, labels, fields, .. } = route.get_untracked() {
            replace(&Route::Resource { resource, namespace, labels, fields, columns: (!typed.is_empty()).then_some(typed) });
        }
    };
    let error = move || {
        typed_error.get().or_else(|| parsed.with(|p| p.as_ref().and_then(|r| r.as_ref().err().map(|e| e.to_string()))))
    };
    let info = StoredValue::new(info.clone());
    let feed = StoredValue::new_local(feed);
    let cells = move || {
        let columns = parsed.get().and_then(Result::ok).filter(|c| !c.is_empty())?;
        synced.get().then(|| {
            let (ns, l, f) = (namespace.clone(), labels.clone(), fields.clone());
            view! { <CustomFeed columns info=info.get_value() namespace=ns labels=l fields=f feed=feed.get_value()/> }
        })
    };
    view! {
        <div class="toolbar custom-columns">
            <input class="columns" type="text" data-testid="custom-columns-input" aria-label="Your own columns"
                placeholder="your columns, kubectl custom-columns: IMAGE:.spec.containers[*].image"
                prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev)) on:keydown=apply/>
        </div>
        {move || error().map(|e| view! { <p class="error-box" role="alert" data-testid="custom-columns-error">"Columns: " {e}</p> })}
        {cells}
    }
}

/// Holds the informer the cells are read from while the columns show;
/// each frame of changes rewrites the rows. Gone, it takes the columns with it.
#[component]
fn CustomFeed(
    columns: Vec<Column>,
    info: ResourceInfo,
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
    feed: Feed,
) -> impl IntoView {
    let kube = use_kube();
    let Ok(path) = info.collection_path(namespace.as_deref()) else {
        // The table itself says why it cannot read here.
        return ().into_any();
    };
    *feed.custom.borrow_mut() = CustomCells::with_headers(
        columns
            .iter()
            .map(|c| (c.header.clone(), c.expression.clone()))
            .collect(),
    );
    let mut subscription = kube.subscribe("custom-columns", &path);
    if info.is_core_secrets() {
        subscription = subscription.metadata_only();
    }
    subscription = subscription.labels(labels);
    if let Some(f) = fields {
        subscription = subscription.fields(f);
    }
    let columns = Rc::new(columns);
    let (api_version, kind) = (info.api_version(), info.kind.clone());
    let f = feed.clone();
    let watch = subscription.frames(move |inf, keys| {
        {
            let indexer = inf.indexer();
            let indexer = indexer.borrow();
            let mut custom = f.custom.borrow_mut();
            for k in &keys {
                match indexer.get(k) {
                    Some(o) => custom.set(k.clone(), object_cells(&columns, (&api_version, &kind), &o)),
                    None => custom.remove(k),
                };
            }
            custom.refresh_numeric();
        }
        rewrite_rows(&f, Some(&keys));
    });
    let status = watch.status();
    let _watch = StoredValue::new_local(watch);
    let feed = StoredValue::new_local(feed);
    on_cleanup(move || {
        // The table may be going too; its rows are then nobody's to redraw.
        if let Some(feed) = feed.try_get_value() {
            *feed.custom.borrow_mut() = CustomCells::default();
            rewrite(&feed);
        }
    });
    view! {
        {move || status.with(watch_problem).map(|p| view! {
            <p class="muted small" role="alert" data-testid="custom-columns-problem">"Your columns: " {p.detail().to_string()}</p>
        })}
    }
    .into_any()
}
