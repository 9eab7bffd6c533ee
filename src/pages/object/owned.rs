//! What an object owns (or, for a node, the pods on it), live, from a shared Table informer of the child resource looked up by the owner-UID index.

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::k8s_openapi::api::core::v1::Pod;
use kubeglass_client::rest::table::TableRowObject;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::Now;
use crate::kube::subscribe::{InformerSnapshot, cluster_path, watch_problem};
use crate::kube::{Watch, use_kube};
use crate::rules::objects::{OwnedRow, children_of, field_value};
use crate::rules::problem::Problem;
use crate::rules::time::{Seconds, age};
use crate::route::Route;

/// "Owns" (or "Pods on this node") for kinds the app knows the children
/// of; nothing for the others.
#[component]
pub fn OwnedSection(
    info: ResourceInfo,
    namespace: Option<String>,
    name: String,
    uid: Memo<Option<String>>,
) -> impl IntoView {
    let children = children_of(&info)?;
    let kube = use_kube();
    let resource = children.resource;
    // A child kind the server does not serve (or discovery failing) leaves
    // the section empty: the object's own page is what was asked for.
    let found = kube
        .clone()
        .load(async move { kube.resolve(resource).await.ok().flatten() });
    let heading = if children.on_node {
        "Pods on this node"
    } else {
        "Owns"
    };
    Some(view! {
        <h3>{heading}</h3>
        {move || found.get().flatten().map(|child| view! {
            <Owned child on_node=children.on_node namespace=namespace.clone() name=name.clone() uid/>
        })}
    })
}

/// What the object owns (or the pods on the node), live.
#[component]
fn Owned(
    child: ResourceInfo,
    on_node: bool,
    namespace: Option<String>,
    name: String,
    uid: Memo<Option<String>>,
) -> impl IntoView {
    let kube = use_kube();
    let now = expect_context::<Now>().0;
    let subscription = if on_node {
        kube.subscribe("owned", &cluster_path::<Pod>(&kube))
            .table()
            .fields(format!("spec.nodeName={}", field_value(&name)))
    } else {
        match child.collection_path(namespace.as_deref()) {
            Ok(path) => kube.subscribe("owned", &path).table(),
            Err(e) => {
                let problem = Problem::from(e);
                let doing = format!("list the {} it owns", child.plural);
                return view! { <ProblemBox problem doing testid="owned-error"/> }.into_any();
            }
        }
    };
    let changed = Trigger::new();
    let watch = subscription
        .owner_index()
        .frames(move |_, _| changed.notify());
    let status = watch.status();
    let watch = StoredValue::new_local(watch);
    let doing = format!("list the {} it owns", child.plural);
    let problem = move || {
        status
            .with(watch_problem)
            .map(|p| view! { <ProblemBox problem=p doing=doing.clone() testid="owned-error"/> })
    };
    let rows = owned_rows(watch, changed, uid, on_node);
    let qualified = child.qualified_name();
    let kind = child.kind.clone();
    view! {
        {problem}
        <div class="table-scroll">
        <table class="grid" data-testid="owned">
            <tbody>
                <OwnedRows rows status qualified kind now/>
            </tbody>
        </table>
        </div>
    }
    .into_any()
}

/// Whether the informer has synced, and the rows it holds, by name: the
/// pods on the node, or the objects `uid` owns; anew on each frame.
fn owned_rows(
    watch: StoredValue<Watch<TableRowObject>, LocalStorage>,
    changed: Trigger,
    uid: Memo<Option<String>>,
    on_node: bool,
) -> Memo<(bool, Vec<OwnedRow>)> {
    Memo::new(move |_| {
        changed.track();
        let uid = uid.get();
        watch.with_value(|inf| {
            let mut found: Vec<std::rc::Rc<TableRowObject>> = if on_node {
                inf.indexer().borrow().list()
            } else {
                uid.map(|u| inf.owned_by(&u)).unwrap_or_default()
            };
            found.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
            let columns = inf.columns();
            let rows: Vec<OwnedRow> = found
                .iter()
                .map(|r| OwnedRow::from_row(r, &columns))
                .collect();
            (inf.has_synced(), rows)
        })
    })
}

/// A row per owned object (link, summary, age), or "none", "loading…" or "—" (failed).
#[component]
fn OwnedRows(
    rows: Memo<(bool, Vec<OwnedRow>)>,
    status: RwSignal<InformerSnapshot>,
    qualified: String,
    kind: String,
    now: RwSignal<Seconds>,
) -> impl IntoView {
    move || {
        let (synced, rows) = rows.get();
        if rows.is_empty() {
            let failed = status.with(|s| watch_problem(s).is_some());
            let text = if synced {
                "none"
            } else if failed {
                "—"
            } else {
                "loading…"
            };
            return view! { <tr><td class="muted">{text}</td></tr> }.into_any();
        }
        rows.into_iter()
            .map(|r| {
                let link = Route::Object {
                    resource: qualified.clone(),
                    namespace: r.namespace.clone(),
                    name: r.name.clone(),
                }
                .link();
                let created = r
                    .created
                    .map(|t| age(now.get_untracked(), t))
                    .unwrap_or_default();
                let cls = if r.deleting { "deleting" } else { "" };
                let label = format!("{} {}", kind, r.name);
                let name_cell = match link {
                    Some(href) => {
                        view! { <a href=href data-testid="owned-link">{label}</a> }.into_any()
                    }
                    None => view! { <span>{label}</span> }.into_any(),
                };
                view! {
                    <tr class=cls data-testid="owned-object">
                        <td class="name">{name_cell}</td>
                        <td class="muted small">{r.summary}</td>
                        <td class="num">{created}</td>
                    </tr>
                }
            })
            .collect_view()
            .into_any()
    }
}
