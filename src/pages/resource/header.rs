//! A table's heading: the kind and scope, the informer's state and resourceVersion, the row count, and why the rows cannot be read.

use kubeglass_client::discovery::ResourceInfo;
use leptos::prelude::*;

use super::state::Table;
use crate::components::problem::ProblemBox;
use crate::kube::subscribe::watch_problem;
use crate::rules::live_rows::More;
use crate::kube::Now;
use crate::platform::local_time;
use crate::rules::namespaces::scope_label;
use crate::rules::time::{Seconds, age};

/// The heading and, when the informer fails, the failure in words.
/// `resync` is set while the rows are not yet confirmed by the server:
/// with when they were saved, when they came from the last visit. While the
/// tab's watches are paused (it was hidden a while) the heading says so.
#[component]
pub fn TableHeader(
    table: Table,
    info: ResourceInfo,
    namespace: Option<String>,
    resync: Memo<Option<Option<Seconds>>>,
) -> impl IntoView {
    let now = use_context::<Now>().map(|n| n.0);
    let paused = crate::kube::use_kube().paused();
    let resync_note = move || {
        let text = if paused.get() {
            "paused while hidden".to_string()
        } else {
            match resync.get()? {
                Some(at) => {
                    let now = now.map_or(at, |n| n.get());
                    format!("from {} ({} ago), resyncing", local_time(at), age(now, at))
                }
                None => "resyncing".to_string(),
            }
        };
        Some(view! { <span class="badge muted" data-testid="resync-note">{text}</span> })
    };
    let status = table.status;
    let scope = if info.namespaced {
        scope_label(namespace.as_deref())
    } else {
        "cluster-wide".to_string()
    };
    let doing = format!("list {} {scope}", info.plural);
    let state_label = move || status.with(|s| s.state_label());
    let rv = move || {
        status.with(|s| {
            s.reflector
                .last_resource_version
                .clone()
                .unwrap_or_default()
        })
    };
    let total = Memo::new(move |_| {
        table.changed.track();
        table.with_rows(|l| l.live_len())
    });
    let shown = Memo::new(move |_| table.visible.with(|k| k.len - k.leaving));
    let count = move || {
        let total = total.get();
        match table.preview.get() {
            Some(More::Count(more)) => {
                format!(
                    "first {total} of {} — loading the rest",
                    total as i64 + more
                )
            }
            Some(More::Unknown) => format!("first {total} of more — loading the rest"),
            None => format!("{} of {total}", shown.get()),
        }
    };
    let problem = move || {
        status
            .with(watch_problem)
            .map(|p| view! { <ProblemBox problem=p doing=doing.clone() testid="informer-error"/> })
    };
    view! {
        <div class="resource-head">
            <h2>
                <span data-testid="resource-kind">{info.kind.clone()}</span>
                <span class="muted">" " {scope}</span>
            </h2>
            <span class="badge" data-testid="informer-state">{state_label}</span>
            {resync_note}
            <span class="muted small">"rv " <code>{rv}</code></span>
            <span class="muted small" data-testid="row-count">{count}</span>
        </div>
        {problem}
    }
}
