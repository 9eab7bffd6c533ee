//! An object's events, live: the same decoder and index as the event stream, so counts and times agree with it.

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::k8s_openapi::api::core::v1::Event;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::Now;
use crate::kube::use_kube;
use crate::kube::subscribe::{collection_path, watch_problem};
use crate::rules::events::{EventIndex, EventRow, events_namespace};
use crate::rules::objects::field_value;

/// The Events whose involved object is this one (core/v1, by name and
/// kind; a cluster-scoped object's are in `default`), newest first.
#[component]
pub fn ObjectEvents(info: ResourceInfo, namespace: Option<String>, name: String) -> impl IntoView {
    let kube = use_kube();
    let now = expect_context::<Now>().0;
    let events: RwSignal<EventIndex> = RwSignal::new(EventIndex::default());
    let ns = events_namespace(namespace.as_deref());
    let watch = collection_path::<Event>(&kube, Some(ns)).map(|path| {
        let fields = format!(
            "involvedObject.name={},involvedObject.kind={}",
            field_value(&name),
            field_value(&info.kind)
        );
        kube.subscribe("object-events", &path)
            .fields(fields)
            .frames(move |inf, keys| {
                let indexer = inf.indexer();
                let store = indexer.borrow();
                let changes = keys.into_iter().map(|k| {
                    let row = store.get(&k).map(|e| EventRow::from_object(&e));
                    (k, row)
                });
                events.update(|ix| {
                    ix.apply(changes, |_| false);
                });
            })
    });
    let status = watch.as_ref().ok().map(|w| w.status());
    let path_problem = watch.as_ref().err().cloned();
    let _watch = StoredValue::new_local(watch.ok());
    let problem = move || {
        let p = path_problem
            .clone()
            .or_else(|| status.and_then(|s| s.with(watch_problem)))?;
        Some(view! {
            <ProblemBox problem=p doing="list this object's events".to_string() testid="object-events-error"/>
        })
    };
    let rows = move || {
        let t = now.get();
        events.with(|ix| {
            ix.newest()
                .map(|e| {
                    let cls = if e.is_warning() { "status-bad" } else { "" };
                    view! {
                        <tr data-testid="object-event">
                            <td class=cls>{e.type_.clone()}</td><td>{e.reason.clone()}</td>
                            <td class="message">{e.message.clone()}</td>
                            <td class="num" data-testid="object-event-count">{e.count}</td>
                            <td data-testid="object-event-age">{e.last_seen_age(t)}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    view! {
        {problem}
        <div class="table-scroll">
            <table class="grid" data-testid="object-events">
                <thead><tr><th>"Type"</th><th>"Reason"</th><th>"Message"</th><th class="num">"Count"</th><th>"Last seen"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
