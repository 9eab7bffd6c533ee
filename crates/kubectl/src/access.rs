//! What the current user may do, asked as `kubectl auth can-i` asks it: one
//! `SelfSubjectAccessReview` per question.
//!
//! The answer is an [`Access`] or an [`Error`]: a network blip or a server
//! error is not "denied", so the app can say "could not ask" instead of
//! telling someone with every right that their access is read-only.

use serde::Deserialize;
use serde_json::json;

use kubeglass_client::rest::{Error, RestClient};

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

/// The rules review's endpoint.
pub const RULES_PATH: &str = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";

#[derive(Deserialize)]
struct RulesReview {
    #[serde(default)]
    status: Option<RulesStatus>,
}

#[derive(Deserialize)]
struct RulesStatus {
    #[serde(default, rename = "resourceRules")]
    resource_rules: Vec<ResourceRule>,
    #[serde(default)]
    incomplete: bool,
}

#[derive(Deserialize)]
struct ResourceRule {
    #[serde(default)]
    verbs: Vec<String>,
    #[serde(default, rename = "apiGroups")]
    api_groups: Vec<String>,
}

/// Groups whose `create` every user has (`system:basic-user`: asking what
/// one may do is a create of a review): they say nothing of creating objects.
const REVIEW_GROUPS: &[&str] = &["authorization.k8s.io", "authentication.k8s.io"];

/// May the person create anything at all in `namespace`? Read from a
/// SelfSubjectRulesReview: some rule allows `create` (or `*`), other than
/// the reviews every user may create. An
/// incomplete list (an authorizer that cannot enumerate) counts as yes:
/// each create is still asked of the server, which may refuse it.
pub async fn may_create_in(client: &RestClient, namespace: &str) -> Result<bool, Error> {
    let body = json!({
        "apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
        "spec": {"namespace": namespace}
    });
    let request = http::Request::post(RULES_PATH)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(body.to_string().into_bytes())
        .map_err(|e| Error::Request(e.to_string()))?;
    let review: RulesReview = client.send_json(request).await?;
    let status = review
        .status
        .ok_or_else(|| Error::Decode("a SelfSubjectRulesReview without a status".into()))?;
    Ok(status.incomplete
        || status
            .resource_rules
            .iter()
            .filter(|r| {
                !r.api_groups
                    .iter()
                    .all(|g| REVIEW_GROUPS.contains(&g.as_str()))
            })
            .any(|r| r.verbs.iter().any(|v| v == "create" || v == "*")))
}
