//! User actions (scale, delete, restart rollout, cordon/uncordon, edit labels,
//! annotations, edit, create, roll back) through a rate-limited work queue, retried where
//! a retry cannot do harm, and recorded as Kubernetes Events by the app's
//! [`EventRecorder`]; one function per verb in [`verbs`], as kubectl has one
//! helper per verb.
//!
//! Writes that set a state (scale, cordon, labels, roll back) read the
//! object, change it and write it back with its resourceVersion, so a
//! concurrent change answers 409 Conflict; the action is then re-queued with
//! the default controller rate limiter and re-reads before trying again.
//! A restart's timestamp is taken once, when it is asked for, so a retry
//! writes the same stamp and cannot restart twice.
//!
//! Create, delete and edit are never repeated blindly: after an ambiguous
//! failure (a 5xx, a timeout, a connection lost once the request was sent)
//! the write may or may not have been applied, so [`find_out`] reads the
//! object first and the action ends with what is true ("created; the
//! server's answer was lost"), or is tried again only when the read shows
//! it was not applied.
//!
//! # Writes, as kubectl would make them
//!
//! The person's writes go through `actions::ActionQueue` (rate limited,
//! recorded as Events), one function per verb in `actions::verbs`:
//!
//! - **Edit** sends what the person changed, as `kubectl edit` does:
//!   `actions::patch::merge_patch` of the object as opened (without `status`
//!   and managedFields) and the text saved, with `metadata.resourceVersion`
//!   set to the version the edit began from, so a concurrent change is a 409
//!   and the conflict screen (`model::edit::edit_patch`). The Review is the
//!   same patch with `dryRun=All`, compared with the object now, `status`
//!   included where discovery says the resource has no `status` subresource.
//!   Fields the person did not touch, `status` above all, are never sent, so
//!   a custom resource without a status subresource keeps its status.
//!   Deliberate deviation: kubectl sends a strategic merge patch for built-in
//!   kinds and a JSON merge patch for custom resources; Kubeglass sends a JSON
//!   merge patch for every kind. Held to the resourceVersion the edit began
//!   from, both store the same object: they differ only in how a changed
//!   list is written (whole, or element by merge key), and the precondition
//!   rules out a list that changed meanwhile. A strategic patch needs each
//!   field's merge keys, which only the OpenAPI schema knows.
//! - **No write is repeated blindly.** After an ambiguous failure (a 5xx, a
//!   timeout, a connection lost after the request went out; not a refused
//!   connection, not a 429) a create, delete or edit is not sent again:
//!   `actions::find_out` reads the object first. A create is done when an
//!   object of that name exists with `kubeglass` among its field managers
//!   (every create is sent with `fieldManager=kubeglass`), sent again when
//!   there is none, and refused otherwise; a delete is done when the object
//!   is gone or terminating; an edit is done when the object holds every field
//!   the patch sets, sent again when it is still at the version the edit
//!   began from, and a conflict otherwise. The outcome says when the answer
//!   was lost ("Deleted shop/web (the server's answer was lost; reading it
//!   back shows it was done)"). Scale, cordon, labels and roll back set a
//!   state from a fresh read and are repeated; a restart's stamp is taken
//!   once, when it is asked for, so sending it again changes nothing.
//!
//! Each write's kind → resource mapping is confirmed against live discovery
//! (`DiscoveryClient::confirm`) before it is sent; a live confirmation is
//! kept for `verbs::CONFIRMED_FOR` (10 s), so the writes of one bulk action
//! share it.
//!
//! # The queue
//!
//! `actions` runs what a person asks for (scale, delete, restart rollout,
//! cordon/uncordon, labels, each behind a confirm or prompt dialog) through a
//! rate-limited queue. Each write first confirms its kind → resource mapping
//! against live discovery (one GET of the group version). Scale and cordon
//! read, change and write back with the resourceVersion; labels merge-patch
//! with the resourceVersion read from metadata only; so a concurrent change
//! answers 409 and the action is re-queued (default controller limiter, 8
//! attempts). Deletes and label edits ask for metadata-only answers, so an
//! action on a Secret never brings its data back. Each outcome is recorded as
//! an Event from `kubeglass`, and reaches the queue's listeners as an
//! `ActionResult` whose failure is the typed `rest::Error`, not a string.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ObjectReference;
use kube_core::ApiResource;

use kubeglass_client::clock::Clock;
use kubeglass_client::record::{EventRecorder, EventType};
use kubeglass_client::rest::{Error, RestClient};
use kubeglass_client::transport::TransportError;
use kubeglass_client::workqueue::{RateLimitingQueue, default_controller_rate_limiter};

mod find_out;
pub mod patch;
mod verbs;

pub use verbs::post_params;

/// Attempts before an action is given up (the first one included).
pub const MAX_ATTEMPTS: u32 = 8;

/// The field manager Kubeglass writes as (`fieldManager=kubeglass`), as
/// kubectl writes as `kubectl-edit`, `kubectl-create` …; it is also how a
/// create whose answer was lost is recognised as ours.
pub const FIELD_MANAGER: &str = "kubeglass";

/// What the person asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionKind {
    /// Set `spec.replicas` through the scale subresource.
    Scale(i32),
    /// Delete the object.
    Delete,
    /// `kubectl rollout restart`: stamp the pod template with the time the
    /// restart was asked for (taken once, when it is submitted).
    RestartRollout,
    /// Mark a node (un)schedulable.
    Cordon(bool),
    /// Set (Some) or remove (None) labels.
    Labels(Vec<(String, Option<String>)>),
    /// Set (Some) or remove (None) annotations (`kubectl annotate
    /// --overwrite`).
    Annotations(Vec<(String, Option<String>)>),
    /// Write what the person changed: a JSON merge patch ([`patch`]) that
    /// carries the resourceVersion the edit began from. A 409 Conflict is
    /// final, never retried: the person decides what to do with the newer
    /// object.
    Edit(serde_json::Value),
    /// `kubectl rollout undo --to-revision`: write this revision's pod
    /// template into the workload, as kubectl does ([`RollBackTo`]).
    RollBack(RollBackTo),
    /// Create this object (`kubectl create -f`). AlreadyExists is final.
    Create(serde_json::Value),
}

impl ActionKind {
    /// What it does, as a verb phrase for a failure's Event.
    pub fn verb(&self) -> &'static str {
        match self {
            ActionKind::Scale(_) => "scale",
            ActionKind::Delete => "delete",
            ActionKind::RestartRollout => "restart the rollout",
            ActionKind::Cordon(true) => "cordon",
            ActionKind::Cordon(false) => "uncordon",
            ActionKind::Labels(_) => "set labels",
            ActionKind::Annotations(_) => "set annotations",
            ActionKind::Edit(_) => "write the edit",
            ActionKind::RollBack(..) => "roll back",
            ActionKind::Create(_) => "create the object",
        }
    }

    /// True when sending it again after an ambiguous failure cannot do
    /// more than the first send: it sets a state (replicas, a label, the
    /// stamp taken at submit, a template) rather than making, removing or
    /// overwriting something.
    fn repeatable(&self) -> bool {
        !matches!(
            self,
            ActionKind::Create(_) | ActionKind::Delete | ActionKind::Edit(_)
        )
    }

    /// The Event reason of a success.
    fn reason(&self) -> &'static str {
        match self {
            ActionKind::Scale(_) => "Scaled",
            ActionKind::Delete => "Deleted",
            ActionKind::RestartRollout => "RolloutRestarted",
            ActionKind::Cordon(true) => "Cordoned",
            ActionKind::Cordon(false) => "Uncordoned",
            ActionKind::Labels(_) => "LabelsEdited",
            ActionKind::Annotations(_) => "AnnotationsEdited",
            ActionKind::Edit(_) => "Edited",
            ActionKind::RollBack(..) => "RolledBack",
            ActionKind::Create(_) => "Created",
        }
    }
}

/// The revision a workload is rolled back to, as the page found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollBackTo {
    /// Its number.
    pub revision: u64,
    /// Its pod template: a Deployment's ReplicaSet's without the
    /// `pod-template-hash` label, or a StatefulSet's or DaemonSet's
    /// ControllerRevision's without its `$patch` mark.
    pub template: serde_json::Value,
    /// A Deployment's: the ReplicaSet's annotations, which kubectl copies
    /// onto the Deployment (its change-cause among them), but for the keys
    /// the Deployment keeps its own of (`verbs::KEPT_ON_ROLLBACK`). None for
    /// a StatefulSet or DaemonSet, whose revisions hold only the template.
    pub annotations: Option<serde_json::Map<String, serde_json::Value>>,
}

/// One action on one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// The object's resource.
    pub resource: ApiResource,
    /// Its namespace (None for cluster-scoped objects).
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
    /// What to do.
    pub kind: ActionKind,
}

/// How an action ended.
#[derive(Debug, Clone)]
pub enum ActionResult {
    /// Done after this many attempts.
    Done {
        /// Attempts it took.
        attempts: u32,
        /// The server's answer to the write was lost (a 5xx, a timeout, a
        /// broken connection), and reading the object back showed that the
        /// write was applied.
        answer_lost: bool,
        /// The object already was as asked (a roll back to the template it
        /// runs), so nothing was written, as kubectl skips it.
        unchanged: bool,
    },
    /// Failed for good (forbidden, not found, invalid, out of attempts, or
    /// an answer lost and the object read back not as the write would
    /// have left it).
    Failed {
        /// What went wrong, typed, so a view can tell forbidden from not
        /// found from unreachable.
        error: Error,
    },
}

/// A write that was applied: the object's uid when known, and a sentence
/// for its Event.
#[derive(Debug)]
struct Written {
    uid: Option<String>,
    what: String,
    answer_lost: bool,
    /// Nothing was written: the object already was as asked.
    unchanged: bool,
}

impl Written {
    fn new(uid: Option<String>, what: impl Into<String>) -> Self {
        Self {
            uid,
            what: what.into(),
            answer_lost: false,
            unchanged: false,
        }
    }
}

/// What one attempt came to.
enum Step {
    /// Applied.
    Done(Written),
    /// Not applied, and another attempt may succeed.
    Again(Error),
    /// Over.
    Fail(Error),
}

/// An action waiting in the queue, and when it was asked for.
struct Pending {
    action: Action,
    asked_at: Duration,
    /// Where this action's own result goes (see [`Submitted`]).
    reply: futures::channel::oneshot::Sender<ActionResult>,
}

/// What [`ActionQueue::submit`] gives back: a future of that action's own
/// result, once the queue is done with it (retries, the read-back after a
/// lost answer), so the page that asked holds its answer; `None` if the
/// queue went away first. Dropping it changes nothing: the action still
/// runs, and the queue's listeners still hear of it.
pub struct Submitted(futures::channel::oneshot::Receiver<ActionResult>);

impl std::future::Future for Submitted {
    type Output = Option<ActionResult>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut self.0).poll(cx).map(Result::ok)
    }
}

type Listener = Box<dyn FnMut(&Action, &ActionResult)>;

/// Runs actions one at a time per object key, with retries.
pub struct ActionQueue {
    client: RestClient,
    clock: Rc<dyn Clock>,
    recorder: EventRecorder,
    queue: RateLimitingQueue<u64>,
    /// Pending actions by id, each with the time it was asked for.
    pending: Rc<RefCell<HashMap<u64, Pending>>>,
    next_id: Rc<RefCell<u64>>,
    listeners: Rc<RefCell<Vec<Listener>>>,
    /// What live discovery confirmed, lately (`verbs::Confirmed`).
    confirmed: Rc<verbs::Confirmed>,
}

impl Clone for ActionQueue {
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            clock: self.clock.clone(),
            recorder: self.recorder.clone(),
            queue: self.queue.clone(),
            pending: self.pending.clone(),
            next_id: self.next_id.clone(),
            listeners: self.listeners.clone(),
            confirmed: self.confirmed.clone(),
        }
    }
}

impl std::fmt::Debug for ActionQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionQueue")
            .field("pending", &self.pending.borrow().len())
            .finish()
    }
}

fn reference(a: &Action, uid: Option<String>) -> ObjectReference {
    ObjectReference {
        api_version: Some(a.resource.api_version.clone()),
        kind: Some(a.resource.kind.clone()),
        namespace: a.namespace.clone(),
        name: Some(a.name.clone()),
        uid,
        ..Default::default()
    }
}

fn retryable(e: &Error) -> bool {
    match e {
        Error::Transport(_) => true,
        Error::Api(a) => {
            a.is_conflict() || a.is_too_many_requests() || a.is_server_error() || a.is_timeout()
        }
        _ => false,
    }
}

/// True when the write may have been applied although no success came
/// back: the server failed or timed out while handling it, or the
/// connection broke or timed out after the request went out. A refused
/// connection never reached the server, and a 429 was refused before it
/// ran (priority and fairness), so neither is ambiguous.
fn ambiguous(e: &Error) -> bool {
    match e {
        Error::Transport(TransportError::Connect(_)) => false,
        Error::Transport(_) => true,
        Error::Api(a) => !a.is_too_many_requests() && (a.is_server_error() || a.is_timeout()),
        _ => false,
    }
}

impl ActionQueue {
    /// A queue writing with `client`, recording with `recorder`, timed by `clock`.
    pub fn new(client: RestClient, recorder: EventRecorder, clock: Rc<dyn Clock>) -> Self {
        Self {
            client,
            clock: clock.clone(),
            recorder,
            queue: RateLimitingQueue::new(
                "user-actions",
                clock,
                Box::new(default_controller_rate_limiter()),
            ),
            pending: Rc::default(),
            next_id: Rc::default(),
            listeners: Rc::default(),
            confirmed: Rc::default(),
        }
    }

    /// Calls `listener` when an action ends.
    pub fn on_result(&self, listener: impl FnMut(&Action, &ActionResult) + 'static) {
        self.listeners.borrow_mut().push(Box::new(listener));
    }

    /// Queues `action`; the time it is asked for is taken now. Returns its
    /// own result, to await or drop.
    pub fn submit(&self, action: Action) -> Submitted {
        let id = {
            let mut n = self.next_id.borrow_mut();
            *n += 1;
            *n
        };
        let asked_at = self.clock.now();
        let (reply, answer) = futures::channel::oneshot::channel();
        self.pending.borrow_mut().insert(
            id,
            Pending {
                action,
                asked_at,
                reply,
            },
        );
        self.queue.queue().add(id);
        Submitted(answer)
    }

    /// The queue (metrics for the X-ray page).
    pub fn queue(&self) -> &RateLimitingQueue<u64> {
        &self.queue
    }

    /// Runs the timer driver and one worker until the queue shuts down.
    pub async fn run(self) {
        let timers = self.queue.delaying().clone().run();
        let worker = async {
            while let Some(id) = self.queue.queue().get().await {
                self.process(id).await;
                self.queue.queue().done(&id);
            }
        };
        futures::future::join(timers, worker).await;
    }

    async fn process(&self, id: u64) {
        let Some((action, asked_at)) = self
            .pending
            .borrow()
            .get(&id)
            .map(|p| (p.action.clone(), p.asked_at))
        else {
            return;
        };
        let attempt = self.queue.num_requeues(&id) + 1;
        let (event, result) = match self.attempt(&action, asked_at).await {
            Step::Again(_) if attempt < MAX_ATTEMPTS => {
                self.queue.add_rate_limited(id);
                return;
            }
            Step::Done(w) => (
                (!w.unchanged).then(|| (w.uid, EventType::Normal, action.kind.reason(), w.what)),
                ActionResult::Done {
                    attempts: attempt,
                    answer_lost: w.answer_lost,
                    unchanged: w.unchanged,
                },
            ),
            Step::Again(error) | Step::Fail(error) => (
                Some((
                    None,
                    EventType::Warning,
                    "ActionFailed",
                    format!("kubeglass could not {}: {error}", action.kind.verb()),
                )),
                ActionResult::Failed { error },
            ),
        };
        self.queue.forget(&id);
        let reply = self.pending.borrow_mut().remove(&id).map(|p| p.reply);
        // Nothing written, nothing recorded.
        if let Some((uid, type_, reason, what)) = event {
            self.recorder
                .event(&reference(&action, uid), type_, reason, &what);
        }
        for l in self.listeners.borrow_mut().iter_mut() {
            l(&action, &result);
        }
        if let Some(reply) = reply {
            // The page that asked may have gone: then nobody awaits it.
            let _ = reply.send(result);
        }
    }

    /// One attempt: the write, and after an ambiguous failure of a write
    /// that must not be repeated blindly, what a read shows of it.
    async fn attempt(&self, action: &Action, asked_at: Duration) -> Step {
        let now = self.clock.now();
        let e = match verbs::execute(&self.client, &self.confirmed, action, asked_at, now).await {
            Ok(w) => return Step::Done(w),
            Err(e) => e,
        };
        if ambiguous(&e) && !action.kind.repeatable() {
            return find_out::what_happened(&self.client, action, e).await;
        }
        let final_conflict =
            matches!(action.kind, ActionKind::Edit(_)) && e.api().is_some_and(|a| a.is_conflict());
        if retryable(&e) && !final_conflict {
            Step::Again(e)
        } else {
            Step::Fail(e)
        }
    }
}
