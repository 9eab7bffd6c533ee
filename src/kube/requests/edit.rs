//! An edit's round trips that write nothing: the server's dry run of the edit's patch (what it would store, defaulting and admission applied), and the object as the server holds it now, for a conflict.

use kubeglass_client::api::Api;
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::kube_core::params::{Patch, PatchParams};
use kubeglass_client::rest::Error;
use kubeglass_kubectl::actions::FIELD_MANAGER;
use serde_json::Value;

use crate::kube::Kube;
use crate::rules::problem::Problem;

/// Why the server would not take an edit.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    /// 409: the object changed since the edit started.
    pub conflict: bool,
    /// The fields the server named, with what it said of each.
    pub causes: Vec<(String, String)>,
    /// The failure in words.
    pub problem: Problem,
}

impl Refused {
    /// Reads a client error.
    pub fn from_error(e: &Error) -> Self {
        let api = e.api();
        Self {
            conflict: api.is_some_and(|a| a.is_conflict()),
            causes: api
                .and_then(|a| a.status.details.as_ref())
                .map(|d| {
                    d.causes
                        .iter()
                        .map(|c| (c.field.clone(), c.message.clone()))
                        .collect()
                })
                .unwrap_or_default(),
            problem: Problem::from_error(e),
        }
    }
}

fn api(kube: &Kube, info: &ResourceInfo, namespace: Option<&str>) -> Api<DynamicObject> {
    Api::dynamic(kube.client.clone(), &info.api_resource(), namespace)
}

/// What the server would store if `patch` (an edit's merge patch, with
/// the resourceVersion it began from) were applied to `name`: the same
/// patch with `dryRun=All`, so nothing is written.
pub async fn dry_run(
    kube: &Kube,
    info: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
    patch: &Value,
) -> Result<Value, Refused> {
    let params = PatchParams {
        dry_run: true,
        field_manager: Some(FIELD_MANAGER.to_string()),
        ..PatchParams::default()
    };
    let stored = api(kube, info, namespace)
        .patch(name, &params, &Patch::Merge(patch))
        .await
        .map_err(|e| Refused::from_error(&e))?;
    serde_json::to_value(stored).map_err(|e| Refused {
        conflict: false,
        causes: Vec::new(),
        problem: Problem::Other(e.to_string()),
    })
}

/// The object as the server holds it now.
pub async fn read_now(
    kube: &Kube,
    info: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
) -> Result<Value, Problem> {
    let o = api(kube, info, namespace)
        .get(name)
        .await
        .map_err(|e| Problem::from_error(&e))?;
    serde_json::to_value(o).map_err(|e| Problem::Other(e.to_string()))
}
