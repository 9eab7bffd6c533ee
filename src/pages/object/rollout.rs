//! Rollout history: a Deployment's revisions from the ReplicaSets it owns, a StatefulSet's or DaemonSet's from its ControllerRevisions (images, change-cause, age), the pod-template diff of any two, and a confirmed, RBAC-checked roll back to one, as `kubectl rollout undo --to-revision` does.

use kubeglass_kubectl::actions::ActionKind;
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::k8s_openapi::api::apps::v1::{ControllerRevision, ReplicaSet};
use kubeglass_client::kube_core::{ApiResource, DynamicObject};
use leptos::prelude::*;
use serde_json::Value;

use crate::actions::Actions;
use crate::components::dialog::confirm;
use crate::components::problem::ProblemBox;
use crate::kube::Now;
use crate::kube::requests::access::may_update;
use crate::kube::stores::session::SessionState;
use crate::kube::subscribe::{collection_path, watch_problem};
use crate::kube::{Kube, Watch, use_kube};
use crate::rules::versions::{diff, short};
use crate::rules::rollout::{Revision, controller_revisions, current, revisions};
use crate::rules::time::{Seconds, age};

/// True for the kinds whose rollout history this shows.
pub fn has_rollout_history(info: &ResourceInfo) -> bool {
    info.group == "apps"
        && matches!(
            info.plural.as_str(),
            "deployments" | "statefulsets" | "daemonsets"
        )
}

/// Where a kind keeps its revisions: a Deployment in ReplicaSets, the others
/// in ControllerRevisions.
fn holders_of(info: &ResourceInfo) -> &'static str {
    if info.plural == "deployments" {
        "ReplicaSets"
    } else {
        "ControllerRevisions"
    }
}

/// The revisions found (and the one running now), and the two compared.
#[derive(Clone, Copy)]
struct Picked {
    found: Memo<(Vec<Revision>, Option<u64>)>,
    from: RwSignal<Option<u64>>,
    to: RwSignal<Option<u64>>,
}

impl Picked {
    /// The two revisions compared; by default the newest and the one before.
    fn chosen(self) -> (Option<u64>, Option<u64>) {
        let (revs, _) = self.found.get();
        let to = self.to.get().or_else(|| revs.first().map(|r| r.number));
        let from = self.from.get().or_else(|| revs.get(1).map(|r| r.number));
        (from, to)
    }
}

/// The "Rollout history" section of a Deployment's page.
#[component]
pub fn RolloutHistory(
    info: ResourceInfo,
    namespace: String,
    name: String,
    object: RwSignal<Option<Value>>,
    uid: Memo<Option<String>>,
) -> impl IntoView {
    let kube = use_kube();
    let now = expect_context::<Now>().0;
    let actions = expect_context::<Actions>();
    let may = may_roll_back(&kube, &info, &namespace, &name);
    let holders = holders_of(&info);
    let doing = format!("list its {holders}");
    let path = if holders == "ReplicaSets" {
        collection_path::<ReplicaSet>(&kube, Some(&namespace))
    } else {
        collection_path::<ControllerRevision>(&kube, Some(&namespace))
    };
    let path = match path {
        Ok(p) => p,
        Err(problem) => {
            return view! { <ProblemBox problem doing testid="rollout-error"/> }.into_any();
        }
    };
    let changed = Trigger::new();
    let watch = kube
        .subscribe("rollout-history", &path)
        .owner_index()
        .frames(move |_, _| changed.notify());
    let status = watch.status();
    let watch = StoredValue::new_local(watch);
    let picked = Picked {
        found: found_revisions(watch, changed, uid, object, holders),
        from: RwSignal::new(None::<u64>),
        to: RwSignal::new(None::<u64>),
    };
    let target = format!("{namespace}/{name}");
    let resource = StoredValue::new((info.api_resource(), namespace.clone(), name.clone()));
    let problem = move || {
        status.with(watch_problem).map(|p| {
            view! { <ProblemBox problem=p doing=doing.clone() testid="rollout-error"/> }
        })
    };
    view! {
        <h3>"Rollout history"</h3>
        {problem}
        <div class="table-scroll">
            <table class="grid" data-testid="rollout-history"
                data-rollback=move || match may.get() { None => "asking", Some(true) => "allowed", Some(false) => "refused" }>
                <thead><tr><th>"From"</th><th>"To"</th><th>"Revision"</th><th>"Age"</th><th>"Images"</th><th>"Change cause"</th><th></th></tr></thead>
                <tbody><RevisionRows picked may target resource actions now/></tbody>
            </table>
        </div>
        <TemplateDiff picked/>
    }
    .into_any()
}

/// Whether the person may roll the workload back (update it), None while
/// asking; never in a read-only session.
fn may_roll_back(
    kube: &Kube,
    info: &ResourceInfo,
    namespace: &str,
    name: &str,
) -> Signal<Option<bool>> {
    if expect_context::<SessionState>().read_only() {
        Signal::stored(Some(false))
    } else {
        let (kube, info, ns, name) = (
            kube.clone(),
            info.clone(),
            namespace.to_string(),
            name.to_string(),
        );
        let asked = kube
            .clone()
            .load(async move { may_update(&kube, &info, Some(&ns), &name).await });
        Signal::derive(move || asked.get())
    }
}

/// The object's revisions from the `holders` it owns, and the one running
/// now, anew on each frame of the watch.
fn found_revisions(
    watch: StoredValue<Watch<DynamicObject>, LocalStorage>,
    changed: Trigger,
    uid: Memo<Option<String>>,
    object: RwSignal<Option<Value>>,
    holders: &'static str,
) -> Memo<(Vec<Revision>, Option<u64>)> {
    Memo::new(move |_| {
        changed.track();
        let (Some(uid), Some(deployment)) = (uid.get(), object.get()) else {
            return (Vec::new(), None);
        };
        let sets: Vec<Value> = watch.with_value(|w| {
            w.owned_by(&uid)
                .iter()
                .filter_map(|rs| serde_json::to_value(rs.as_ref()).ok())
                .collect()
        });
        let revs = if holders == "ReplicaSets" {
            revisions(&deployment, &sets)
        } else {
            controller_revisions(&deployment, &sets)
        };
        // No template equal to the object's (a default the revision lacks):
        // the newest, as kubectl takes it.
        let now_at = current(&deployment, &revs).or_else(|| revs.first().map(|r| r.number));
        (revs, now_at)
    })
}

/// A row per revision: compared or not, number, age, images, change-cause, Roll back.
#[component]
fn RevisionRows(
    picked: Picked,
    may: Signal<Option<bool>>,
    target: String,
    resource: StoredValue<(ApiResource, String, String)>,
    actions: Actions,
    now: RwSignal<Seconds>,
) -> impl IntoView {
    let Picked { found, from, to } = picked;
    move || {
        let (revs, now_at) = found.get();
        let (f, t) = picked.chosen();
        let may = may.get() == Some(true);
        revs.into_iter()
            .map(|r| {
                let n = r.number;
                let created = r.created.map(|c| age(now.get(), c)).unwrap_or_default();
                let is_now = now_at == Some(n);
                let target = target.clone();
                let going = r.roll_back();
                let back = move |_| {
                    if confirm(&format!("Roll {target} back to revision {n}? Its pods are replaced with that revision's.")) {
                        let _ = resource.with_value(|(res, ns, name)| {
                            actions.submit(res.clone(), Some(ns), name, ActionKind::RollBack(going.clone()))
                        });
                    }
                };
                view! {
                    <tr data-testid="revision" data-revision=n.to_string()>
                        <td><input type="radio" name="rev-from" prop:checked=move || f == Some(n) on:change=move |_| from.set(Some(n))/></td>
                        <td><input type="radio" name="rev-to" prop:checked=move || t == Some(n) on:change=move |_| to.set(Some(n))/></td>
                        <td class="num">{n}{is_now.then(|| view! { <span class="badge" data-testid="revision-current">"now"</span> })}</td>
                        <td class="num">{created}</td>
                        <td data-testid="revision-images">{r.images.join(", ")}</td>
                        <td class="muted small" data-testid="revision-cause">{r.change_cause.unwrap_or_default()}</td>
                        <td>{(may && !is_now).then(|| view! { <button data-testid="rollback" on:click=back>{format!("Roll back to {n}")}</button> })}</td>
                    </tr>
                }
            })
            .collect_view()
    }
}

/// The pod template's diff between the two revisions compared.
#[component]
fn TemplateDiff(picked: Picked) -> impl IntoView {
    move || {
        let (revs, _) = picked.found.get();
        let (f, t) = picked.chosen();
        let pick = |n: Option<u64>| {
            revs.iter()
                .find(|r| Some(r.number) == n)
                .map(|r| r.template.clone())
        };
        let (Some(a), Some(b)) = (pick(f), pick(t)) else {
            return None;
        };
        let changes = diff(&a, &b);
        Some(view! {
            <p class="muted small">{format!("The pod template, revision {} → {}:", f.unwrap_or(0), t.unwrap_or(0))}</p>
            <table class="grid" data-testid="revision-diff">
                <tbody>
                    {changes.into_iter().map(|c| view! {
                        <tr data-testid="revision-diff-row">
                            <td><code>{c.path}</code></td>
                            <td class="diff-old">{c.old.as_ref().map(short).unwrap_or_else(|| "—".into())}</td>
                            <td class="diff-new">{c.new.as_ref().map(short).unwrap_or_else(|| "—".into())}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        })
    }
}
