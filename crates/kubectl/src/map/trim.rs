//! Each object cut, as it is decoded, to the fields the map reads (the
//! informer's transform, client-go's `SetTransform`): less to hold, and
//! what may be saved for the next visit holds nothing the map does not
//! need. A pod keeps no environment variable's value.

use kube_core::DynamicObject;
use serde_json::{Map, Value};

/// Only the fields at `keep` (each a path of keys) of `v`.
fn keep_fields(v: &Value, keep: &[&[&str]]) -> Value {
    let mut out = Value::Object(Map::new());
    for path in keep {
        let Some(found) = path.iter().try_fold(v, |v, k| v.get(k)) else {
            continue;
        };
        let mut at = &mut out;
        for (n, k) in path.iter().enumerate() {
            let Some(map) = at.as_object_mut() else { break };
            let next = if n + 1 == path.len() {
                found.clone()
            } else {
                Value::Object(Map::new())
            };
            at = map.entry(k.to_string()).or_insert(next);
        }
    }
    out
}

/// Metadata without annotations or managedFields.
fn lean_metadata(o: &mut DynamicObject) {
    o.metadata.annotations = None;
    o.metadata.managed_fields = None;
}

/// A workload: its metadata is all the map reads (owners, labels).
pub fn trim_to_metadata(mut o: DynamicObject) -> DynamicObject {
    lean_metadata(&mut o);
    o.data = Value::Object(Map::new());
    o
}

/// A pod: its node, ServiceAccount, volumes, containers' references and state.
pub fn trim_pod(mut o: DynamicObject) -> DynamicObject {
    lean_metadata(&mut o);
    let mut kept = keep_fields(
        &o.data,
        &[
            &["spec", "nodeName"],
            &["spec", "serviceAccountName"],
            &["spec", "volumes"],
            &["spec", "imagePullSecrets"],
            &["status", "phase"],
            &["status", "conditions"],
        ],
    );
    for list in ["containers", "initContainers"] {
        let containers: Vec<Value> = o
            .data
            .pointer(&format!("/spec/{list}"))
            .and_then(Value::as_array)
            .map(|cs| cs.iter().map(trim_container).collect())
            .unwrap_or_default();
        if let Some(spec) = kept.get_mut("spec").and_then(Value::as_object_mut) {
            spec.insert(list.into(), Value::Array(containers));
        }
    }
    o.data = kept;
    o
}

/// A container's name, `envFrom` and the references of its `env` (never a
/// variable's value: the cut object may be saved for the next visit).
fn trim_container(c: &Value) -> Value {
    let mut out = keep_fields(c, &[&["name"], &["envFrom"]]);
    let env: Vec<Value> = c
        .get("env")
        .and_then(Value::as_array)
        .map(|env| {
            env.iter()
                .filter(|e| e.get("valueFrom").is_some())
                .map(|e| keep_fields(e, &[&["name"], &["valueFrom"]]))
                .collect()
        })
        .unwrap_or_default();
    if let Some(o) = out.as_object_mut() {
        o.insert("env".into(), Value::Array(env));
    }
    out
}

/// An Event: its object's UID, type and count.
pub fn trim_event(mut o: DynamicObject) -> DynamicObject {
    lean_metadata(&mut o);
    o.metadata.labels = None;
    o.data = keep_fields(
        &o.data,
        &[
            &["involvedObject", "uid"],
            &["regarding", "uid"],
            &["type"],
            &["count"],
        ],
    );
    o
}

/// Objects whose spec the map reads (a Service's selector…), kept whole
/// but for annotations and managedFields.
pub fn trim_lean(mut o: DynamicObject) -> DynamicObject {
    lean_metadata(&mut o);
    o
}

/// An EndpointSlice: its labels (the Service's name) and each endpoint's
/// target, nothing else (no addresses, ports or conditions).
pub fn trim_slice(mut o: DynamicObject) -> DynamicObject {
    lean_metadata(&mut o);
    let endpoints: Vec<Value> = o
        .data
        .get("endpoints")
        .and_then(Value::as_array)
        .map(|es| {
            es.iter()
                .map(|e| keep_fields(e, &[&["targetRef", "kind"], &["targetRef", "uid"]]))
                .collect()
        })
        .unwrap_or_default();
    let mut kept = Map::new();
    kept.insert("endpoints".into(), Value::Array(endpoints));
    o.data = Value::Object(kept);
    o
}
