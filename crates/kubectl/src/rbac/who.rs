//! Who may do what, from the RBAC objects alone: "who can `<verb>`
//! `<resource>` in `<namespace>`" ([`who_can`], as `kubectl who-can` answers
//! it) and what one subject is granted ([`granted_to`]).
//!
//! The matching is the RBAC authorizer's: a verb, group and resource match
//! exactly or by `*`; a subresource is `resource/sub` or `*/sub`; a rule
//! with `resourceNames` matches only a request for one of those names; a
//! RoleBinding grants in its own namespace only, a ClusterRoleBinding
//! everywhere. Two things RBAC objects cannot say are left to the caller to
//! word: a user's groups come from their credentials, and the apiserver lets
//! `system:masters` do everything whatever RBAC says.

use super::{Binding, Policy, Rule, SourcedRule, Subject};
use crate::access::AccessQuery;

/// The group the apiserver lets do everything, outside RBAC.
pub const MASTERS: &str = "system:masters";

fn any_or(list: &[String], wanted: &str) -> bool {
    list.iter().any(|x| x == "*" || x == wanted)
}

/// Does `rule` allow `query` (its verb, group, resource, subresource and
/// name; the namespace is the binding's business)?
pub fn allows(rule: &Rule, query: &AccessQuery) -> bool {
    if !any_or(&rule.verbs, &query.verb) || !any_or(&rule.api_groups, &query.group) {
        return false;
    }
    let sub = query.subresource.as_deref().filter(|s| !s.is_empty());
    let combined = match sub {
        Some(s) => format!("{}/{s}", query.resource),
        None => query.resource.clone(),
    };
    let resource = rule.resources.iter().any(|r| {
        r == "*" || *r == combined || sub.is_some_and(|s| r.strip_prefix("*/") == Some(s))
    });
    if !resource {
        return false;
    }
    if rule.resource_names.is_empty() {
        return true;
    }
    query
        .name
        .as_deref()
        .is_some_and(|n| !n.is_empty() && rule.resource_names.iter().any(|r| r == n))
}

/// Does `rule` allow `verb` on the non-resource URL `path`? (`/api/*`
/// covers every path under `/api/`.)
pub fn allows_url(rule: &Rule, verb: &str, path: &str) -> bool {
    any_or(&rule.verbs, verb)
        && rule.non_resource_urls.iter().any(|u| {
            u == "*"
                || u == path
                || u.strip_suffix('*')
                    .is_some_and(|prefix| path.starts_with(prefix))
        })
}

/// One answer: a subject, and the chain that grants it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// Who.
    pub subject: Subject,
    /// `RoleBinding` or `ClusterRoleBinding`.
    pub binding_kind: &'static str,
    /// The binding's namespace (a RoleBinding's).
    pub binding_namespace: Option<String>,
    /// The binding's name.
    pub binding: String,
    /// `Role` or `ClusterRole`.
    pub role_kind: String,
    /// The role's name.
    pub role: String,
    /// The ClusterRole the rule was aggregated from, when not the role's own.
    pub aggregated_from: Option<String>,
    /// The rule that allows it.
    pub rule: Rule,
}

impl Grant {
    /// `subject`'s grant through `binding`, by the rule `found`.
    fn of(subject: &Subject, binding: &Binding, found: &SourcedRule<'_>) -> Grant {
        Grant {
            subject: subject.clone(),
            binding_kind: binding.kind(),
            binding_namespace: binding.namespace.clone(),
            binding: binding.name.clone(),
            role_kind: binding.role.kind.clone(),
            role: binding.role.name.clone(),
            aggregated_from: found.from.map(str::to_string),
            rule: found.rule.clone(),
        }
    }

    /// The chain in words: `ClusterRoleBinding cluster-admin → ClusterRole
    /// cluster-admin`, with `(aggregated from X)` where that applies.
    pub fn chain(&self) -> String {
        let binding = match &self.binding_namespace {
            Some(ns) => format!("{} {ns}/{}", self.binding_kind, self.binding),
            None => format!("{} {}", self.binding_kind, self.binding),
        };
        let via = match &self.aggregated_from {
            Some(from) => format!(" (aggregated from ClusterRole {from})"),
            None => String::new(),
        };
        format!("{binding} → {} {}{via}", self.role_kind, self.role)
    }
}

/// The bindings that count for a request in `namespace` (None: a
/// cluster-scoped request, or one across all namespaces): every
/// ClusterRoleBinding, and the namespace's RoleBindings.
fn bindings_for<'a>(
    policy: &'a Policy,
    namespace: Option<&'a str>,
) -> impl Iterator<Item = &'a Binding> + 'a {
    let local = policy
        .role_bindings
        .values()
        .filter(move |b| namespace.is_some() && b.namespace.as_deref() == namespace);
    policy.cluster_role_bindings.values().chain(local)
}

/// The first of `binding`'s role's rules that `matches`, with its chain,
/// for each of its subjects. A binding whose role does not exist grants
/// nothing, as the authorizer reads it.
fn grants_of(policy: &Policy, binding: &Binding, matches: &dyn Fn(&Rule) -> bool) -> Vec<Grant> {
    let Some(role) = policy.role_of(binding) else {
        return Vec::new();
    };
    let Some(found) = policy.rules_of(role).into_iter().find(|r| matches(r.rule)) else {
        return Vec::new();
    };
    binding
        .subjects
        .iter()
        .map(|subject| Grant::of(subject, binding, &found))
        .collect()
}

/// Who may do `query` (in `query.namespace`; None for cluster-scoped or
/// across all namespaces): every subject of every binding whose role
/// allows it, each with its chain, ClusterRoleBindings first, then by
/// binding and subject.
pub fn who_can(policy: &Policy, query: &AccessQuery) -> Vec<Grant> {
    let namespace = query.namespace.as_deref().filter(|n| !n.is_empty());
    let mut out: Vec<Grant> = bindings_for(policy, namespace)
        .flat_map(|b| grants_of(policy, b, &|r| allows(r, query)))
        .collect();
    out.sort_by(|a, b| {
        (
            a.binding_namespace.is_some(),
            &a.binding_namespace,
            &a.binding,
            &a.subject,
        )
            .cmp(&(
                b.binding_namespace.is_some(),
                &b.binding_namespace,
                &b.binding,
                &b.subject,
            ))
    });
    out
}

/// Who a subject is, as the authorizer sees a request: a user name and
/// groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The user name (`system:serviceaccount:<ns>:<name>` for a
    /// ServiceAccount).
    pub user: String,
    /// The groups.
    pub groups: Vec<String>,
}

impl Identity {
    /// A ServiceAccount's identity: its user name and the groups every
    /// ServiceAccount token carries.
    pub fn service_account(namespace: &str, name: &str) -> Identity {
        Identity {
            user: format!("system:serviceaccount:{namespace}:{name}"),
            groups: vec![
                "system:serviceaccounts".into(),
                format!("system:serviceaccounts:{namespace}"),
                "system:authenticated".into(),
            ],
        }
    }

    /// A user's identity as far as RBAC objects can tell: the name, and
    /// `system:authenticated`, which every signed-in user has. Any other
    /// groups come from the user's credentials, which no object records.
    pub fn user(name: &str) -> Identity {
        Identity {
            user: name.to_string(),
            groups: vec!["system:authenticated".into()],
        }
    }

    /// Does a binding's `subject` name this identity? A ServiceAccount
    /// subject names `system:serviceaccount:<ns>:<name>`.
    pub fn is(&self, subject: &Subject) -> bool {
        match subject.kind.as_str() {
            "User" => subject.name == self.user,
            "Group" => self.groups.contains(&subject.name),
            "ServiceAccount" => subject.namespace.as_deref().is_some_and(|ns| {
                self.user == format!("system:serviceaccount:{ns}:{}", subject.name)
            }),
            _ => false,
        }
    }
}

/// Every rule bound to `who`, in every namespace it holds there (None: by a
/// ClusterRoleBinding, so everywhere), each with its chain: ClusterRole
/// bindings first. `Grant::subject` is the subject that named it (the
/// identity itself or one of its groups).
pub fn granted_to(policy: &Policy, who: &Identity) -> Vec<Grant> {
    let bindings = policy
        .cluster_role_bindings
        .values()
        .chain(policy.role_bindings.values());
    let mut out = Vec::new();
    for binding in bindings {
        let Some(subject) = binding.subjects.iter().find(|s| who.is(s)) else {
            continue;
        };
        let Some(role) = policy.role_of(binding) else {
            continue;
        };
        for found in policy.rules_of(role) {
            out.push(Grant::of(subject, binding, &found));
        }
    }
    out
}

/// Every subject any binding names, each once, sorted: the choices of
/// "whose permissions".
pub fn subjects(policy: &Policy) -> Vec<Subject> {
    let mut all: Vec<Subject> = policy
        .cluster_role_bindings
        .values()
        .chain(policy.role_bindings.values())
        .flat_map(|b| b.subjects.iter().cloned())
        .collect();
    all.sort();
    all.dedup();
    all
}

/// Resolves a name a person typed to its resource's (group, plural,
/// namespaced), as discovery's mapper does.
pub type Resolve<'a> = dyn Fn(&str) -> Option<(String, String, bool)> + 'a;

/// The question a person typed, `verb` and `resource[/subresource]`
/// (`pods`, `deploy`, `deployments.apps`, `pods/log`, `*`), as a query in
/// `namespace`: the resource resolved by `resolve` (discovery's mapper:
/// its group and plural) as `kubectl who-can` resolves it; a cluster-scoped
/// resource is asked cluster-wide whatever the namespace. An error says
/// what is wrong.
pub fn question(
    verb: &str,
    resource: &str,
    namespace: Option<&str>,
    resolve: &Resolve,
) -> Result<AccessQuery, String> {
    let verb = verb.trim();
    if verb.is_empty() || verb.contains(char::is_whitespace) {
        return Err("a verb is one word: get, list, delete, …".into());
    }
    let resource = resource.trim();
    let (name, sub) = match resource.split_once('/') {
        Some((r, s)) if !s.is_empty() && !s.contains('/') => (r, Some(s.to_string())),
        Some(_) => return Err(format!("{resource:?} is not resource/subresource")),
        None => (resource, None),
    };
    if name.is_empty() {
        return Err("which resource? (pods, deployments.apps, pods/log, *)".into());
    }
    let (group, plural, namespaced) = if name == "*" {
        ("*".to_string(), "*".to_string(), true)
    } else {
        resolve(name).ok_or_else(|| format!("the cluster serves no resource called {name:?}"))?
    };
    Ok(AccessQuery {
        verb: verb.to_string(),
        group,
        resource: plural,
        namespace: namespace.filter(|_| namespaced).map(str::to_string),
        name: None,
        subresource: sub,
    })
}
