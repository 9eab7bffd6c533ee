//! Actions on many objects: each object's review (`Reviews::each`: one per namespace, then by name where the namespace says no), then what the person confirmed, only for the objects allowed: through the action queue, or one node's drain after another; each object's fate as it lands.

use kubeglass_client::kube_core::ApiResource;
use kubeglass_kubectl::access::{Access, MAX_NAMED, Reviews};
use kubeglass_kubectl::actions::{Action, ActionKind, ActionResult};
use kubeglass_kubectl::drain::{DrainEnd, DrainOptions, PodState, Report};
use leptos::prelude::*;

use super::drain::drain_node;
use super::{Actions, Outcome, outcome_text};
use crate::kube::Kube;
use crate::rules::bulk::{BulkVerb, Fate, Work, fate_of_verdict};
use crate::rules::objects::split_key;

/// The objects of one bulk action, in the order shown, each with its fate.
#[derive(Clone)]
pub struct BulkRun {
    /// What is done.
    pub verb: BulkVerb,
    /// The objects: `namespace/name`, or `name` for cluster-scoped ones.
    pub keys: Vec<String>,
    /// Each object's fate, beside `keys`.
    pub fates: Vec<RwSignal<Fate>>,
}

/// Starts asking whether the person may `verb` each of `keys` of
/// `resource`; the fates go from checking to allowed or refused (and why).
pub fn check(
    kube: &Kube,
    reviews: Reviews,
    resource: &ApiResource,
    verb: BulkVerb,
    keys: Vec<String>,
) -> BulkRun {
    let fates: Vec<RwSignal<Fate>> = keys.iter().map(|_| RwSignal::new(Fate::Checking)).collect();
    let run = BulkRun { verb, keys, fates };
    let (what, plural) = (
        verb.access(&resource.group, &resource.plural),
        resource.plural.clone(),
    );
    let (keys, fates) = (run.keys.clone(), run.fates.clone());
    kube.spawn(async move {
        // A drain evicts in every namespace: allowed once for all, or for none.
        if let Some(once) = verb.access_once() {
            let why = match reviews.ask(&once).await {
                Ok(Access::Allowed) => None,
                Ok(Access::Denied { .. }) => {
                    Some("you may not evict pods (create pods/eviction)".to_string())
                }
                Err(e) => Some(format!("the cluster could not be asked ({e})")),
            };
            if let Some(why) = why {
                for f in &fates {
                    let _ = f.try_set(Fate::Refused {
                        sent: false,
                        why: why.clone(),
                    });
                }
                return;
            }
        }
        let objects: Vec<_> = keys.iter().map(|k| split_key(k)).collect();
        let verdicts = reviews.each(&what, &objects, MAX_NAMED).await;
        for ((v, key), f) in verdicts.iter().zip(&keys).zip(&fates) {
            let _ = f.try_set(fate_of_verdict(v, verb, &plural, key));
        }
    });
    run
}

/// May the person `verb` at least one of `keys`? Asked of at most
/// `named` objects by name (the answers are kept in `reviews`).
pub async fn may_some(
    reviews: &Reviews,
    resource: &ApiResource,
    verb: BulkVerb,
    keys: &[String],
    named: usize,
) -> bool {
    if let Some(once) = verb.access_once()
        && !matches!(reviews.ask(&once).await, Ok(Access::Allowed))
    {
        return false;
    }
    let objects: Vec<_> = keys.iter().map(|k| split_key(k)).collect();
    let what = verb.access(&resource.group, &resource.plural);
    reviews
        .each(&what, &objects, named)
        .await
        .iter()
        .any(|v| v.allowed())
}

/// Does `work` to every allowed object of `run`: queued actions each land
/// their own result; drains run one node after another.
pub fn start(
    kube: &Kube,
    actions: Actions,
    resource: ApiResource,
    run: &BulkRun,
    work: Work,
    drain: DrainOptions,
) {
    let allowed: Vec<(String, RwSignal<Fate>)> = run
        .keys
        .iter()
        .zip(&run.fates)
        .filter(|(_, f)| f.get_untracked() == Fate::Allowed)
        .map(|(k, f)| (k.clone(), *f))
        .collect();
    for (_, f) in &allowed {
        f.set(Fate::Queued);
    }
    match work {
        Work::Queue(kind) => {
            for (key, fate) in allowed {
                queue_one(kube, actions, &resource, key, kind.clone(), fate);
            }
        }
        Work::Drain => {
            let kube2 = kube.clone();
            kube.spawn(async move {
                for (node, fate) in allowed {
                    drain_one(&kube2, actions, &node, drain, fate).await;
                }
            });
        }
    }
}

/// Submits `kind` on `key` and sets its fate when its own result comes.
fn queue_one(
    kube: &Kube,
    actions: Actions,
    resource: &ApiResource,
    key: String,
    kind: ActionKind,
    fate: RwSignal<Fate>,
) {
    let (namespace, name) = split_key(&key);
    let answer = actions.submit(resource.clone(), namespace.as_deref(), &name, kind.clone());
    let action = Action {
        resource: resource.clone(),
        namespace,
        name,
        kind,
    };
    kube.spawn(async move {
        let _ = fate.try_set(fate_of_result(&action, answer.await));
    });
}

/// An action's result as its object's fate: a refusal by the cluster
/// (forbidden) is told apart from a failure.
fn fate_of_result(action: &Action, result: Option<ActionResult>) -> Fate {
    let Some(result) = result else {
        return Fate::Failed("the action queue stopped before it ran".into());
    };
    match outcome_text(action, &result) {
        Outcome::Done(words) | Outcome::Mistake(words) => Fate::Done(words),
        o @ Outcome::Failed { .. } => {
            let forbidden =
                matches!(&o, Outcome::Failed { problem, .. } if problem.word() == "forbidden");
            if forbidden {
                Fate::Refused {
                    sent: true,
                    why: o.text(),
                }
            } else {
                Fate::Failed(o.text())
            }
        }
    }
}

/// Drains `node` as its page does (recorded as Events from `kubeglass`),
/// its progress in `fate`.
async fn drain_one(
    kube: &Kube,
    actions: Actions,
    node: &str,
    options: DrainOptions,
    fate: RwSignal<Fate>,
) {
    let _ = fate.try_set(Fate::Running("cordoning".into()));
    // (planned, gone, left): the progress in words as it goes.
    let counts = std::rc::Rc::new(std::cell::RefCell::new((0usize, 0usize, 0usize)));
    let report = move |r: Report| {
        let mut c = counts.borrow_mut();
        match r {
            Report::Cordoned => {}
            Report::Planned(all) => c.0 = all.len(),
            Report::Pod(_, PodState::Gone) => c.1 += 1,
            Report::Pod(_, PodState::Left(_)) => c.2 += 1,
            Report::Pod(..) => {}
        }
        let _ = fate.try_set(Fate::Running(format!(
            "{} of {} pods evicted and gone",
            c.1,
            c.0 - c.2
        )));
    };
    let (end, (_, words)) = drain_node(kube, actions, node, options, report).await;
    let drained = end == DrainEnd::Drained;
    let _ = fate.try_set(if drained {
        Fate::Done(words)
    } else {
        Fate::Failed(words)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass_client::rest::{ApiError, Error};

    fn delete(name: &str) -> Action {
        Action {
            resource: crate::actions::deployments(),
            namespace: Some("shop".into()),
            name: name.into(),
            kind: ActionKind::Delete,
        }
    }

    fn failed(code: u16, message: &str) -> Option<ActionResult> {
        let body = serde_json::json!({"kind": "Status", "status": "Failure", "code": code, "message": message})
            .to_string();
        Some(ActionResult::Failed {
            error: Error::Api(Box::new(ApiError::from_response(
                code,
                body.as_bytes(),
                None,
            ))),
        })
    }

    #[test]
    fn each_result_is_its_objects_fate_and_a_refusal_is_not_a_failure() {
        let done = Some(ActionResult::Done {
            attempts: 1,
            answer_lost: false,
            unchanged: false,
        });
        assert_eq!(
            fate_of_result(&delete("a"), done),
            Fate::Done("Deleted shop/a".into())
        );
        let refused = fate_of_result(
            &delete("b"),
            failed(403, "deployments.apps \"b\" is forbidden"),
        );
        assert!(
            matches!(&refused, Fate::Refused { sent: true, why } if why.starts_with("You cannot delete shop/b")),
            "{refused:?}"
        );
        let gone = fate_of_result(
            &delete("c"),
            failed(404, "deployments.apps \"c\" not found"),
        );
        assert!(
            matches!(&gone, Fate::Failed(w) if w.contains("delete shop/c")),
            "{gone:?}"
        );
        assert!(matches!(
            fate_of_result(&delete("d"), None),
            Fate::Failed(_)
        ));
    }
}
