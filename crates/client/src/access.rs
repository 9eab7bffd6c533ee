//! What the current user may do, asked as `kubectl auth can-i` asks it: one
//! `SelfSubjectAccessReview` per question.
//!
//! The answer is an [`Access`] or an [`Error`]: a network blip or a server
//! error is not "denied", so the app can say "could not ask" instead of
//! telling someone with every right that their access is read-only.

use serde::Deserialize;
use serde_json::json;

use crate::rest::{Error, RestClient};

/// The review's endpoint.
pub const REVIEW_PATH: &str = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

/// One question: may I `verb` this resource (and name, and subresource)?
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessQuery {
    /// `get`, `delete`, `patch`, `update`, …
    pub verb: String,
    /// The API group (`""` for core).
    pub group: String,
    /// The plural resource.
    pub resource: String,
    /// The namespace, for namespaced resources.
    pub namespace: Option<String>,
    /// One object's name, or all.
    pub name: Option<String>,
    /// A subresource (`scale`, `log`, …).
    pub subresource: Option<String>,
}

/// The server's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Allowed.
    Allowed,
    /// Not allowed, with the authorizer's reason when it gave one.
    Denied {
        /// `status.reason`.
        reason: Option<String>,
    },
}

impl Access {
    /// True when allowed.
    pub fn allowed(&self) -> bool {
        matches!(self, Self::Allowed)
    }
}

#[derive(Deserialize)]
struct Review {
    #[serde(default)]
    status: Option<ReviewStatus>,
}

#[derive(Deserialize)]
struct ReviewStatus {
    #[serde(default)]
    allowed: bool,
    #[serde(default)]
    reason: Option<String>,
}

/// Asks the server `query`. Only an answer is an [`Access`]; a failure to
/// ask (transport, server error, a body that is not a review) is an error.
pub async fn can_i(client: &RestClient, query: &AccessQuery) -> Result<Access, Error> {
    // Plain JSON rather than the typed review: one typed kind fewer in the wasm.
    let body = json!({
        "apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {
            "verb": query.verb, "group": query.group, "resource": query.resource,
            "name": query.name.as_deref().unwrap_or_default(),
            "namespace": query.namespace.as_deref().unwrap_or_default(),
            "subresource": query.subresource.as_deref().unwrap_or_default()}}
    });
    let request = http::Request::post(REVIEW_PATH)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(body.to_string().into_bytes())
        .map_err(|e| Error::Request(e.to_string()))?;
    let review: Review = client.send_json(request).await?;
    let status = review
        .status
        .ok_or_else(|| Error::Decode("a SelfSubjectAccessReview without a status".into()))?;
    Ok(if status.allowed {
        Access::Allowed
    } else {
        Access::Denied {
            reason: status.reason.filter(|r| !r.is_empty()),
        }
    })
}
