//! Typed clients for the built-in kinds the UI uses, on k8s-openapi's types,
//! and accessors for dynamic objects (CRDs included).
//!
//! Every kind works with the generic [`Api`]; the aliases below name the ones
//! the dashboard uses. Secrets are special: [`SecretsApi`] lists and reads
//! metadata only, and the values come only from an explicit
//! [`SecretsApi::reveal`], so a table of Secrets never downloads their data.

use k8s_openapi::api::core::v1::Secret;
use kube_core::params::ListParams;
use kube_core::{DynamicObject, ObjectList, PartialObjectMeta};
use serde_json::Value;

use crate::api::Api;
use crate::rest::{Error, RestClient};

/// Pods (core/v1).
pub type Pods = Api<k8s_openapi::api::core::v1::Pod>;
/// Nodes (core/v1, cluster-scoped).
pub type Nodes = Api<k8s_openapi::api::core::v1::Node>;
/// Namespaces (core/v1, cluster-scoped).
pub type Namespaces = Api<k8s_openapi::api::core::v1::Namespace>;
/// Events (core/v1).
pub type CoreEvents = Api<k8s_openapi::api::core::v1::Event>;
/// Events (events.k8s.io/v1, with series).
pub type Events = Api<k8s_openapi::api::events::v1::Event>;
/// Deployments (apps/v1).
pub type Deployments = Api<k8s_openapi::api::apps::v1::Deployment>;
/// ReplicaSets (apps/v1).
pub type ReplicaSets = Api<k8s_openapi::api::apps::v1::ReplicaSet>;
/// StatefulSets (apps/v1).
pub type StatefulSets = Api<k8s_openapi::api::apps::v1::StatefulSet>;
/// DaemonSets (apps/v1).
pub type DaemonSets = Api<k8s_openapi::api::apps::v1::DaemonSet>;
/// Jobs (batch/v1).
pub type Jobs = Api<k8s_openapi::api::batch::v1::Job>;
/// CronJobs (batch/v1).
pub type CronJobs = Api<k8s_openapi::api::batch::v1::CronJob>;
/// Services (core/v1).
pub type Services = Api<k8s_openapi::api::core::v1::Service>;
/// ConfigMaps (core/v1).
pub type ConfigMaps = Api<k8s_openapi::api::core::v1::ConfigMap>;
/// CustomResourceDefinitions (apiextensions.k8s.io/v1).
pub type CustomResourceDefinitions = Api<
    k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
>;

/// Secrets, metadata only unless asked.
#[derive(Debug, Clone)]
pub struct SecretsApi {
    api: Api<Secret>,
}

impl SecretsApi {
    /// Secrets in `namespace`, or in all namespaces.
    pub fn new(client: RestClient, namespace: Option<&str>) -> Self {
        let api = match namespace {
            Some(ns) => Api::namespaced(client, ns),
            None => Api::all(client),
        };
        Self { api }
    }

    /// Lists Secrets' metadata: names, labels, annotations, owners — never
    /// `data` (nor `type`, which lives outside metadata).
    pub async fn list(
        &self,
        params: &ListParams,
    ) -> Result<ObjectList<PartialObjectMeta<Secret>>, Error> {
        self.api.list_metadata(params).await
    }

    /// One Secret's metadata.
    pub async fn get(&self, name: &str) -> Result<PartialObjectMeta<Secret>, Error> {
        self.api.get_metadata(name).await
    }

    /// The whole Secret, values included: only on an explicit request
    /// (the one request the client's Secret guard lets through).
    pub async fn reveal(&self, name: &str) -> Result<Secret, Error> {
        self.api.reveal(name).await
    }
}

/// One entry of `status.conditions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionView {
    /// `type`, e.g. `Ready`.
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    /// Machine-readable reason, if any.
    pub reason: Option<String>,
    /// Human-readable message, if any.
    pub message: Option<String>,
    /// `lastTransitionTime` as the server wrote it.
    pub last_transition_time: Option<String>,
}

/// Convenient reads of untyped objects.
pub trait DynamicExt {
    /// The object's `spec`, if any.
    fn spec(&self) -> Option<&Value>;
    /// The object's `status`, if any.
    fn status(&self) -> Option<&Value>;
    /// A value by a dotted path such as `spec.template.spec.nodeName`
    /// (array elements by index: `status.conditions.0.type`).
    fn field(&self, path: &str) -> Option<&Value>;
    /// `status.conditions`, skipping malformed entries.
    fn conditions(&self) -> Vec<ConditionView>;
}

impl DynamicExt for DynamicObject {
    fn spec(&self) -> Option<&Value> {
        self.data.get("spec")
    }

    fn status(&self) -> Option<&Value> {
        self.data.get("status")
    }

    fn field(&self, path: &str) -> Option<&Value> {
        path.split('.').try_fold(&self.data, |v, key| match v {
            Value::Object(m) => m.get(key),
            Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        })
    }

    fn conditions(&self) -> Vec<ConditionView> {
        let Some(Value::Array(items)) = self.field("status.conditions") else {
            return Vec::new();
        };
        let text = |c: &Value, k: &str| c.get(k).and_then(Value::as_str).map(String::from);
        items
            .iter()
            .filter_map(|c| {
                Some(ConditionView {
                    type_: text(c, "type")?,
                    status: text(c, "status").unwrap_or_else(|| "Unknown".into()),
                    reason: text(c, "reason"),
                    message: text(c, "message"),
                    last_transition_time: text(c, "lastTransitionTime"),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_accessors_read_spec_status_fields_and_conditions() {
        let o: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "demo.kubeglass.dev/v1alpha1", "kind": "Database",
            "metadata": {"name": "pg"},
            "spec": {"engine": "postgres", "replicas": [1, 2]},
            "status": {"conditions": [
                {"type": "Ready", "status": "True", "reason": "Up", "lastTransitionTime": "2026-01-01T00:00:00Z"},
                {"status": "False"},
                {"type": "Degraded"}
            ]}
        }))
        .expect("object");
        assert_eq!(
            o.spec().and_then(|s| s.get("engine")),
            Some(&Value::from("postgres"))
        );
        assert_eq!(o.field("spec.replicas.1"), Some(&Value::from(2)));
        assert_eq!(o.field("spec.nothing.here"), None);
        assert!(o.status().is_some());
        let c = o.conditions();
        assert_eq!(c.len(), 2, "the entry without a type is skipped");
        assert_eq!(c[0].type_, "Ready");
        assert_eq!(c[0].reason.as_deref(), Some("Up"));
        assert_eq!(c[1].status, "Unknown");
    }
}
