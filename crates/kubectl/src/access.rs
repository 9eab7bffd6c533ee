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
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
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

/// Groups whose `create` every user has (`system:basic-user`: asking what
/// one may do is a create of a review): they say nothing of creating objects.
const REVIEW_GROUPS: &[&str] = &["authorization.k8s.io", "authentication.k8s.io"];

/// May the person create anything at all in `namespace`? Read from a
/// SelfSubjectRulesReview: some rule allows `create` (or `*`), other than
/// the reviews every user may create. An
/// incomplete list (an authorizer that cannot enumerate) counts as yes:
/// each create is still asked of the server, which may refuse it.
pub async fn may_create_in(client: &RestClient, namespace: &str) -> Result<bool, Error> {
    let status = crate::rbac::list::review(client, namespace).await?;
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

/// The most objects one [`Reviews::each`] asks about by name: where the
/// person may not act on the whole namespace, each object is asked about
/// by name (a Role may name objects), and past this many the rest are not
/// asked and count as not allowed.
pub const MAX_NAMED: usize = 1000;

/// How many reviews by name are in flight at once.
const IN_FLIGHT: usize = 8;

/// What a bulk action may do to one object.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Allowed: for the whole namespace (or cluster), or for this object by
    /// name.
    Allowed,
    /// Not allowed, with the authorizer's reason when it gave one.
    Denied {
        /// `status.reason`.
        reason: Option<String>,
    },
    /// Not asked: more than [`MAX_NAMED`] objects needed asking by name.
    NotAsked,
    /// The cluster could not be asked (not the same as "no").
    Unknown(Error),
}

impl Verdict {
    /// True when allowed.
    pub fn allowed(&self) -> bool {
        matches!(self, Verdict::Allowed)
    }
}

impl From<Result<Access, Error>> for Verdict {
    fn from(r: Result<Access, Error>) -> Self {
        match r {
            Ok(Access::Allowed) => Verdict::Allowed,
            Ok(Access::Denied { reason }) => Verdict::Denied { reason },
            Err(e) => Verdict::Unknown(e),
        }
    }
}

/// Access reviews for many objects, each answer kept for the life of the
/// value (the answers of one page: a table's marks change often, the
/// person's rights seldom), failures not kept.
#[derive(Clone)]
pub struct Reviews {
    client: RestClient,
    answers: std::rc::Rc<std::cell::RefCell<std::collections::HashMap<AccessQuery, Access>>>,
}

impl Reviews {
    /// Reviews asked with `client`.
    pub fn new(client: RestClient) -> Self {
        Self {
            client,
            answers: std::rc::Rc::default(),
        }
    }

    /// How many answers are kept.
    pub fn kept(&self) -> usize {
        self.answers.borrow().len()
    }

    /// `query`'s answer, asked once.
    pub async fn ask(&self, query: &AccessQuery) -> Result<Access, Error> {
        if let Some(a) = self.answers.borrow().get(query) {
            return Ok(a.clone());
        }
        let a = can_i(&self.client, query).await?;
        self.answers.borrow_mut().insert(query.clone(), a.clone());
        Ok(a)
    }

    /// May the person do `what` (its verb, group, resource and subresource;
    /// its namespace and name are ignored) to each of `objects` (namespace,
    /// name)? One review per namespace (or one for the cluster) first;
    /// where that says no, each object there is asked by name, at most
    /// `max_named` of them in all (the rest are [`Verdict::NotAsked`]).
    /// The verdicts are in the order of `objects`.
    pub async fn each(
        &self,
        what: &AccessQuery,
        objects: &[(Option<String>, String)],
        max_named: usize,
    ) -> Vec<Verdict> {
        use futures::StreamExt;
        let scoped = |namespace: &Option<String>, name: Option<&str>| AccessQuery {
            namespace: namespace.clone(),
            name: name.map(str::to_string),
            ..what.clone()
        };
        // The namespaces, in order of first appearance.
        let mut spaces: Vec<&Option<String>> = Vec::new();
        for (ns, _) in objects {
            if !spaces.contains(&ns) {
                spaces.push(ns);
            }
        }
        let mut whole = std::collections::HashMap::new();
        for ns in spaces {
            let answer = Verdict::from(self.ask(&scoped(ns, None)).await);
            whole.insert(ns.clone(), answer);
        }
        // Where the whole namespace is not allowed, by name.
        let named: Vec<usize> = (0..objects.len())
            .filter(|&i| matches!(whole[&objects[i].0], Verdict::Denied { .. }))
            .collect();
        let asked = named.iter().take(max_named).map(|&i| {
            let q = scoped(&objects[i].0, Some(&objects[i].1));
            async move { (i, Verdict::from(self.ask(&q).await)) }
        });
        let by_name: std::collections::HashMap<usize, Verdict> = futures::stream::iter(asked)
            .buffered(IN_FLIGHT)
            .collect()
            .await;
        (0..objects.len())
            .map(|i| match by_name.get(&i) {
                Some(v) => v.clone(),
                None if named.contains(&i) => Verdict::NotAsked,
                None => whole[&objects[i].0].clone(),
            })
            .collect()
    }
}
