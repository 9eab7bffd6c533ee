//! An object page's actions: the ones the kind has and the person's RBAC allows, each confirmed and recorded as an Event; Edit opens the editor.

use kubeglass_kubectl::actions::ActionKind;
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::kube_core::ApiResource;
use leptos::prelude::*;
use serde_json::Value;

use crate::actions::Actions;
use crate::components::dialog::{ask_label_changes, confirm, prompt};
use crate::components::outcome::ActionOutcome;
use crate::kube::requests::access::{Allowed, allowed_actions};
use crate::kube::stores::session::SessionState;
use crate::kube::use_kube;
use crate::rules::objects::{KindActions, Refused, parse_replicas, refused};

/// What the page knows of the person's rights.
#[derive(Debug, Clone, PartialEq)]
enum Rights {
    /// Still asking.
    Asking,
    /// The session's proxy refuses every write.
    ReadOnlySession,
    /// The cluster's answer (or why it could not be asked).
    Known(Allowed),
}

/// The object an action acts on: its resource, namespace and name.
type Resource = StoredValue<(ApiResource, Option<String>, String)>;

/// The action buttons and the last outcome.
#[component]
pub fn ObjectActions(
    info: ResourceInfo,
    namespace: Option<String>,
    name: String,
    object: RwSignal<Option<Value>>,
    editing: RwSignal<bool>,
) -> impl IntoView {
    let actions = expect_context::<Actions>();
    let rights = rights_of(&info, &namespace, &name);
    let kind = KindActions::of(&info);
    let target = match &namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.clone(),
    };
    let (plural, in_namespace) = (info.plural.clone(), namespace.clone());
    let resource = StoredValue::new((info.api_resource(), namespace, name));
    let kind_name = info.kind.clone();
    let buttons = move || {
        let a = match rights.get() {
            Rights::Asking => {
                return view! { <span class="muted small">"checking what you may do…"</span> }
                    .into_any();
            }
            Rights::ReadOnlySession => {
                return view! { <span class="muted small" data-testid="no-actions">"This session is read-only: its proxy refuses every write."</span> }.into_any();
            }
            Rights::Known(a) => a,
        };
        if let Some(p) = a.problem.clone() {
            return view! {
                <span class="muted small" data-testid="access-error" data-problem=p.word() role="alert">
                    "Could not ask the cluster what you may do here: " {p.detail().to_string()}
                </span>
            }
            .into_any();
        }
        let withheld = refused(&kind, [a.delete, a.patch, a.scale, a.update], &plural, in_namespace.as_deref());
        let withheld = withheld.into_iter().map(refused_button).collect_view();
        if a.nothing() {
            return view! { <span class="muted small" data-testid="no-actions">"Your access is read-only here."</span> {withheld} }.into_any();
        }
        let (target, kind_name) = (target.clone(), kind_name.clone());
        view! { <ActionButtons allowed=a kind target kind_name resource object editing actions/> {withheld} }
            .into_any()
    };
    view! {
        <ActionOutcome/>
        <div class="actions" data-testid="object-actions">{buttons}</div>
    }
}

/// A button RBAC withholds: shown greyed, its reason on hover (a title,
/// and for screen readers the same words), and it does nothing.
fn refused_button(r: Refused) -> impl IntoView {
    view! {
        <button class="refused" aria-disabled="true" data-testid="action-refused" data-action=r.action
            title=r.why.clone() aria-label=format!("{}: {}", r.label, r.why)>{r.label}</button>
    }
}

/// The person's rights on the object: asked of the cluster, unless the session is read-only.
fn rights_of(info: &ResourceInfo, namespace: &Option<String>, name: &str) -> Signal<Rights> {
    if expect_context::<SessionState>().read_only() {
        Signal::stored(Rights::ReadOnlySession)
    } else {
        let (kube, info, ns, name) = (
            use_kube(),
            info.clone(),
            namespace.clone(),
            name.to_string(),
        );
        let asked = kube
            .clone()
            .load(async move { allowed_actions(&kube, &info, ns.as_deref(), &name).await });
        Signal::derive(move || asked.get().map_or(Rights::Asking, Rights::Known))
    }
}

/// The buttons of the actions the kind has and the person may do, on `target`.
#[component]
fn ActionButtons(
    allowed: Allowed,
    kind: KindActions,
    target: String,
    kind_name: String,
    resource: Resource,
    object: RwSignal<Option<Value>>,
    editing: RwSignal<bool>,
    actions: Actions,
) -> impl IntoView {
    let a = allowed;
    // The outcome line shows how it ended; nothing here awaits it.
    let submit = move |kind: ActionKind| {
        let _ = resource.with_value(|(r, ns, n)| actions.submit(r.clone(), ns.as_deref(), n, kind));
    };
    let act = move |kind: ActionKind, question: String| {
        move |_| {
            if confirm(&question) {
                submit(kind.clone());
            }
        }
    };
    let labels_prompt = {
        let target = target.clone();
        move |_| match ask_label_changes(&target) {
            Some(Ok(kind)) => submit(kind),
            Some(Err(e)) => actions.mistake(e),
            None => {}
        }
    };
    let scale_prompt = {
        let target = target.clone();
        move |_| ask_scale(&target, object, actions, submit)
    };
    let t = target.clone();
    view! {
        {a.scale.then(|| view! { <button data-testid="action-scale" on:click=scale_prompt.clone()>"Scale…"</button> })}
        {(a.patch && kind.restart).then(|| view! { <button data-testid="action-restart" on:click=act(ActionKind::RestartRollout, format!("Restart the rollout of {t}?"))>"Restart rollout"</button> })}
        {(a.patch && kind.cordon).then(|| view! {
            <button data-testid="action-cordon" on:click=act(ActionKind::Cordon(true), format!("Cordon {}?", target.clone()))>"Cordon"</button>
            <button data-testid="action-uncordon" on:click=act(ActionKind::Cordon(false), format!("Uncordon {}?", target.clone()))>"Uncordon"</button>
        })}
        {a.update.then(|| view! { <button data-testid="action-edit" on:click=move |_| editing.set(true)>"Edit"</button> })}
        {a.patch.then(|| view! { <button data-testid="action-labels" on:click=labels_prompt.clone()>"Labels…"</button> })}
        {a.delete.then(|| view! { <button class="danger" data-testid="action-delete" on:click=act(ActionKind::Delete, format!("Delete {} {}?", kind_name.clone(), target.clone()))>"Delete"</button> })}
    }
}

/// Asks how many replicas `target` should have (offering the number now)
/// and scales it, or says why the answer does not do.
fn ask_scale(
    target: &str,
    object: RwSignal<Option<Value>>,
    actions: Actions,
    submit: impl Fn(ActionKind),
) {
    let current = object.with_untracked(|o| {
        o.as_ref()
            .and_then(|o| o.pointer("/spec/replicas"))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    });
    let Some(text) = prompt(
        &format!("Scale {target} to how many replicas?"),
        &current.to_string(),
    ) else {
        return;
    };
    match parse_replicas(target, &text) {
        Ok(n) => submit(ActionKind::Scale(n)),
        Err(e) => actions.mistake(e),
    }
}
