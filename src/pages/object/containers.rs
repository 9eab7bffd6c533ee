//! A pod's page: node, IPs and QoS class at the top, and a row per init, app and ephemeral container with its state, restarts, last termination, ports, resources, a link to its logs and, where a shell may open (the session and RBAC's `create pods/exec`), to a shell in it; a workload's page: a link to its pods' merged logs.

use leptos::prelude::*;
use serde_json::Value;

use crate::kube::requests::access::may_exec;
use crate::kube::stores::session::SessionState;
use crate::kube::{Now, use_kube};
use crate::rules::logs::LogOptions;
use crate::rules::pods::PodView;
use crate::rules::time::Seconds;
use crate::route::{LogTarget, Route};

/// The pod's facts and containers.
#[component]
pub fn PodContainers(
    object: RwSignal<Option<Value>>,
    namespace: String,
    name: String,
) -> impl IntoView {
    let now = expect_context::<Now>().0;
    let pod = Memo::new(move |_| object.with(|o| o.as_ref().map(PodView::from_value)));
    let all_logs = logs_link(&namespace, &name, None);
    let shell = may_shell(&namespace, &name);
    view! {
        <h3>"Pod"</h3>
        <PodFacts pod/>
        <h3>"Containers " {all_logs.map(|h| view! { <a class="small" href=h data-testid="pod-logs">"logs"</a> })}
            // Asked, and no: a mark a test can wait for.
            {move || (shell.get() == Some(false)).then(|| view! { <span hidden data-testid="shell-denied"></span> })}
        </h3>
        <div class="table-scroll">
            <table class="grid" data-testid="containers">
                <thead><tr>
                    <th>"Name"</th><th>"Image"</th><th>"State"</th><th>"Ready"</th><th class="num">"Restarts"</th>
                    <th>"Last termination"</th><th>"Ports"</th><th>"Resources"</th><th></th>
                </tr></thead>
                <tbody><ContainerRows pod now namespace name shell/></tbody>
            </table>
        </div>
    }
}

/// Some(true) once the session lets a shell through and RBAC allows
/// `create pods/exec` on the pod; None while asking; Some(false) when not,
/// and when the cluster could not be asked.
fn may_shell(namespace: &str, name: &str) -> Signal<Option<bool>> {
    if !expect_context::<SessionState>().may_exec() {
        return Signal::stored(Some(false));
    }
    let (kube, ns, name) = (use_kube(), namespace.to_string(), name.to_string());
    let asked = kube.clone().load(async move { may_exec(&kube, &ns, &name).await.unwrap_or(false) });
    asked.into()
}

/// The link to a shell in `container` of the pod `name`.
fn shell_link(namespace: &str, name: &str, container: &str) -> Option<String> {
    Route::Exec {
        namespace: namespace.to_string(),
        pod: name.to_string(),
        container: Some(container.to_string()),
    }
    .link()
}

/// The link to the logs of the pod `name` (of one container, or its first).
fn logs_link(namespace: &str, name: &str, container: Option<String>) -> Option<String> {
    Route::Logs {
        namespace: namespace.to_string(),
        target: LogTarget::Pod(name.to_string()),
        options: LogOptions {
            container,
            ..LogOptions::default()
        },
    }
    .link()
}

/// The pod's node, IPs, QoS class and phase.
#[component]
fn PodFacts(pod: Memo<Option<PodView>>) -> impl IntoView {
    move || {
        pod.get().map(|p| {
            let ips = if p.ips.is_empty() { "—".to_string() } else { p.ips.join(", ") };
            view! {
                <dl class="facts" data-testid="pod-facts">
                    <dt>"Node"</dt><dd data-testid="pod-node">{if p.node.is_empty() { "not scheduled".to_string() } else { p.node.clone() }}</dd>
                    <dt>"Pod IPs"</dt><dd data-testid="pod-ips">{ips}</dd>
                    <dt>"Host IP"</dt><dd>{if p.host_ip.is_empty() { "—".to_string() } else { p.host_ip.clone() }}</dd>
                    <dt>"QoS class"</dt><dd data-testid="pod-qos">{if p.qos.is_empty() { "—".to_string() } else { p.qos.clone() }}</dd>
                    <dt>"Phase"</dt><dd>{p.phase.clone()}</dd>
                </dl>
            }
        })
    }
}

/// A row per container: state, readiness, restarts, last termination, ports, resources, its logs and a shell in it while it runs.
#[component]
fn ContainerRows(
    pod: Memo<Option<PodView>>,
    now: RwSignal<Seconds>,
    shell: Signal<Option<bool>>,
    namespace: String,
    name: String,
) -> impl IntoView {
    move || {
        let t = now.get();
        pod.get().map(|p| {
            p.containers
                .into_iter()
                .map(|c| {
                    let href = logs_link(&namespace, &name, Some(c.name.clone()));
                    let shell_href = shell_link(&namespace, &name, &c.name);
                    let running = matches!(c.state, crate::rules::pods::State::Running(_));
                    let last = if c.last == crate::rules::pods::State::Unknown { "—".to_string() } else { c.last.describe(t) };
                    let resources = {
                        let mut parts = Vec::new();
                        if !c.requests.is_empty() {
                            parts.push(format!("requests {}", c.requests.join(", ")));
                        }
                        if !c.limits.is_empty() {
                            parts.push(format!("limits {}", c.limits.join(", ")));
                        }
                        if parts.is_empty() { "—".to_string() } else { parts.join(" · ") }
                    };
                    view! {
                        <tr data-testid="container-row" data-container=c.name.clone()>
                            <td class="name">{c.name.clone()}<span class="muted small">{format!(" {}", c.kind.word())}</span></td>
                            <td class="small" title=c.image.clone()>{c.image.clone()}</td>
                            <td class=c.state.class() data-testid="container-state">{c.state.describe(t)}</td>
                            <td>{if c.ready { "ready" } else { "not ready" }}</td>
                            <td class="num" data-testid="container-restarts">{c.restarts}</td>
                            <td class="small">{last}</td>
                            <td class="small">{if c.ports.is_empty() { "—".to_string() } else { c.ports.join(", ") }}</td>
                            <td class="small">{resources}</td>
                            <td>
                                {href.map(|h| view! { <a href=h data-testid="container-logs">"Logs"</a> })}
                                {(running && shell.get() == Some(true)).then(|| shell_href.clone()).flatten().map(|h| view! { " " <a href=h data-testid="container-shell">"Shell"</a> })}
                            </td>
                        </tr>
                    }
                })
                .collect_view()
        })
    }
}

/// Kinds whose pods' logs merge into one view.
pub fn has_workload_logs(group: &str, plural: &str) -> bool {
    matches!(
        (group, plural),
        (
            "apps",
            "deployments" | "replicasets" | "statefulsets" | "daemonsets"
        ) | ("batch", "jobs")
    )
}

/// The link to a workload's merged logs.
#[component]
pub fn WorkloadLogsLink(resource: String, namespace: String, name: String) -> impl IntoView {
    Route::Logs {
        namespace,
        target: LogTarget::Workload { resource, name },
        options: LogOptions::default(),
    }
    .link()
    .map(|href| view! { <a class="button-link" href=href data-testid="workload-logs">"Logs of its pods"</a> })
}
