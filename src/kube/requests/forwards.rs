//! Port-forwards, which `kubectl glass` runs (a browser cannot listen):
//! listed, started and stopped under the token (`kubeglass_kubectl::forwards`),
//! and whether the person may forward to a namespace's pods (RBAC's
//! `create pods/portforward`, as kubectl port-forward needs).

use kubeglass_kubectl::access::{AccessQuery, can_i};
use kubeglass_kubectl::forwards::{FORWARDS_PATH, Forward, ForwardRequest};

use crate::kube::Kube;
use crate::rules::problem::Problem;

fn request(method: &str, path: String, body: Vec<u8>) -> Result<http::Request<Vec<u8>>, Problem> {
    http::Request::builder()
        .method(method)
        .uri(path)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(body)
        .map_err(|e| Problem::Invalid(e.to_string()))
}

/// The running forwards, oldest first.
pub async fn list(kube: &Kube) -> Result<Vec<Forward>, Problem> {
    let req = request("GET", FORWARDS_PATH.into(), Vec::new())?;
    kube.client
        .send_json(req)
        .await
        .map_err(|e| Problem::from_error(&e))
}

/// Starts `r`: answered once kubectl listens, with where.
pub async fn start(kube: &Kube, r: &ForwardRequest) -> Result<Forward, Problem> {
    let body = serde_json::to_vec(r).map_err(|e| Problem::Invalid(e.to_string()))?;
    let req = request("POST", FORWARDS_PATH.into(), body)?;
    kube.client
        .send_json(req)
        .await
        .map_err(|e| Problem::from_error(&e))
}

/// Stops forward `id`.
pub async fn stop(kube: &Kube, id: u32) -> Result<(), Problem> {
    let req = request("DELETE", format!("{FORWARDS_PATH}/{id}"), Vec::new())?;
    kube.client
        .send_raw(req)
        .await
        .map(|_| ())
        .map_err(|e| Problem::from_error(&e))
}

/// May the person forward a port to pods in `namespace`? False when the
/// cluster could not be asked.
pub async fn may_forward(kube: &Kube, namespace: &str) -> bool {
    let query = AccessQuery {
        verb: "create".into(),
        group: String::new(),
        resource: "pods".into(),
        namespace: Some(namespace.to_string()),
        name: None,
        subresource: Some("portforward".into()),
    };
    can_i(&kube.client, &query).await.is_ok_and(|a| a.allowed())
}
