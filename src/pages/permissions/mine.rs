//! "My permissions": one SelfSubjectRulesReview for the namespace, its
//! rules broken down and gathered as `kubectl auth can-i --list` prints
//! them, drawn as a grid of resources (or non-resource URLs) by verbs.

use kubeglass_kubectl::rbac::list::{Row, RulesStatus, columns, has, rows};
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::requests::access::my_rules;
use crate::kube::use_kube;
use crate::rules::namespaces::scope_label;

/// The grid for `namespace` (None: the cluster-wide rules only).
#[component]
pub fn MyPermissions(namespace: Option<String>) -> impl IntoView {
    let kube = use_kube();
    let asking = kube.clone();
    let ns = namespace.clone().unwrap_or_default();
    let answer = kube.load(async move { my_rules(&asking, &ns).await });
    let scope = match &namespace {
        Some(_) => scope_label(namespace.as_deref()),
        None => "cluster-wide".to_string(),
    };
    view! {
        <h3>{format!("My permissions {scope}")}</h3>
        {move || match answer.get() {
            None => view! { <p class="muted">"asking…"</p> }.into_any(),
            Some(Err(problem)) => view! {
                <ProblemBox problem doing=format!("list your permissions {scope}") testid="my-permissions-problem"/>
            }.into_any(),
            Some(Ok(status)) => grid(status).into_any(),
        }}
    }
}

/// The rows as a resource × verb grid; each row carries its key and verbs
/// as data, as kubectl lists them.
fn grid(status: RulesStatus) -> impl IntoView {
    let rows = rows(&status);
    let columns = columns(&rows);
    let incomplete = status.incomplete.then(|| {
        let why = status.evaluation_error.clone().unwrap_or_default();
        view! {
            <p class="muted small" data-testid="permissions-incomplete">
                {format!("The server says this list may be incomplete: {why}. Each action is still asked of it when you use it.")}
            </p>
        }
    });
    let head = columns
        .iter()
        .map(|v| view! { <th class="verb">{v.clone()}</th> })
        .collect_view();
    let body = rows
        .into_iter()
        .map(|r| row(r, &columns))
        .collect_view();
    view! {
        {incomplete}
        <div class="table-scroll">
            <table class="grid permissions" data-testid="my-permissions">
                <thead><tr><th>"Resource or URL"</th><th>"Name"</th>{head}</tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

/// One row: ✓ under each verb it allows (all of them for `*`).
fn row(r: Row, columns: &[String]) -> AnyView {
    let marks = columns
        .iter()
        .map(|v| {
            let yes = has(&r, v);
            view! { <td class="mark" data-allowed=yes.to_string()>{if yes { "✓" } else { "" }}</td> }
        })
        .collect_view();
    let verbs: Vec<String> = r.verbs.iter().cloned().collect();
    let what = r.url.clone().unwrap_or_else(|| r.resource.clone());
    view! {
        <tr data-testid="permission-row" data-resource=r.resource.clone()
            data-name=r.name.clone().unwrap_or_default() data-url=r.url.clone().unwrap_or_default()
            data-verbs=verbs.join(" ")>
            <td class="mono">{what}</td>
            <td class="mono">{r.name.clone().unwrap_or_default()}</td>
            {marks}
        </tr>
    }
    .into_any()
}
