//! The two questions asked of the policy: who can `<verb>` `<resource>` in
//! the header's namespace, and what one subject is granted; each answer a
//! row with its chain.

use std::sync::Arc;

use kubeglass_kubectl::rbac::who::{Grant, Identity, MASTERS, granted_to, question, subjects, who_can};
use kubeglass_kubectl::rbac::{Policy, Rule, Subject};
use leptos::prelude::*;

use crate::components::problem::ProblemBox;
use crate::kube::use_kube;
use crate::route::Route;
use crate::rules::namespaces::scope_label;

/// A text box bound to `value`.
fn field(value: RwSignal<String>, label: &'static str, testid: &'static str) -> impl IntoView {
    view! {
        <label>{label} " "
            <input data-testid=testid prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))/>
        </label>
    }
}

/// "Who can `<verb>` `<resource>`" in the header's namespace.
#[component]
pub fn WhoCan(policy: Signal<Arc<Policy>>, namespace: RwSignal<Option<String>>) -> impl IntoView {
    let discovered = use_kube().discovered();
    let verb = RwSignal::new("delete".to_string());
    let resource = RwSignal::new("pods".to_string());
    let answer = move || {
        let discovery = match discovered.get() {
            None => return view! { <p class="muted">"reading the API's resources…"</p> }.into_any(),
            Some(Err(problem)) => return view! {
                <ProblemBox problem doing="read the API's resources".to_string() testid="who-problem"/>
            }.into_any(),
            Some(Ok(d)) => d,
        };
        let resolve = |name: &str| {
            let info = discovery.mapper().resource_for(name)?;
            Some((info.group.clone(), info.plural.clone(), info.namespaced))
        };
        let ns = namespace.get();
        match question(&verb.get(), &resource.get(), ns.as_deref(), &resolve) {
            Err(e) => view! { <p class="error-text" role="alert" data-testid="who-error">{e}</p> }.into_any(),
            Ok(q) => {
                let grants = policy.with(|p| who_can(p, &q));
                let scope = match &q.namespace {
                    Some(_) => scope_label(q.namespace.as_deref()),
                    None => "cluster-wide".to_string(),
                };
                let mut what = q.resource.clone();
                if let Some(s) = &q.subresource {
                    what = format!("{what}/{s}");
                }
                if !q.group.is_empty() {
                    what = format!("{what}.{}", q.group);
                }
                let said = format!("{} may {} {what} {scope}:", count(grants.len()), q.verb);
                view! {
                    <p data-testid="who-asked">{said}</p>
                    <GrantTable grants testid="who-can" subject_first=true/>
                }
                .into_any()
            }
        }
    };
    view! {
        <h3>"Who can"</h3>
        <div class="toolbar">
            {field(verb, "Verb", "who-verb")}
            {field(resource, "Resource", "who-resource")}
            <span class="muted">{move || scope_label(namespace.get().as_deref())}</span>
        </div>
        {answer}
        <p class="muted small">
            {format!("Members of {MASTERS} may do everything whatever RBAC says (the apiserver's own rule), and a user's groups come from their credentials, which no object records: a group's answer is for its members.")}
        </p>
    }
}

fn count(n: usize) -> String {
    match n {
        0 => "Nobody named by a binding".into(),
        1 => "1 subject".into(),
        n => format!("{n} subjects"),
    }
}

/// What one subject the bindings name is granted, everywhere.
#[component]
pub fn SubjectRules(policy: Signal<Arc<Policy>>) -> impl IntoView {
    let picked = RwSignal::new(None::<Subject>);
    let choices = Memo::new(move |_| policy.with(|p| subjects(p)));
    let options = move || {
        choices.with(|c| {
            c.iter()
                .enumerate()
                .map(|(i, s)| view! { <option value=i.to_string()>{s.words()}</option> })
                .collect_view()
        })
    };
    let pick = move |ev| {
        let i: Option<usize> = event_target_value(&ev).parse().ok();
        picked.set(i.and_then(|i| choices.with(|c| c.get(i).cloned())));
    };
    let granted = move || {
        let subject = picked.get()?;
        let who = match subject.kind.as_str() {
            "ServiceAccount" => Identity::service_account(subject.namespace.as_deref().unwrap_or_default(), &subject.name),
            "Group" => Identity { user: String::new(), groups: vec![subject.name.clone()] },
            _ => Identity::user(&subject.name),
        };
        let note = match subject.kind.as_str() {
            "ServiceAccount" => "Bound to the account, to system:serviceaccounts[:<namespace>] and to system:authenticated.",
            "Group" => "Bound to the group by name.",
            _ => "Bound to the user by name and to system:authenticated; groups from the user's credentials are not known here.",
        };
        let grants = policy.with(|p| granted_to(p, &who));
        Some(view! {
            <p class="muted small" data-testid="subject-note">{note}</p>
            <GrantTable grants testid="subject-grants" subject_first=false/>
        })
    };
    view! {
        <h3>"What a subject may do"</h3>
        <div class="toolbar">
            <label>"Subject " <select data-testid="subject-pick" on:change=pick>
                <option value="">"pick one a binding names…"</option>
                {options}
            </select></label>
        </div>
        {granted}
    }
}

/// Grants as rows: the subject (or the rule), where, and the chain.
#[component]
fn GrantTable(grants: Vec<Grant>, testid: &'static str, subject_first: bool) -> impl IntoView {
    let rows = grants
        .into_iter()
        .map(|g| {
            let place = match &g.binding_namespace {
                Some(ns) => ns.clone(),
                None => "cluster-wide".to_string(),
            };
            let first = if subject_first { g.subject.words() } else { rule_words(&g.rule) };
            let link = Route::Object {
                resource: format!("{}s.rbac.authorization.k8s.io", g.binding_kind.to_lowercase()),
                namespace: g.binding_namespace.clone(),
                name: g.binding.clone(),
            }
            .link();
            let chain = g.chain();
            view! {
                <tr data-testid="grant" data-subject=g.subject.words() data-binding=g.binding.clone()
                    data-binding-kind=g.binding_kind data-role=g.role.clone()>
                    <td class="mono">{first}</td>
                    <td>{place}</td>
                    <td>{match link {
                        Some(href) => view! { <a href=href>{chain}</a> }.into_any(),
                        None => view! { <span>{chain}</span> }.into_any(),
                    }}</td>
                </tr>
            }
        })
        .collect_view();
    let first = if subject_first { "Subject" } else { "Rule" };
    view! {
        <table class="grid compact" data-testid=testid>
            <thead><tr><th>{first}</th><th>"Where"</th><th>"Granted by"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// A rule in words: `get list pods, pods/log` (with names and URLs).
fn rule_words(rule: &Rule) -> String {
    let verbs = rule.verbs.join(" ");
    if !rule.non_resource_urls.is_empty() {
        return format!("{verbs} {}", rule.non_resource_urls.join(", "));
    }
    let groups: Vec<&str> = rule.api_groups.iter().map(|g| if g.is_empty() { "core" } else { g }).collect();
    let mut s = format!("{verbs} {} ({})", rule.resources.join(", "), groups.join(", "));
    if !rule.resource_names.is_empty() {
        s = format!("{s} named {}", rule.resource_names.join(", "));
    }
    s
}
