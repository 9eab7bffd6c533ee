//! RBAC read as the apiserver's authorizer reads it: Roles, ClusterRoles
//! and their bindings, from the objects' own JSON.
//!
//! - [`Policy`] holds them, each ClusterRole's aggregation followed in the
//!   tab ([`Policy::rules_of`]), so an aggregated role's rules are known
//!   even where no controller has filled them in yet, and each rule says
//!   which role it came from.
//! - [`who`] answers "who can `<verb>` `<resource>` in `<namespace>`", as
//!   `kubectl who-can` does, each answer with the chain that grants it, and
//!   a subject's effective rules.
//! - [`list`] is `kubectl auth can-i --list`: the person's own rules from a
//!   SelfSubjectRulesReview, broken down and compacted as kubectl prints
//!   them.
//!
//! Nothing here asks the cluster for RBAC objects: the app's informers hold
//! them and hand each object to [`Role::from_object`] or
//! [`Binding::from_object`].

use std::collections::BTreeMap;

use kube_core::DynamicObject;
use serde::Deserialize;

pub mod list;
pub mod who;

/// One rule of a role (`rbac.authorization.k8s.io/v1` `PolicyRule`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// The verbs (`*` for all).
    #[serde(default)]
    pub verbs: Vec<String>,
    /// The API groups (`""` for core, `*` for all).
    #[serde(default)]
    pub api_groups: Vec<String>,
    /// The resources (`pods`, `pods/log`, `*/scale`, `*`).
    #[serde(default)]
    pub resources: Vec<String>,
    /// The object names it is limited to (none: all).
    #[serde(default)]
    pub resource_names: Vec<String>,
    /// The non-resource URLs (`/healthz`, `/api/*`).
    #[serde(default, rename = "nonResourceURLs")]
    pub non_resource_urls: Vec<String>,
}

/// Which kind of role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoleKind {
    /// A namespace's Role.
    Role,
    /// A ClusterRole.
    ClusterRole,
}

impl RoleKind {
    /// The kind's name.
    pub fn as_str(self) -> &'static str {
        match self {
            RoleKind::Role => "Role",
            RoleKind::ClusterRole => "ClusterRole",
        }
    }
}

/// A label selector (`matchLabels` and `matchExpressions`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Selector {
    /// Labels that must equal.
    #[serde(default)]
    pub match_labels: BTreeMap<String, String>,
    /// Expressions that must hold.
    #[serde(default)]
    pub match_expressions: Vec<Expression>,
}

/// One `matchExpressions` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Expression {
    /// The label's key.
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    pub operator: String,
    /// The values, for `In` and `NotIn`.
    #[serde(default)]
    pub values: Vec<String>,
}

impl Selector {
    /// Does it select an object with `labels`? An empty selector selects
    /// every object, as the aggregation controller reads it (so `[{}]`
    /// aggregates every ClusterRole, cluster-admin's rules included); an
    /// unknown operator selects nothing.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|e| {
                let value = labels.get(&e.key);
                match e.operator.as_str() {
                    "In" => value.is_some_and(|v| e.values.contains(v)),
                    "NotIn" => value.is_none_or(|v| !e.values.contains(v)),
                    "Exists" => value.is_some(),
                    "DoesNotExist" => value.is_none(),
                    _ => false,
                }
            })
    }
}

/// A Role or ClusterRole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    /// Role or ClusterRole.
    pub kind: RoleKind,
    /// A Role's namespace.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
    /// Its labels (what aggregation selects by).
    pub labels: BTreeMap<String, String>,
    /// Its own rules (for an aggregated ClusterRole, those a controller
    /// wrote, if any).
    pub rules: Vec<Rule>,
    /// A ClusterRole's aggregation: the ClusterRoles whose labels match any
    /// of these give it their rules.
    pub aggregation: Vec<Selector>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RoleBody {
    #[serde(default)]
    rules: Option<Vec<Rule>>,
    #[serde(default)]
    aggregation_rule: Option<Aggregation>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Aggregation {
    #[serde(default)]
    cluster_role_selectors: Vec<Selector>,
}

/// The error of an object that is not what its kind says.
fn unreadable(kind: &str, o: &DynamicObject, e: serde_json::Error) -> String {
    let name = o.metadata.name.as_deref().unwrap_or("(no name)");
    format!("{kind} {name} could not be read: {e}")
}

impl Role {
    /// Reads a Role or ClusterRole from its object.
    pub fn from_object(kind: RoleKind, o: &DynamicObject) -> Result<Role, String> {
        let body = RoleBody::deserialize(&o.data).map_err(|e| unreadable(kind.as_str(), o, e))?;
        Ok(Role {
            kind,
            namespace: o.metadata.namespace.clone(),
            name: o.metadata.name.clone().unwrap_or_default(),
            labels: o.metadata.labels.clone().unwrap_or_default(),
            rules: body.rules.unwrap_or_default(),
            aggregation: body
                .aggregation_rule
                .map(|a| a.cluster_role_selectors)
                .unwrap_or_default(),
        })
    }
}

/// What a binding grants: a Role (in the binding's namespace) or a
/// ClusterRole.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RoleRef {
    /// `Role` or `ClusterRole`.
    pub kind: String,
    /// The role's name.
    pub name: String,
}

/// Who a binding grants it to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
pub struct Subject {
    /// `User`, `Group` or `ServiceAccount`.
    pub kind: String,
    /// The name.
    pub name: String,
    /// A ServiceAccount's namespace (a RoleBinding's own when absent).
    #[serde(default)]
    pub namespace: Option<String>,
}

impl Subject {
    /// How a person would write it: `User alice`, `ServiceAccount ns/name`.
    pub fn words(&self) -> String {
        match &self.namespace {
            Some(ns) if self.kind == "ServiceAccount" => {
                format!("{} {ns}/{}", self.kind, self.name)
            }
            _ => format!("{} {}", self.kind, self.name),
        }
    }
}

/// A RoleBinding or ClusterRoleBinding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// A RoleBinding's namespace; None for a ClusterRoleBinding.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
    /// The role it grants.
    pub role: RoleRef,
    /// To whom.
    pub subjects: Vec<Subject>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BindingBody {
    role_ref: RoleRef,
    #[serde(default)]
    subjects: Option<Vec<Subject>>,
}

impl Binding {
    /// Reads a RoleBinding (namespaced) or ClusterRoleBinding from its
    /// object. A RoleBinding's ServiceAccount subjects without a namespace
    /// are in the binding's own, as the authorizer reads them.
    pub fn from_object(o: &DynamicObject) -> Result<Binding, String> {
        let kind = if o.metadata.namespace.is_some() {
            "RoleBinding"
        } else {
            "ClusterRoleBinding"
        };
        let body = BindingBody::deserialize(&o.data).map_err(|e| unreadable(kind, o, e))?;
        let namespace = o.metadata.namespace.clone();
        let subjects = body
            .subjects
            .unwrap_or_default()
            .into_iter()
            .map(|mut s| {
                if s.kind == "ServiceAccount" && s.namespace.as_deref().unwrap_or("").is_empty() {
                    s.namespace = namespace.clone();
                }
                if s.namespace.as_deref() == Some("") {
                    s.namespace = None;
                }
                s
            })
            .collect();
        Ok(Binding {
            namespace,
            name: o.metadata.name.clone().unwrap_or_default(),
            role: body.role_ref,
            subjects,
        })
    }

    /// `RoleBinding` or `ClusterRoleBinding`.
    pub fn kind(&self) -> &'static str {
        if self.namespace.is_some() {
            "RoleBinding"
        } else {
            "ClusterRoleBinding"
        }
    }
}

/// A rule and the role it is written in: for an aggregated ClusterRole's
/// rule, the ClusterRole it was aggregated from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedRule<'a> {
    /// The rule.
    pub rule: &'a Rule,
    /// The ClusterRole it is aggregated from, when not the role's own.
    pub from: Option<&'a str>,
}

/// Every Role, ClusterRole and binding, by key (`namespace/name` or `name`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Roles by `namespace/name`.
    pub roles: BTreeMap<String, Role>,
    /// ClusterRoles by name.
    pub cluster_roles: BTreeMap<String, Role>,
    /// RoleBindings by `namespace/name`.
    pub role_bindings: BTreeMap<String, Binding>,
    /// ClusterRoleBindings by name.
    pub cluster_role_bindings: BTreeMap<String, Binding>,
}

impl Policy {
    /// The role `binding` grants, if it exists.
    pub fn role_of(&self, binding: &Binding) -> Option<&Role> {
        match (binding.role.kind.as_str(), &binding.namespace) {
            ("ClusterRole", _) => self.cluster_roles.get(&binding.role.name),
            ("Role", Some(ns)) => self.roles.get(&format!("{ns}/{}", binding.role.name)),
            _ => None,
        }
    }

    /// A role's rules: its own, then, for an aggregated ClusterRole, those of
    /// every ClusterRole its selectors pick (followed through aggregated
    /// roles, each role once), each with where it came from. A rule the
    /// aggregation controller already copied in is then listed twice; the
    /// first (the role's own) is the one a chain names.
    pub fn rules_of<'a>(&'a self, role: &'a Role) -> Vec<SourcedRule<'a>> {
        let mut out: Vec<SourcedRule<'a>> = role
            .rules
            .iter()
            .map(|rule| SourcedRule { rule, from: None })
            .collect();
        if role.kind != RoleKind::ClusterRole || role.aggregation.is_empty() {
            return out;
        }
        let mut seen = vec![role.name.as_str()];
        let mut queue: Vec<&Role> = vec![role];
        while let Some(r) = queue.pop() {
            for picked in self.cluster_roles.values() {
                if seen.contains(&picked.name.as_str())
                    || !r.aggregation.iter().any(|s| s.matches(&picked.labels))
                {
                    continue;
                }
                seen.push(&picked.name);
                out.extend(picked.rules.iter().map(|rule| SourcedRule {
                    rule,
                    from: Some(picked.name.as_str()),
                }));
                queue.push(picked);
            }
        }
        out
    }
}
