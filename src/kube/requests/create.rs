//! Create from YAML's round trips: where each document goes (its resource from discovery, its namespace), and the server's dry run of creating it.

use kubeglass_client::api::Api;
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::names::validate_namespace;
use kubeglass_kubectl::actions::post_params;
use leptos::prelude::*;
use serde_json::Value;

use crate::kube::Kube;
use crate::kube::requests::edit::Refused;
use crate::rules::create::Doc;
use crate::rules::objects::resource_of;
use crate::rules::problem::Problem;

/// Where a document goes: its resource and namespace (None for a
/// cluster-scoped kind, whose namespace, if written, is ignored as kubectl
/// does); a namespaced one without a namespace goes to `default_ns`.
pub fn target(
    kube: &Kube,
    doc: &Doc,
    default_ns: &str,
) -> Result<(ResourceInfo, Option<String>), String> {
    let discovery = match kube.discovered.get_untracked() {
        Some(Ok(d)) => d,
        Some(Err(p)) => return Err(p.explain("read the server's kinds")),
        None => {
            return Err("The server's kinds are not read yet: review again in a moment.".into());
        }
    };
    let info = resource_of(&discovery, &doc.api_version, &doc.kind)
        .ok_or_else(|| {
            format!(
                "The server has no kind {} in {}.",
                doc.kind, doc.api_version
            )
        })?
        .clone();
    if !info.verbs.iter().any(|v| v == "create") {
        return Err(format!("{} cannot be created.", info.plural));
    }
    if !info.namespaced {
        return Ok((info, None));
    }
    let ns = doc
        .namespace
        .clone()
        .unwrap_or_else(|| default_ns.to_string());
    validate_namespace(&ns).map_err(|e| format!("metadata.namespace: {e}"))?;
    Ok((info, Some(ns)))
}

/// What the server would store if `object` were created (a create with
/// `dryRun=All`: nothing is written).
pub async fn dry_run_create(
    kube: &Kube,
    info: &ResourceInfo,
    namespace: Option<&str>,
    object: &Value,
) -> Result<Value, Refused> {
    let refused = |problem| Refused {
        conflict: false,
        causes: Vec::new(),
        problem,
    };
    let mut object: DynamicObject = serde_json::from_value(object.clone())
        .map_err(|e| refused(Problem::Invalid(format!("the object: {e}"))))?;
    object.metadata.namespace = namespace.map(str::to_string);
    // The same parameters the create itself sends (fieldManager=kubeglass),
    // with dryRun=All: the review shows what that write would store.
    let params = post_params(true);
    let stored =
        Api::<DynamicObject>::dynamic(kube.client.clone(), &info.api_resource(), namespace)
            .create(&params, &object)
            .await
            .map_err(|e| Refused::from_error(&e))?;
    serde_json::to_value(stored).map_err(|e| refused(Problem::Other(e.to_string())))
}
