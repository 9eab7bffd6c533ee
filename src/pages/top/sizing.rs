//! Right-sizing, under Top: each workload's pods' usage over the tab's last hour against what they request, what that suggests, and the pods far from their own requests.

use std::collections::BTreeMap;

use kubeglass_client::k8s_openapi::api::apps::v1::ReplicaSet;
use kubeglass_client::k8s_openapi::api::core::v1::Pod;
use kubeglass_kubectl::usage::Target;
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::subscribe::usage::UsagePoll;
use crate::kube::use_kube;
use crate::kube::subscribe::{collection_path, watch_problem};
use crate::rules::usage::{
    By, Part, PodSizing, Sizing, controller, fit_words, part_words, right_size,
};
use crate::route::Route;

/// The workloads of the pods in `scope` (None: all namespaces), sized.
#[component]
pub fn RightSizing(scope: Option<String>) -> impl IntoView {
    let kube = use_kube();
    let paths = collection_path::<Pod>(&kube, scope.as_deref())
        .and_then(|p| Ok((p, collection_path::<ReplicaSet>(&kube, scope.as_deref())?)));
    let (pods_path, sets_path) = match paths {
        Ok(p) => p,
        Err(problem) => {
            return view! { <ProblemBox problem doing="size the workloads".to_string() testid="sizing-problem"/> }.into_any();
        }
    };
    let pods = RwSignal::new(BTreeMap::new());
    let pods_watch = kube
        .subscribe("sizing-pods", &pods_path)
        .rows(pods, PodSizing::from_object);
    let status = pods_watch.status();
    let sets = RwSignal::new(BTreeMap::new());
    let sets_watch = kube
        .subscribe("sizing-replicasets", &sets_path)
        .rows(sets, |rs| {
            controller(rs)
                .filter(|(kind, _)| kind == "Deployment")
                .map(|(_, name)| name)
        });
    let _watches = StoredValue::new_local((pods_watch, sets_watch));
    let usage = StoredValue::new_local(kube.usage(Target::Pods(scope)));
    // Once per poll: the figures only move then, and summing every pod's
    // points on each frame of pod changes would cost a busy cluster a
    // frame. A pod or ReplicaSet that arrived since shows at the next poll.
    let sized = move || {
        let deployments: BTreeMap<String, String> = sets.with_untracked(|s| {
            s.iter()
                .filter_map(|(k, d): (&String, &Option<String>)| Some((k.clone(), d.clone()?)))
                .collect()
        });
        let pods: Vec<PodSizing> = pods.with_untracked(|p| p.values().cloned().collect());
        usage.with_value(|m: &UsagePoll| {
            m.track();
            right_size(&pods, &deployments, &|k| m.points(k))
        })
    };
    view! {
        {move || status.with(watch_problem).map(|p| view! {
            <ProblemBox problem=p doing="list the pods to size".to_string() testid="sizing-problem"/>
        })}
        <table class="grid sizing" data-testid="sizing">
            <thead><tr><th>"Workload"</th><th class="num">"Pods"</th><th>"CPU"</th><th>"Memory"</th><th>"Pods far from their request"</th></tr></thead>
            <tbody>{move || sized().into_iter().map(row).collect_view()}</tbody>
        </table>
    }
    .into_any()
}

/// One workload's row.
fn row(s: Sizing) -> impl IntoView {
    let href = match s.kind.as_str() {
        "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" => {
            Some(format!("{}.apps", s.kind.to_lowercase() + "s"))
        }
        "Job" => Some("jobs.batch".to_string()),
        _ => None,
    }
    .map(|resource| {
        Route::Object {
            resource,
            namespace: Some(s.namespace.clone()),
            name: s.name.clone(),
        }
        .href()
    });
    let label = format!("{} {}/{}", s.kind, s.namespace, s.name);
    let part = |p: Part, by: By| {
        view! {
            <td data-fit=p.fit.word()>
                <div>{part_words(&p, by)}</div>
                <div class="muted small">{fit_words(p.fit)}</div>
            </td>
        }
    };
    let far = s
        .outliers
        .iter()
        .map(|o| {
            format!(
                "{} {} {:.0}%",
                o.pod,
                if o.by == By::Cpu { "CPU" } else { "memory" },
                100.0 * o.share
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    view! {
        <tr data-testid="sizing-row" data-key=format!("{}/{}/{}", s.kind, s.namespace, s.name)>
            <td>{match href {
                Some(h) => view! { <a href=h>{label}</a> }.into_any(),
                None => view! { <span>{label}</span> }.into_any(),
            }}</td>
            <td class="num">{s.pods}</td>
            {part(s.cpu, By::Cpu)}
            {part(s.memory, By::Memory)}
            <td class="small">{far}</td>
        </tr>
    }
}
