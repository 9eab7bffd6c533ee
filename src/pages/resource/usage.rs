//! The pod and node tables' CPU and memory columns: while shown, the shared usage poll for the table's scope and what usage is measured against (pods' requests and limits, nodes' allocatable) are held, and each poll rewrites the rows' usage cells in one pass, without flashing them.

use std::cell::RefCell;
use std::rc::Rc;

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::k8s_openapi::api::core::v1::{Node, Pod};
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_kubectl::usage::{PollState, Target};
use leptos::prelude::*;

use super::Feed;
use super::columns::rewrite;
use crate::kube::subscribe::{cluster_path, collection_path};
use crate::kube::{Watch, use_kube};
use crate::rules::usage::{
    Against, Capacity, RESOURCES_ONLY, UsageCells, UsageOf, pod_resources, resources_only,
    state_words,
};

/// The usage columns a table of `info` can have: core pods' and nodes'.
pub fn usage_of(info: &ResourceInfo) -> Option<UsageOf> {
    if !info.group.is_empty() {
        return None;
    }
    match info.plural.as_str() {
        "pods" => Some(UsageOf::Pods),
        "nodes" => Some(UsageOf::Nodes),
        _ => None,
    }
}

/// What a pod's or node's usage is measured against.
fn against(of: UsageOf) -> fn(&DynamicObject) -> Against {
    match of {
        UsageOf::Pods => |pod| {
            let (first, second) = pod_resources(&pod.data);
            Against { first, second }
        },
        UsageOf::Nodes => |node| Against {
            first: Capacity::from_object(node),
            second: Capacity::default(),
        },
    }
}

/// Shown while the columns are on: holds the poll of `namespace`'s pods
/// (None: all) or of the nodes, and the watch of what they are measured
/// against, under the table's own selectors; says in one line why there
/// are no figures, when there are none. Hiding it takes the columns away.
///
/// The table shows it once its own informer has synced (so the poll and
/// the watch do not slow its first rows and sync). That watch reads whole
/// objects (a pod's requests are in its spec, which a Table row lacks), so
/// it starts only once a sample has come: a cluster without metrics-server never
/// pays for it.
#[component]
pub fn UsageFeed(
    of: UsageOf,
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
    feed: Feed,
) -> impl IntoView {
    let kube = use_kube();
    let (target, path) = match of {
        UsageOf::Pods => (
            Target::Pods(namespace.clone()),
            collection_path::<Pod>(&kube, namespace.as_deref()).unwrap_or_default(),
        ),
        UsageOf::Nodes => (Target::Nodes, cluster_path::<Node>(&kube)),
    };
    let usage = kube.usage(target);
    let measured = RwSignal::new(Default::default());
    let watch = StoredValue::new_local(None::<Watch<DynamicObject>>);
    let owner = Owner::current();
    let start_watch = move || {
        let mut subscription = kube
            .subscribe("usage-columns", &path)
            .trimmed(RESOURCES_ONLY, resources_only)
            .labels(labels.clone());
        if let Some(f) = fields.clone() {
            subscription = subscription.fields(f);
        }
        subscription.rows(measured, against(of))
    };
    // A new pod or node (and the first list) brings what it is measured
    // against; other changes to it wait for the next poll.
    let measured_count = Memo::new(move |_| measured.with(|m| m.len()));
    feed.usage.borrow_mut().on = true;
    let (poll, f) = (usage.clone(), feed.clone());
    Effect::new(move |_| {
        let latest = poll.latest();
        let sampled = !latest.is_empty() || matches!(poll.state(), PollState::Fresh { .. });
        if sampled && watch.with_value(Option::is_none) {
            // Under the component, not this effect, so a rerun keeps it.
            let w = match &owner {
                Some(o) => o.with(&start_watch),
                None => start_watch(),
            };
            watch.set_value(Some(w));
        }
        // Read, not just tracked: a Memo never read is never computed, so
        // it would never be seen to change.
        let _ = measured_count.get();
        {
            let mut cells = f.usage.borrow_mut();
            cells.usage = latest.iter().map(|o| (o.key(), o.quantities)).collect();
            cells.against =
                measured.with_untracked(|m| m.iter().map(|(k, v)| (k.clone(), *v)).collect());
            cells.sampled = sampled;
        }
        rewrite(&f);
    });
    let usage = StoredValue::new_local(usage);
    let feed = StoredValue::new_local(feed);
    on_cleanup(move || {
        // The table may be going too; its rows are then nobody's to redraw.
        if let Some(feed) = feed.try_get_value() {
            *feed.usage.borrow_mut() = UsageCells::new(Some(of), false);
            rewrite(&feed);
        }
    });
    move || {
        state_words(&usage.with_value(|m| m.state())).map(|(kind, words)| {
            view! { <p class="muted small" data-testid="usage-state" data-state=kind role="status">"CPU and memory: " {words}</p> }
        })
    }
}

/// The usage cells of a table of `info`, off until a [`UsageFeed`] shows.
pub fn new_cells(info: &ResourceInfo) -> Rc<RefCell<UsageCells>> {
    Rc::new(RefCell::new(UsageCells::new(usage_of(info), false)))
}
