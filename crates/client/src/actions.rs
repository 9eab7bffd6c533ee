//! User actions (scale, delete, restart rollout, cordon/uncordon, edit labels)
//! through a rate-limited work queue, retried on conflict and 429, and
//! recorded as Kubernetes Events by the app's [`EventRecorder`].
//!
//! Writes that depend on the current state (scale, cordon, labels) read the
//! object, change it and write it back with its resourceVersion, so a
//! concurrent change answers 409 Conflict; the action is then re-queued with
//! the default controller rate limiter and re-reads before trying again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use k8s_openapi::api::core::v1::ObjectReference;
use kube_core::params::{DeleteParams, Patch, PatchParams, PostParams};
use kube_core::{ApiResource, DynamicObject};
use serde_json::json;

use crate::api::{Api, Scale, with_accept};
use crate::clock::Clock;
use crate::discovery::DiscoveryClient;
use crate::names::validate_name;
use crate::record::{EventRecorder, EventType};
use crate::rest::table::METADATA_ACCEPT;
use crate::rest::{Error, RestClient};
use crate::workqueue::{RateLimitingQueue, default_controller_rate_limiter};

/// Attempts before an action is given up (the first one included).
pub const MAX_ATTEMPTS: u32 = 8;

/// What the person asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionKind {
    /// Set `spec.replicas` through the scale subresource.
    Scale(i32),
    /// Delete the object.
    Delete,
    /// `kubectl rollout restart`: stamp the pod template.
    RestartRollout,
    /// Mark a node (un)schedulable.
    Cordon(bool),
    /// Set (Some) or remove (None) labels.
    Labels(Vec<(String, Option<String>)>),
    /// Write the whole object as edited (an update with the
    /// resourceVersion the edit started from). A 409 Conflict is final,
    /// never retried: the person decides what to do with the newer object.
    Replace(serde_json::Value),
    /// `kubectl rollout undo --to-revision`: write this revision's pod
    /// template (a Deployment's ReplicaSet's without its hash label, or a
    /// StatefulSet's or DaemonSet's ControllerRevision's) into the
    /// workload; the number is for the Event.
    RollBack(u64, serde_json::Value),
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
            ActionKind::Replace(_) => "write the edited object",
            ActionKind::RollBack(..) => "roll back",
            ActionKind::Create(_) => "create the object",
        }
    }
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
    },
    /// Failed for good (forbidden, not found, invalid, or out of attempts).
    Failed {
        /// What went wrong, typed, so a view can tell forbidden from not
        /// found from unreachable.
        error: Error,
    },
}

type Listener = Box<dyn FnMut(&Action, &ActionResult)>;

/// Runs actions one at a time per object key, with retries.
pub struct ActionQueue {
    client: RestClient,
    clock: Rc<dyn Clock>,
    recorder: EventRecorder,
    queue: RateLimitingQueue<u64>,
    /// Pending actions by id.
    pending: Rc<RefCell<HashMap<u64, Action>>>,
    next_id: Rc<RefCell<u64>>,
    listeners: Rc<RefCell<Vec<Listener>>>,
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
        }
    }

    /// Calls `listener` when an action ends.
    pub fn on_result(&self, listener: impl FnMut(&Action, &ActionResult) + 'static) {
        self.listeners.borrow_mut().push(Box::new(listener));
    }

    /// Queues `action`.
    pub fn submit(&self, action: Action) {
        let id = {
            let mut n = self.next_id.borrow_mut();
            *n += 1;
            *n
        };
        self.pending.borrow_mut().insert(id, action);
        self.queue.queue().add(id);
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
        let Some(action) = self.pending.borrow().get(&id).cloned() else {
            return;
        };
        let attempt = self.queue.num_requeues(&id) + 1;
        match self.execute(&action).await {
            Ok((uid, what)) => {
                self.queue.forget(&id);
                self.pending.borrow_mut().remove(&id);
                let reason = match action.kind {
                    ActionKind::Scale(_) => "Scaled",
                    ActionKind::Delete => "Deleted",
                    ActionKind::RestartRollout => "RolloutRestarted",
                    ActionKind::Cordon(true) => "Cordoned",
                    ActionKind::Cordon(false) => "Uncordoned",
                    ActionKind::Labels(_) => "LabelsEdited",
                    ActionKind::Replace(_) => "Edited",
                    ActionKind::RollBack(..) => "RolledBack",
                    ActionKind::Create(_) => "Created",
                };
                self.recorder
                    .event(&reference(&action, uid), EventType::Normal, reason, &what);
                self.finish(&action, ActionResult::Done { attempts: attempt });
            }
            Err(e)
                if retryable(&e)
                    && attempt < MAX_ATTEMPTS
                    && !(matches!(action.kind, ActionKind::Replace(_))
                        && e.api().is_some_and(|a| a.is_conflict())) =>
            {
                self.queue.add_rate_limited(id);
            }
            Err(e) => {
                self.queue.forget(&id);
                self.pending.borrow_mut().remove(&id);
                self.recorder.event(
                    &reference(&action, None),
                    EventType::Warning,
                    "ActionFailed",
                    &format!("kubeglass could not {}: {e}", action.kind.verb()),
                );
                self.finish(&action, ActionResult::Failed { error: e });
            }
        }
    }

    fn finish(&self, action: &Action, result: ActionResult) {
        for l in self.listeners.borrow_mut().iter_mut() {
            l(action, &result);
        }
    }

    /// Performs the action once; returns the object's uid and a sentence for the Event.
    ///
    /// The mapping from kind to resource the action was built with (from a
    /// discovery cache) is confirmed against live discovery first, so a
    /// stale or poisoned cache can never aim the write at another resource.
    async fn execute(&self, a: &Action) -> Result<(Option<String>, String), Error> {
        // Names and namespaces are checked before anything is sent, for every
        // kind of action (Delete builds its request itself, below).
        validate_name(&a.name)?;
        let api =
            Api::<DynamicObject>::dynamic(self.client.clone(), &a.resource, a.namespace.as_deref());
        if let Some(e) = api.invalid() {
            return Err(e.clone().into());
        }
        let r = &a.resource;
        DiscoveryClient::new(self.client.clone())
            .confirm(
                &r.group,
                &r.version,
                &r.plural,
                &r.kind,
                Some(a.namespace.is_some()),
            )
            .await?;
        match &a.kind {
            ActionKind::Scale(replicas) => {
                // Read, change, write back with the resourceVersion read.
                let mut scale: Scale = api.get_scale(&a.name).await?;
                let from = scale.spec.as_ref().and_then(|s| s.replicas).unwrap_or(0);
                scale.spec.get_or_insert_default().replicas = Some(*replicas);
                let body = serde_json::to_vec(&scale).map_err(|e| Error::Request(e.to_string()))?;
                let req = kube_core::Request::new(api.path().to_string()).replace_subresource(
                    "scale",
                    &a.name,
                    &PostParams::default(),
                    body,
                )?;
                let _: Scale = self.client.send_json(req).await?;
                Ok((
                    scale.metadata.uid.clone(),
                    format!("Scaled from {from} to {replicas} replicas by kubeglass"),
                ))
            }
            ActionKind::Delete => {
                // Metadata only in the answer: deleting a Secret brings back
                // none of its data.
                let req = kube_core::Request::new(api.path().to_string())
                    .delete(&a.name, &DeleteParams::background())?;
                self.client
                    .send_raw(with_accept(req, METADATA_ACCEPT))
                    .await?;
                Ok((None, "Deleted by kubeglass".to_string()))
            }
            ActionKind::RestartRollout => {
                let secs = i64::try_from(self.clock.now().as_secs()).unwrap_or_default();
                let stamp = k8s_openapi::jiff::Timestamp::from_second(secs)
                    .map(|t| t.to_string())
                    .unwrap_or_default();
                let patch = json!({"spec": {"template": {"metadata": {"annotations": {
                    "kubectl.kubernetes.io/restartedAt": stamp}}}}});
                let o = api
                    .patch(&a.name, &PatchParams::default(), &Patch::Merge(patch))
                    .await?;
                Ok((o.metadata.uid, "Rollout restarted by kubeglass".to_string()))
            }
            ActionKind::Cordon(cordon) => {
                let mut node = api.get(&a.name).await?;
                node.data["spec"]["unschedulable"] = json!(cordon);
                let o = api.replace(&a.name, &PostParams::default(), &node).await?;
                let word = if *cordon { "Cordoned" } else { "Uncordoned" };
                Ok((o.metadata.uid, format!("{word} by kubeglass")))
            }
            ActionKind::Replace(object) => {
                let mut object: DynamicObject = serde_json::from_value(object.clone())
                    .map_err(|e| Error::Request(format!("the edited object: {e}")))?;
                if object.metadata.name.as_deref() != Some(a.name.as_str()) {
                    return Err(Error::Request(format!(
                        "the edited object is named {:?}, not {:?}: a rename is a new object",
                        object.metadata.name.as_deref().unwrap_or(""),
                        a.name
                    )));
                }
                object.metadata.managed_fields = None;
                let o = api
                    .replace(&a.name, &PostParams::default(), &object)
                    .await?;
                Ok((o.metadata.uid, "Edited by kubeglass".to_string()))
            }
            ActionKind::Create(object) => {
                let mut object: DynamicObject = serde_json::from_value(object.clone())
                    .map_err(|e| Error::Request(format!("the object: {e}")))?;
                if object.metadata.name.as_deref() != Some(a.name.as_str()) {
                    return Err(Error::Request(format!(
                        "the object is named {:?}, not {:?}",
                        object.metadata.name.as_deref().unwrap_or(""),
                        a.name
                    )));
                }
                object.metadata.namespace = a.namespace.clone();
                let o = api.create(&PostParams::default(), &object).await?;
                Ok((o.metadata.uid, "Created by kubeglass".to_string()))
            }
            ActionKind::RollBack(revision, template) => {
                // Read, set the template, write back with the version read
                // (a conflict is retried: it reads the newer one).
                let mut deployment = api.get(&a.name).await?;
                deployment.data["spec"]["template"] = template.clone();
                deployment.metadata.managed_fields = None;
                let o = api
                    .replace(&a.name, &PostParams::default(), &deployment)
                    .await?;
                Ok((
                    o.metadata.uid,
                    format!("Rolled back to revision {revision} by kubeglass"),
                ))
            }
            ActionKind::Labels(changes) => {
                // Read the metadata only (a Secret's data never comes back),
                // then merge-patch the labels with that resourceVersion: a
                // concurrent change answers 409 Conflict and is retried.
                let current = api.get_metadata(&a.name).await?;
                let labels: serde_json::Map<String, serde_json::Value> = changes
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone().map_or(json!(null), |v| json!(v))))
                    .collect();
                let patch = json!({"metadata": {
                    "resourceVersion": current.metadata.resource_version,
                    "labels": labels}});
                let req = kube_core::Request::new(api.path().to_string()).patch(
                    &a.name,
                    &PatchParams::default(),
                    &Patch::Merge(&patch),
                )?;
                let o: kube_core::PartialObjectMeta<DynamicObject> = self
                    .client
                    .send_json(with_accept(req, METADATA_ACCEPT))
                    .await?;
                let list: Vec<String> = changes
                    .iter()
                    .map(|(k, v)| match v {
                        Some(v) => format!("{k}={v}"),
                        None => format!("{k}-"),
                    })
                    .collect();
                Ok((
                    o.metadata.uid,
                    format!("Labels {} set by kubeglass", list.join(", ")),
                ))
            }
        }
    }
}
