//! One function per verb, as kubectl has one helper per verb: each sends
//! its write once and says what it did, for the action's Event.

use std::time::Duration;

use kube_core::DynamicObject;
use kube_core::params::{DeleteParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use super::{Action, ActionKind, FIELD_MANAGER, RollBackTo, Written};
use kubeglass_client::api::{Api, Scale, with_accept};
use kubeglass_client::discovery::DiscoveryClient;
use kubeglass_client::names::validate_name;
use kubeglass_client::rest::table::METADATA_ACCEPT;
use kubeglass_client::rest::{Error, RestClient};

/// Performs the action once; `asked_at` is when it was submitted, `now`
/// the queue's clock now.
///
/// The mapping from kind to resource the action was built with (from a
/// discovery cache) is confirmed against live discovery first, so a
/// stale or poisoned cache can never aim the write at another resource;
/// `confirmed` keeps what live discovery said for a few seconds, so the
/// actions of one bulk action share one confirmation.
pub(super) async fn execute(
    client: &RestClient,
    confirmed: &Confirmed,
    a: &Action,
    asked_at: Duration,
    now: Duration,
) -> Result<Written, Error> {
    // Names and namespaces are checked before anything is sent, for every
    // kind of action (Delete builds its request itself, below).
    validate_name(&a.name)?;
    let api = target(client, a)?;
    confirmed.confirm(client, a, now).await?;
    match &a.kind {
        ActionKind::Scale(replicas) => scale(client, &api, &a.name, *replicas).await,
        ActionKind::Delete => delete(client, &api, &a.name).await,
        ActionKind::RestartRollout => restart(&api, &a.name, asked_at).await,
        ActionKind::Cordon(cordon) => self::cordon(&api, &a.name, *cordon).await,
        ActionKind::Edit(patch) => edit(&api, &a.name, patch).await,
        ActionKind::Create(object) => create(&api, a, object).await,
        ActionKind::RollBack(to) => roll_back(client, &api, &a.name, to).await,
        ActionKind::Labels(changes) => {
            metadata_map(client, &api, &a.name, MetadataMap::Labels, changes).await
        }
        ActionKind::Annotations(changes) => {
            metadata_map(client, &api, &a.name, MetadataMap::Annotations, changes).await
        }
    }
}

/// How long a mapping live discovery confirmed is taken as confirmed.
pub const CONFIRMED_FOR: Duration = Duration::from_secs(10);

/// A write's kind → resource mapping: group, version, plural, kind, and
/// whether it is namespaced.
type Mapping = (String, String, String, String, bool);

/// The kind → resource mappings live discovery confirmed, each with when.
/// Only a live answer is kept, never the discovery cache's: what it guards
/// against (a poisoned or stale cache aiming a write at another resource)
/// is as ruled out ten seconds later, and a bulk action of 500 deletes asks
/// discovery once, not 500 times.
#[derive(Default)]
pub(super) struct Confirmed(std::cell::RefCell<std::collections::HashMap<Mapping, Duration>>);

impl Confirmed {
    /// Confirms `a`'s mapping, live unless it was within [`CONFIRMED_FOR`]
    /// of `now` (the queue's clock).
    async fn confirm(&self, client: &RestClient, a: &Action, now: Duration) -> Result<(), Error> {
        let r = &a.resource;
        let key = (
            r.group.clone(),
            r.version.clone(),
            r.plural.clone(),
            r.kind.clone(),
            a.namespace.is_some(),
        );
        let fresh = self
            .0
            .borrow()
            .get(&key)
            .is_some_and(|at| now.saturating_sub(*at) < CONFIRMED_FOR);
        if fresh {
            return Ok(());
        }
        DiscoveryClient::new(client.clone())
            .confirm(
                &r.group,
                &r.version,
                &r.plural,
                &r.kind,
                Some(a.namespace.is_some()),
            )
            .await?;
        self.0.borrow_mut().insert(key, now);
        Ok(())
    }
}

/// The action's object's collection, or why its name or namespace cannot
/// be part of a path.
pub(super) fn target(client: &RestClient, a: &Action) -> Result<Api<DynamicObject>, Error> {
    let api = Api::<DynamicObject>::dynamic(client.clone(), &a.resource, a.namespace.as_deref());
    match api.invalid() {
        Some(e) => Err(e.clone().into()),
        None => Ok(api),
    }
}

/// The parameters of a write Kubeglass makes, `dryRun=All` when `dry_run`.
pub fn post_params(dry_run: bool) -> PostParams {
    PostParams {
        dry_run,
        field_manager: Some(FIELD_MANAGER.to_string()),
    }
}

/// `kubectl scale`: read the scale, change it, write it back with the
/// resourceVersion read.
async fn scale(
    client: &RestClient,
    api: &Api<DynamicObject>,
    name: &str,
    replicas: i32,
) -> Result<Written, Error> {
    let mut scale: Scale = api.get_scale(name).await?;
    let from = scale.spec.as_ref().and_then(|s| s.replicas).unwrap_or(0);
    scale.spec.get_or_insert_default().replicas = Some(replicas);
    let body = serde_json::to_vec(&scale).map_err(|e| Error::Request(e.to_string()))?;
    let req = kube_core::Request::new(api.path().to_string()).replace_subresource(
        "scale",
        name,
        &PostParams::default(),
        body,
    )?;
    let _: Scale = client.send_json(req).await?;
    Ok(Written::new(
        scale.metadata.uid.clone(),
        format!("Scaled from {from} to {replicas} replicas by kubeglass"),
    ))
}

/// `kubectl delete`, in the background; metadata only in the answer, so
/// deleting a Secret brings back none of its data.
async fn delete(
    client: &RestClient,
    api: &Api<DynamicObject>,
    name: &str,
) -> Result<Written, Error> {
    let req = kube_core::Request::new(api.path().to_string())
        .delete(name, &DeleteParams::background())?;
    client.send_raw(with_accept(req, METADATA_ACCEPT)).await?;
    Ok(Written::new(None, "Deleted by kubeglass"))
}

/// The stamp `kubectl rollout restart` writes, for a restart asked for at
/// `asked_at` (since the Unix epoch).
pub(super) fn restart_stamp(asked_at: Duration) -> String {
    let secs = i64::try_from(asked_at.as_secs()).unwrap_or_default();
    k8s_openapi::jiff::Timestamp::from_second(secs)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

/// `kubectl rollout restart`: the pod template stamped with the time the
/// restart was asked for, so a second send of it changes nothing.
async fn restart(
    api: &Api<DynamicObject>,
    name: &str,
    asked_at: Duration,
) -> Result<Written, Error> {
    let patch = json!({"spec": {"template": {"metadata": {"annotations": {
        "kubectl.kubernetes.io/restartedAt": restart_stamp(asked_at)}}}}});
    let o = api
        .patch(name, &PatchParams::default(), &Patch::Merge(patch))
        .await?;
    Ok(Written::new(
        o.metadata.uid,
        "Rollout restarted by kubeglass",
    ))
}

/// `kubectl cordon` / `uncordon`.
async fn cordon(api: &Api<DynamicObject>, name: &str, cordon: bool) -> Result<Written, Error> {
    let mut node = api.get(name).await?;
    node.data["spec"]["unschedulable"] = json!(cordon);
    let o = api.replace(name, &PostParams::default(), &node).await?;
    let word = if cordon { "Cordoned" } else { "Uncordoned" };
    Ok(Written::new(o.metadata.uid, format!("{word} by kubeglass")))
}

/// Why an edit's patch may not be sent: it has no resourceVersion to hold
/// the write to the object the person edited, or it changes what names
/// the object (kubectl edit's preconditions: apiVersion, kind, name).
pub fn check_edit(patch: &Value) -> Result<(), Error> {
    let changed = |field: &str| patch.pointer(field).is_some();
    if changed("/metadata/name") || changed("/metadata/namespace") {
        return Err(Error::Request(
            "the edit renames the object or moves it to another namespace: a rename is a new object"
                .into(),
        ));
    }
    if changed("/kind") || changed("/apiVersion") {
        return Err(Error::Request(
            "the edit changes the kind or apiVersion, which an edit cannot".into(),
        ));
    }
    if !patch
        .pointer("/metadata/resourceVersion")
        .is_some_and(Value::is_string)
    {
        return Err(Error::Request(
            "the edit carries no resourceVersion to check it against the object it began from"
                .into(),
        ));
    }
    Ok(())
}

/// `kubectl edit`: what the person changed, as a merge patch held to the
/// resourceVersion the edit began from.
async fn edit(api: &Api<DynamicObject>, name: &str, patch: &Value) -> Result<Written, Error> {
    check_edit(patch)?;
    let params = PatchParams {
        field_manager: Some(FIELD_MANAGER.to_string()),
        ..PatchParams::default()
    };
    let o = api.patch(name, &params, &Patch::Merge(patch)).await?;
    Ok(Written::new(o.metadata.uid, "Edited by kubeglass"))
}

/// `kubectl create -f`, in the action's namespace.
async fn create(api: &Api<DynamicObject>, a: &Action, object: &Value) -> Result<Written, Error> {
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
    let o = api.create(&post_params(false), &object).await?;
    Ok(Written::new(o.metadata.uid, "Created by kubeglass"))
}

/// The annotations a Deployment keeps its own of when it is rolled back,
/// and never takes from the revision's ReplicaSet (kubectl's
/// `annotationsToSkip`).
pub const KEPT_ON_ROLLBACK: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    "deployment.kubernetes.io/revision",
    "deployment.kubernetes.io/revision-history",
    "deployment.kubernetes.io/desired-replicas",
    "deployment.kubernetes.io/max-replicas",
    "deprecated.deployment.rollback.to",
];

/// What kubectl says of a paused Deployment it is asked to roll back.
pub const PAUSED: &str = "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again";

/// A pod template without the Deployment controller's hash label, as
/// kubectl compares them (`equalIgnoreHash`).
fn without_hash(template: &Value) -> Value {
    let mut t = template.clone();
    if let Some(labels) = t
        .pointer_mut("/metadata/labels")
        .and_then(Value::as_object_mut)
    {
        labels.remove("pod-template-hash");
    }
    t
}

/// The annotations a Deployment `now` has after a roll back to a revision
/// whose ReplicaSet has `revision`'s: the kept keys from `now`, every other
/// from the ReplicaSet.
pub fn rolled_back_annotations(
    now: Option<&serde_json::Map<String, Value>>,
    revision: &serde_json::Map<String, Value>,
) -> serde_json::Map<String, Value> {
    let mut out: serde_json::Map<String, Value> = now
        .into_iter()
        .flatten()
        .filter(|(k, _)| KEPT_ON_ROLLBACK.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in revision {
        if !KEPT_ON_ROLLBACK.contains(&k.as_str()) {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}

/// `kubectl rollout undo --to-revision`. A paused Deployment is refused
/// with kubectl's words; a workload that already runs the revision's
/// template is left alone ("skipped rollback"). A Deployment gets the
/// template and the ReplicaSet's annotations (change-cause included; the
/// kept keys its own) in one JSON patch, as kubectl sends; a StatefulSet or
/// DaemonSet the template as a strategic merge patch that replaces it, as
/// kubectl sends its ControllerRevision's data.
async fn roll_back(
    client: &RestClient,
    api: &Api<DynamicObject>,
    name: &str,
    to: &RollBackTo,
) -> Result<Written, Error> {
    let now = api.get(name).await?;
    let uid = now.metadata.uid.clone();
    let revision = to.revision;
    if to.annotations.is_some() && now.data.pointer("/spec/paused") == Some(&Value::Bool(true)) {
        return Err(Error::Request(PAUSED.to_string()));
    }
    let template = without_hash(&to.template);
    let current = now.data.pointer("/spec/template").map(without_hash);
    if current.as_ref() == Some(&template) {
        return Ok(Written {
            unchanged: true,
            ..Written::new(
                uid,
                format!("skipped rollback (current template already matches revision {revision})"),
            )
        });
    }
    let o = match &to.annotations {
        Some(from_rs) => {
            let now_annotations = serde_json::to_value(&now.metadata.annotations)
                .ok()
                .and_then(|v| v.as_object().cloned());
            let annotations = rolled_back_annotations(now_annotations.as_ref(), from_rs);
            let ops = json!([
                {"op": "replace", "path": "/spec/template", "value": template},
                {"op": "add", "path": "/metadata/annotations", "value": annotations},
            ]);
            // kube-core builds the request; the body is already RFC 6902
            // operations, so only the content type differs from a merge
            // patch (its `Patch::Json` would pull in the json-patch crate's
            // types for one array).
            let mut req = kube_core::Request::new(api.path().to_string()).patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(&ops),
            )?;
            req.headers_mut().insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/json-patch+json"),
            );
            client.send_json::<DynamicObject>(req).await?
        }
        None => {
            let mut replace = template;
            if let Some(t) = replace.as_object_mut() {
                t.insert("$patch".into(), json!("replace"));
            }
            let patch = json!({"spec": {"template": replace}});
            api.patch(name, &PatchParams::default(), &Patch::Strategic(patch))
                .await?
        }
    };
    Ok(Written::new(
        o.metadata.uid,
        format!("Rolled back to revision {revision} by kubeglass"),
    ))
}

/// Which of an object's metadata maps a write changes.
#[derive(Clone, Copy)]
enum MetadataMap {
    Labels,
    Annotations,
}

impl MetadataMap {
    /// Its field under `metadata`.
    fn field(self) -> &'static str {
        match self {
            MetadataMap::Labels => "labels",
            MetadataMap::Annotations => "annotations",
        }
    }
}

/// `kubectl label` and `kubectl annotate --overwrite`: read the metadata
/// only (a Secret's data never comes back), then merge-patch the labels or
/// annotations with that resourceVersion, so a concurrent change answers
/// 409 Conflict and is retried.
async fn metadata_map(
    client: &RestClient,
    api: &Api<DynamicObject>,
    name: &str,
    map: MetadataMap,
    changes: &[(String, Option<String>)],
) -> Result<Written, Error> {
    let current = api.get_metadata(name).await?;
    let entries: serde_json::Map<String, Value> = changes
        .iter()
        .map(|(k, v)| (k.clone(), v.clone().map_or(json!(null), |v| json!(v))))
        .collect();
    let mut metadata = serde_json::Map::new();
    metadata.insert(
        "resourceVersion".into(),
        json!(current.metadata.resource_version),
    );
    metadata.insert(map.field().into(), Value::Object(entries));
    let patch = json!({ "metadata": metadata });
    let req = kube_core::Request::new(api.path().to_string()).patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(&patch),
    )?;
    let o: kube_core::PartialObjectMeta<DynamicObject> =
        client.send_json(with_accept(req, METADATA_ACCEPT)).await?;
    let list: Vec<String> = changes
        .iter()
        .map(|(k, v)| match v {
            Some(v) => format!("{k}={v}"),
            None => format!("{k}-"),
        })
        .collect();
    let what = match map {
        MetadataMap::Labels => "Labels",
        MetadataMap::Annotations => "Annotations",
    };
    Ok(Written::new(
        o.metadata.uid,
        format!("{what} {} set by kubeglass", list.join(", ")),
    ))
}
