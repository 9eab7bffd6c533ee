//! The person's actions: the client's rate-limited action queue, each action recorded as a Kubernetes Event by "kubeglass", and its outcome in words.
//!
//! # What it does
//!
//! The client's rate-limited `ActionQueue`, recorded as
//! Events by `kubeglass` (events.k8s.io/v1 when served), and the outcome of
//! the last action: done, a mistake in what was typed, or failed with the
//! client's typed error sorted into a `Problem` (the queue hands the
//! `rest::Error` itself to its listeners), so the banner says "You cannot
//! scale shop/web to 3" for a 403 and "the Kubernetes API cannot be
//! reached" for no answer, with the server's own message beside it;
//! provided as context to the overview's panels and every object page.
//! The queue's worker and the Event sink start with the first action
//! (`Actions::start_workers`), through the split point `actions::workers`:
//! their code is a part of the wasm of its own, and a tab that never acts
//! never loads it or probes the Events API. `bulk` runs an action on many
//! marked objects: each one's review, then only the allowed ones through
//! the queue (or drained node after node), each object's fate as it lands.

pub mod bulk;
pub mod drain;

use std::rc::Rc;

use crate::platform::spawn;
use kubeglass_client::clock::Clock;
use kubeglass_client::k8s_openapi::api::core::v1::ObjectReference;
use kubeglass_client::kube_core::{ApiResource, GroupVersionKind};
use kubeglass_client::record::{EventBroadcaster, EventRecorder, EventType};
use kubeglass_client::rest::RestClient;
use kubeglass_client::workqueue::QueueMetrics;
use kubeglass_kubectl::actions::{Action, ActionKind, ActionQueue, ActionResult, Submitted};
use leptos::prelude::*;

use crate::kube::Kube;
use crate::kube::requests::edit::Refused;
use crate::rules::problem::Problem;

/// The outcome of the last action, for a person to read.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// It was done: "Scaled shop/web to 3".
    Done(String),
    /// The cluster (or the way to it) refused or failed: what was being
    /// done ("scale shop/web") and the kind of failure, so forbidden, not
    /// found, unreachable and invalid each get their own words.
    Failed {
        /// What could not be done, as a verb phrase.
        doing: String,
        /// Why, typed.
        problem: Problem,
    },
    /// A mistake in what the person typed; nothing was sent.
    Mistake(String),
}

impl Outcome {
    /// The sentence a banner shows.
    pub fn text(&self) -> String {
        match self {
            Outcome::Done(t) | Outcome::Mistake(t) => t.clone(),
            Outcome::Failed { doing, problem } => problem.explain(doing),
        }
    }
}

/// How a write that a page holds ended: written, or why not (a conflict
/// is one). `None` (the queue went away before it ran) reads as a failure.
pub fn written(result: Option<ActionResult>) -> Result<(), Refused> {
    match result {
        Some(ActionResult::Done { .. }) => Ok(()),
        Some(ActionResult::Failed { error }) => Err(Refused::from_error(&error)),
        None => Err(Refused {
            conflict: false,
            causes: Vec::new(),
            problem: Problem::Other("the page's action queue stopped before it ran".into()),
        }),
    }
}

/// One submitted action's own result, to `.await` (or to drop: the action
/// runs either way, and the outcome line shows how it ended). `None` when
/// the queue went away first.
pub struct Answer(Option<Submitted>);

impl std::future::IntoFuture for Answer {
    type Output = Option<ActionResult>;
    type IntoFuture =
        futures::future::Either<Submitted, futures::future::Ready<Option<ActionResult>>>;

    fn into_future(self) -> Self::IntoFuture {
        match self.0 {
            Some(s) => futures::future::Either::Left(s),
            None => futures::future::Either::Right(futures::future::ready(None)),
        }
    }
}

/// The action queue and the last outcome; provided as context.
#[derive(Clone, Copy)]
pub struct Actions {
    /// The last action's outcome (or a mistake in what the person typed).
    pub last: RwSignal<Option<Outcome>>,
    queue: StoredValue<Option<ActionQueue>, LocalStorage>,
    /// What the queue's and the recorder's workers need, until the first
    /// action starts them (`workers::start`).
    idle: StoredValue<Option<Idle>, LocalStorage>,
    /// Records Events from `kubeglass` for what runs outside the queue (a
    /// drain); the broadcaster's sink writes them once the workers run.
    recorder: StoredValue<Option<EventRecorder>, LocalStorage>,
}

/// The queue, the broadcaster, the client and the clock, before the first
/// action.
type Idle = (ActionQueue, EventBroadcaster, RestClient, Rc<dyn Clock>);

/// What `action` came to: "Scaled shop/web to 3", or that "scale shop/web"
/// failed and why.
pub fn outcome_text(action: &Action, result: &ActionResult) -> Outcome {
    let target = match &action.namespace {
        Some(ns) => format!("{ns}/{}", action.name),
        None => action.name.clone(),
    };
    let done = match (result, &action.kind) {
        (ActionResult::Failed { error }, kind) => {
            let doing = match kind {
                ActionKind::Scale(n) => format!("scale {target} to {n}"),
                ActionKind::Delete => format!("delete {target}"),
                ActionKind::RestartRollout => format!("restart the rollout of {target}"),
                ActionKind::Cordon(true) => format!("cordon {target}"),
                ActionKind::Cordon(false) => format!("uncordon {target}"),
                ActionKind::Labels(_) => format!("set the labels of {target}"),
                ActionKind::Annotations(_) => format!("set the annotations of {target}"),
                ActionKind::Edit(_) => format!("write the edit of {target}"),
                ActionKind::RollBack(to) => {
                    format!("roll {target} back to revision {}", to.revision)
                }
                ActionKind::Create(_) => format!("create {} {target}", action.resource.kind),
            };
            return Outcome::Failed {
                doing,
                problem: Problem::from_error(error),
            };
        }
        (ActionResult::Done { .. }, ActionKind::Scale(n)) => format!("Scaled {target} to {n}"),
        (ActionResult::Done { .. }, ActionKind::Delete) => format!("Deleted {target}"),
        (ActionResult::Done { .. }, ActionKind::RestartRollout) => {
            format!("Restarted the rollout of {target}")
        }
        (ActionResult::Done { .. }, ActionKind::Cordon(true)) => format!("Cordoned {target}"),
        (ActionResult::Done { .. }, ActionKind::Cordon(false)) => format!("Uncordoned {target}"),
        (ActionResult::Done { .. }, ActionKind::Labels(_)) => format!("Labels of {target} set"),
        (ActionResult::Done { .. }, ActionKind::Annotations(_)) => {
            format!("Annotations of {target} set")
        }
        (ActionResult::Done { .. }, ActionKind::Edit(_)) => format!("Edited {target}"),
        (
            ActionResult::Done {
                unchanged: true, ..
            },
            ActionKind::RollBack(to),
        ) => format!(
            "Skipped rolling {target} back: its pod template already matches revision {}",
            to.revision
        ),
        (ActionResult::Done { .. }, ActionKind::RollBack(to)) => {
            format!("Rolled {target} back to revision {}", to.revision)
        }
        (ActionResult::Done { .. }, ActionKind::Create(_)) => {
            format!("Created {} {target}", action.resource.kind)
        }
    };
    match result {
        ActionResult::Done {
            answer_lost: true, ..
        } => Outcome::Done(format!(
            "{done} (the server's answer was lost; reading it back shows it was done)"
        )),
        _ => Outcome::Done(done),
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
            idle: StoredValue::new_local(None),
            recorder: StoredValue::new_local(None),
        };
        let (client, clock) = (kube.client().clone(), kube.clock());
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
        this.recorder
            .set_value(Some(broadcaster.recorder("kubeglass", clock.clone())));
        // Every outcome in the app-wide line; each page that wants its own
        // write's answer awaits what `submit` gave it.
        queue.on_result(move |a, r| this.last.set(Some(outcome_text(a, r))));
        // The workers start with the first action: their code (the queue's
        // retries, the Event sink and its probe) is a part of the wasm of
        // its own, which a tab that never acts does not load.
        this.idle
            .set_value(Some((queue.clone(), broadcaster, client, clock)));
        this.queue.set_value(Some(queue));
        this
    }

    /// Records an Event from `kubeglass` about `object` (a drain's start and
    /// end), and starts the workers that write it.
    pub fn record(&self, object: &ObjectReference, warning: bool, reason: &str, message: &str) {
        let type_ = if warning {
            EventType::Warning
        } else {
            EventType::Normal
        };
        self.recorder
            .with_value(|r| r.as_ref().map(|r| r.event(object, type_, reason, message)));
        self.start_workers();
    }

    /// The queue's metrics (client-go's work queue names), for X-ray.
    pub fn metrics(&self) -> Option<QueueMetrics> {
        self.queue
            .with_value(|a| a.as_ref().map(|a| a.queue().queue().metrics()))
    }

    /// Queues `kind` on the object `namespace/name` of `resource`; returns
    /// that action's own result, for a page that holds it (a Leptos
    /// `Action` awaiting it), or to drop (the app-wide outcome line shows
    /// every result either way).
    pub fn submit(
        &self,
        resource: ApiResource,
        namespace: Option<&str>,
        name: &str,
        kind: ActionKind,
    ) -> Answer {
        let submitted = self.queue.with_value(|a| {
            a.as_ref().map(|a| {
                a.submit(Action {
                    resource,
                    namespace: namespace.map(String::from),
                    name: name.to_string(),
                    kind,
                })
            })
        });
        self.start_workers();
        Answer(submitted)
    }

    /// Starts the queue's and the recorder's workers, once: the submitted
    /// action waits in the queue until they run. If their part of the wasm
    /// does not load, the outcome says so.
    fn start_workers(&self) {
        let Some((queue, broadcaster, client, clock)) =
            self.idle.try_update_value(Option::take).flatten()
        else {
            return;
        };
        let last = self.last;
        spawn(async move {
            if let Err(e) = workers::start(queue, broadcaster, client, clock).await {
                let _ = last.try_set(Some(Outcome::Failed {
                    doing: "start the actions".into(),
                    problem: Problem::Unreachable(format!(
                        "their code did not load ({e}); reload the tab"
                    )),
                }));
            }
        });
    }

    /// Shows a mistake in what the person typed where outcomes show.
    pub fn mistake(&self, text: String) {
        self.last.set(Some(Outcome::Mistake(text)));
    }
}

/// The split point of the actions' workers (see `pages::parts` for how
/// parts load).
mod workers {
    // The split macro's loader statics are `unsafe`; nothing else here is.
    #![allow(unsafe_code)]

    use std::rc::Rc;

    use kubeglass_client::clock::Clock;
    use kubeglass_client::record::{ApiSink, EventBroadcaster};
    use kubeglass_client::rest::RestClient;
    use kubeglass_kubectl::actions::ActionQueue;
    use leptos::wasm_split::{SplitLoaderError, wasm_split};

    use crate::platform::spawn;

    /// Runs the Event recorder's sink (events.k8s.io/v1 when the server has
    /// it, probed first) and the action queue's worker.
    #[wasm_split(actions, wasm_split_path = ::leptos::wasm_split, fallible)]
    pub fn start(
        queue: ActionQueue,
        broadcaster: EventBroadcaster,
        client: RestClient,
        clock: Rc<dyn Clock>,
    ) -> Result<(), SplitLoaderError> {
        spawn(async move {
            let sink = ApiSink::probe(client, clock.clone()).await;
            leptos::logging::log!("recording events through {:?}", sink.api());
            broadcaster.run(Rc::new(sink), clock).await;
        });
        spawn(queue.run());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass_client::rest::{ApiError, Error};
    use kubeglass_client::transport::TransportError;

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
        let done = ActionResult::Done {
            attempts: 1,
            answer_lost: false,
            unchanged: false,
        };
        assert_eq!(
            outcome_text(&action(Some("shop"), ActionKind::Scale(3)), &done),
            Outcome::Done("Scaled shop/web to 3".into())
        );
        assert_eq!(
            outcome_text(&action(None, ActionKind::Cordon(true)), &done).text(),
            "Cordoned web"
        );
        let lost = ActionResult::Done {
            attempts: 1,
            answer_lost: true,
            unchanged: false,
        };
        assert_eq!(
            outcome_text(&action(Some("shop"), ActionKind::Delete), &lost).text(),
            "Deleted shop/web (the server's answer was lost; reading it back shows it was done)"
        );
        assert_eq!(
            outcome_text(
                &action(Some("shop"), ActionKind::Create(serde_json::json!({}))),
                &done
            )
            .text(),
            "Created Deployment shop/web"
        );
    }

    #[test]
    fn a_failed_action_says_which_kind_of_failure_it_was() {
        let api = |code: u16, message: &str| {
            let status = serde_json::json!({
                "kind": "Status", "status": "Failure", "code": code, "message": message,
            });
            let body = status.to_string();
            ActionResult::Failed {
                error: Error::Api(Box::new(ApiError::from_response(
                    code,
                    body.as_bytes(),
                    None,
                ))),
            }
        };
        let forbidden = outcome_text(
            &action(Some("shop"), ActionKind::Delete),
            &api(403, "deployments.apps \"web\" is forbidden"),
        );
        let Outcome::Failed { doing, problem } = &forbidden else {
            panic!("{forbidden:?}")
        };
        assert_eq!(doing, "delete shop/web");
        assert_eq!(problem.word(), "forbidden");
        assert_eq!(
            forbidden.text(),
            "You cannot delete shop/web: your account is not allowed to."
        );
        let gone = outcome_text(
            &action(Some("shop"), ActionKind::Scale(2)),
            &api(404, "deployments.apps \"web\" not found"),
        );
        assert!(
            gone.text()
                .starts_with("Could not scale shop/web to 2: the server has no such thing"),
            "{gone:?}"
        );
        let down = outcome_text(
            &action(None, ActionKind::Cordon(false)),
            &ActionResult::Failed {
                error: Error::Transport(TransportError::Connect("refused".into())),
            },
        );
        assert!(down.text().contains("uncordon web") && down.text().contains("cannot be reached"));
        let bad = outcome_text(
            &action(Some("shop"), ActionKind::Labels(vec![])),
            &api(422, "metadata.labels: Invalid value"),
        );
        assert!(
            bad.text()
                .contains("set the labels of shop/web: the request is not valid")
        );
    }
}
