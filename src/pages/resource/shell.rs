//! A pod table's Shell links: on a running pod's row, where the session lets a shell through and RBAC allows `create pods/exec` in the pod's namespace (asked once a namespace, the answer kept with the table's other reviews).

use std::collections::HashMap;

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_kubectl::access::{Access, AccessQuery};
use leptos::prelude::*;

use super::state::Table;
use crate::kube::stores::session::SessionState;
use crate::kube::use_kube;
use crate::route::{Route, navigate};

/// Where a Shell may be offered, by namespace (absent: not asked yet;
/// None: asking); None when the table is not of pods or the session
/// refuses shells.
pub fn shell_column(info: &ResourceInfo) -> Option<RwSignal<HashMap<String, Option<bool>>>> {
    let pods = info.group.is_empty() && info.plural == "pods";
    (pods && expect_context::<SessionState>().may_exec()).then(|| RwSignal::new(HashMap::new()))
}

/// Asks, for each of `namespaces` not asked yet, whether the person may
/// open a shell there.
pub fn ask_namespaces(table: Table, namespaces: Vec<String>) {
    let Some(allowed) = table.shell else { return };
    let new: Vec<String> = allowed.with_untracked(|a| namespaces.into_iter().filter(|ns| !a.contains_key(ns)).collect());
    if new.is_empty() {
        return;
    }
    // Asked once.
    allowed.update(|a| a.extend(new.iter().map(|ns| (ns.clone(), None))));
    let reviews = table.reviews.get_value();
    use_kube().spawn(async move {
        for ns in new {
            let query = AccessQuery {
                verb: "create".into(),
                resource: "pods".into(),
                subresource: Some("exec".into()),
                namespace: Some(ns.clone()),
                ..Default::default()
            };
            let may = matches!(reviews.ask(&query).await, Ok(Access::Allowed));
            let _ = allowed.try_update(|a| a.insert(ns, Some(may)));
        }
    });
}

/// Opens a shell in the pod `key` (`namespace/name`) when one is offered
/// in its namespace (k9s's `s`).
pub fn open_shell(table: Table, key: &str) {
    let Some((ns, pod)) = key.split_once('/') else { return };
    let route = Route::Exec { namespace: ns.to_string(), pod: pod.to_string(), container: None };
    // A name from the cluster that cannot be part of a path opens nothing.
    if table.shell.is_some_and(|a| a.with_untracked(|a| a.get(ns) == Some(&Some(true)))) && route.link().is_some() {
        navigate(&route);
    }
}

/// The Shell link of the pod `key` (`namespace/name`), when it is offered.
#[component]
pub fn ShellLink(table: Table, key: Signal<Option<(String, bool)>>) -> impl IntoView {
    // Whether a shell may open in the row's namespace: yes, no, asking.
    let answer = move || {
        let (key, _) = key.get()?;
        let ns = key.split_once('/')?.0.to_string();
        table.shell?.with(|a| a.get(&ns).copied())
    };
    let href = move || {
        let (key, running) = key.get()?;
        let (ns, pod) = key.split_once('/')?;
        // `link`: a name from the cluster that cannot be part of a path
        // gets no link.
        (running && answer() == Some(Some(true))).then(|| Route::Exec { namespace: ns.to_string(), pod: pod.to_string(), container: None }.link()).flatten()
    };
    let state = move || match answer() {
        Some(Some(true)) => "yes",
        Some(Some(false)) => "no",
        _ => "asking",
    };
    view! {
        <span class="vcell shell-cell" role="cell" data-shell=state>
            {move || href().map(|h| view! {
                <a href=h data-testid="row-shell" title="A shell in this pod (s)"
                    on:click=|ev: leptos::ev::MouseEvent| ev.stop_propagation()>"Shell"</a>
            })}
        </span>
    }
}
