//! The person's actions: the client's rate-limited action queue, each action recorded as a Kubernetes Event by "kubeglass", and its outcome in words.

use std::rc::Rc;

use kubeglass_client::actions::{Action, ActionKind, ActionQueue, ActionResult};
use kubeglass_client::kube_core::{ApiResource, GroupVersionKind};
use kubeglass_client::record::{ApiSink, EventBroadcaster};
use kubeglass_client::workqueue::QueueMetrics;
use kubeglass_web::spawn;
use leptos::prelude::*;

use crate::kube::Kube;

/// The outcome of the last action, for a person to read.
pub type Outcome = Result<String, String>;

/// The action queue and the last outcome; provided as context.
#[derive(Clone, Copy)]
pub struct Actions {
    /// The last action's outcome (or a mistake in what the person typed).
    pub last: RwSignal<Option<Outcome>>,
    queue: StoredValue<Option<ActionQueue>, LocalStorage>,
}

/// What `action` came to, in words: "Scaled shop/web to 3", or the error
/// naming its target.
pub fn outcome_text(action: &Action, result: &ActionResult) -> Outcome {
    let target = match &action.namespace {
        Some(ns) => format!("{ns}/{}", action.name),
        None => action.name.clone(),
    };
    match (result, &action.kind) {
        (ActionResult::Failed { error }, _) => Err(format!("{target}: {error}")),
        (ActionResult::Done { .. }, ActionKind::Scale(n)) => Ok(format!("Scaled {target} to {n}")),
        (ActionResult::Done { .. }, ActionKind::Delete) => Ok(format!("Deleted {target}")),
        (ActionResult::Done { .. }, ActionKind::RestartRollout) => {
            Ok(format!("Restarted the rollout of {target}"))
        }
        (ActionResult::Done { .. }, ActionKind::Cordon(true)) => Ok(format!("Cordoned {target}")),
        (ActionResult::Done { .. }, ActionKind::Cordon(false)) => {
            Ok(format!("Uncordoned {target}"))
        }
        (ActionResult::Done { .. }, ActionKind::Labels(_)) => Ok(format!("Labels of {target} set")),
    }
}

/// Deployments as the action queue addresses them.
pub fn deployments() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apps", "v1", "Deployment"),
        "deployments",
    )
}

/// Nodes as the action queue addresses them.
pub fn nodes() -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("", "v1", "Node"), "nodes")
}

impl Actions {
    /// Starts the queue; events.k8s.io/v1 (with series) records them when
    /// the server serves it, core/v1 otherwise (events recorded meanwhile
    /// wait in the broadcaster's queue).
    pub fn start(kube: &Kube) -> Self {
        let this = Self {
            last: RwSignal::new(None),
            queue: StoredValue::new_local(None),
        };
        let (client, clock) = (kube.client.clone(), kube.clock.clone());
        let broadcaster = EventBroadcaster::new();
        broadcaster.watch(|e| {
            leptos::logging::log!(
                "event {} {}: {}",
                e.type_.as_deref().unwrap_or(""),
                e.reason.as_deref().unwrap_or(""),
                e.message.as_deref().unwrap_or("")
            );
        });
        let queue = ActionQueue::new(
            client.clone(),
            broadcaster.recorder("kubeglass", clock.clone()),
            clock.clone(),
        );
        queue.on_result(move |a, r| this.last.set(Some(outcome_text(a, r))));
        spawn(async move {
            let sink = ApiSink::probe(client, clock.clone()).await;
            leptos::logging::log!("recording events through {:?}", sink.api());
            broadcaster.run(Rc::new(sink), clock).await;
        });
        spawn(queue.clone().run());
        this.queue.set_value(Some(queue));
        this
    }

    /// The queue's metrics (client-go's work queue names), for X-ray.
    pub fn metrics(&self) -> Option<QueueMetrics> {
        self.queue
            .with_value(|a| a.as_ref().map(|a| a.queue().queue().metrics()))
    }

    /// Queues `kind` on the object `namespace/name` of `resource`.
    pub fn submit(
        &self,
        resource: ApiResource,
        namespace: Option<&str>,
        name: &str,
        kind: ActionKind,
    ) {
        self.queue.with_value(|a| {
            if let Some(a) = a {
                a.submit(Action {
                    resource,
                    namespace: namespace.map(String::from),
                    name: name.to_string(),
                    kind,
                });
            }
        });
    }

    /// Shows a mistake in what the person typed where outcomes show.
    pub fn mistake(&self, text: String) {
        self.last.set(Some(Err(text)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(ns: Option<&str>, kind: ActionKind) -> Action {
        Action {
            resource: deployments(),
            namespace: ns.map(String::from),
            name: "web".into(),
            kind,
        }
    }

    #[test]
    fn outcomes_name_the_target_and_what_happened() {
        let done = ActionResult::Done { attempts: 1 };
        assert_eq!(
            outcome_text(&action(Some("shop"), ActionKind::Scale(3)), &done),
            Ok("Scaled shop/web to 3".into())
        );
        assert_eq!(
            outcome_text(&action(None, ActionKind::Cordon(true)), &done),
            Ok("Cordoned web".into())
        );
        let failed = ActionResult::Failed {
            error: "deployments.apps \"web\" is forbidden".into(),
        };
        assert_eq!(
            outcome_text(&action(Some("shop"), ActionKind::Delete), &failed),
            Err("shop/web: deployments.apps \"web\" is forbidden".into())
        );
    }
}
