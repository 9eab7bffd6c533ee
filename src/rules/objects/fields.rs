//! What an object's fields say: owners, string maps, conditions, creation time, the resource an apiVersion and kind name, field-selector values and a typed replica count.

use crate::rules::time::{Seconds, parse_time};
use kubeglass_client::discovery::{Discovery, ResourceInfo};
use kubeglass_client::kube_core::DynamicObject;
use serde_json::Value;

/// `value` escaped for a field selector, as apimachinery's
/// `fields.EscapeValue` does (`\` `,` `=`), so a name cannot add terms.
pub fn field_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A store's key (`namespace/name`, or `name` for a cluster-scoped
/// object, as client-go's `MetaNamespaceKeyFunc` makes it) as its namespace
/// and name.
pub fn split_key(key: &str) -> (Option<String>, String) {
    match key.split_once('/') {
        Some((ns, n)) => (Some(ns.to_string()), n.to_string()),
        None => (None, key.to_string()),
    }
}

/// An `apiVersion` split into group and version (`apps/v1` → `apps`, `v1`;
/// `v1` → ``, `v1`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

/// The resource an `apiVersion` and `kind` name (an owner reference, an
/// Event's involved object) as discovery maps them; an `apiVersion` with no
/// version (an Event may carry only `kind`) matches any served version.
pub fn resource_of<'a>(
    discovery: &'a Discovery,
    api_version: &str,
    kind: &str,
) -> Option<&'a ResourceInfo> {
    let (group, version) = split_api_version(api_version);
    let version = (!version.is_empty()).then_some(version);
    discovery.mapper().resource_for_kind(group, version, kind)
}

/// A number of replicas as a person typed it (spaces around allowed): a
/// whole number from 0 to 2^31 - 1, as `spec.replicas` holds; else what is
/// wrong with it, naming `target`.
pub fn parse_replicas(target: &str, text: &str) -> Result<i32, String> {
    match text.trim().parse::<i32>() {
        Ok(n) if n >= 0 => Ok(n),
        _ => Err(format!("{target}: “{text}” is not a number of replicas")),
    }
}

/// An object as JSON with its `apiVersion` and `kind` put back (listed
/// items carry none; the page knows them from discovery).
pub fn with_type_meta(object: &DynamicObject, api_version: &str, kind: &str) -> Value {
    let mut v = serde_json::Map::new();
    v.insert("apiVersion".into(), api_version.into());
    v.insert("kind".into(), kind.into());
    if let Ok(Value::Object(m)) = serde_json::to_value(object) {
        for (k, val) in m {
            if k != "apiVersion" && k != "kind" {
                v.insert(k, val);
            }
        }
    }
    Value::Object(v)
}

/// One owner reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerRef {
    /// The owner's apiVersion.
    pub api_version: String,
    /// Its kind.
    pub kind: String,
    /// Its name (in the owned object's namespace).
    pub name: String,
}

/// The owner references of `object` (as JSON).
pub fn owners(object: &Value) -> Vec<OwnerRef> {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .map(|refs| {
            refs.iter()
                .map(|r| {
                    let s = |k: &str| {
                        r.get(k)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    };
                    OwnerRef {
                        api_version: s("apiVersion"),
                        kind: s("kind"),
                        name: s("name"),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The `metadata.labels` or `metadata.annotations` (`field`) of `object` as
/// `(key, value)` pairs, in key order; non-string values read as empty.
pub fn string_map(object: &Value, field: &str) -> Vec<(String, String)> {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// One status condition.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// `type`.
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    /// `reason`.
    pub reason: String,
    /// `message`.
    pub message: String,
    /// `lastTransitionTime`, when it can be read.
    pub since: Option<Seconds>,
}

/// The `status.conditions` of `object`.
pub fn conditions(object: &Value) -> Vec<Condition> {
    object
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    let s = |k: &str| {
                        c.get(k)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    };
                    Condition {
                        type_: s("type"),
                        status: s("status"),
                        reason: s("reason"),
                        message: s("message"),
                        since: parse_time(&s("lastTransitionTime")),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// When `object` was created.
pub fn created(object: &Value) -> Option<Seconds> {
    object
        .pointer("/metadata/creationTimestamp")
        .and_then(Value::as_str)
        .and_then(parse_time)
}
