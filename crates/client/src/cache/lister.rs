//! Listers: get and list from an informer's cache, by namespace, with label selectors.
//!
//! The selector grammar is the API server's: comma-separated requirements,
//! each `key`, `!key`, `key=value`, `key==value`, `key!=value`,
//! `key in (a,b)` or `key notin (a,b)`. All must hold.
//!
//! # Reads
//!
//! Get/list by namespace (`""` is every namespace, as
//! `ListAllByNamespace`) with label selectors (the API server's
//! grammar: `=`, `==`, `!=`, `in`, `notin`, exists, `!key`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use kube_core::Resource;

use super::indexer::{Indexer, NAMESPACE_INDEX};

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// `key` is present.
    Exists(String),
    /// `!key`: absent.
    DoesNotExist(String),
    /// `key=value` / `key==value`.
    Equals(String, String),
    /// `key!=value` (also true when the key is absent).
    NotEquals(String, String),
    /// `key in (a,b)`.
    In(String, Vec<String>),
    /// `key notin (a,b)` (also true when the key is absent).
    NotIn(String, Vec<String>),
}

/// A parsed label selector; the empty selector matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

/// Why a selector did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid label selector {selector:?}: {reason}")]
pub struct SelectorError {
    /// The text given.
    pub selector: String,
    /// What is wrong with it.
    pub reason: String,
}

fn valid_key(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 317
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

fn valid_value(v: &str) -> bool {
    v.len() <= 63
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Splits on commas that are not inside parentheses.
fn split_top_level(s: &str) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return Err("unbalanced ')'".into());
                }
            }
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("unbalanced '('".into());
    }
    parts.push(&s[start..]);
    Ok(parts)
}

fn parse_set(rest: &str) -> Result<Vec<String>, String> {
    let rest = rest.trim();
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| format!("expected (values) after the operator, found {rest:?}"))?;
    let values: Vec<String> = inner.split(',').map(|v| v.trim().to_string()).collect();
    if let Some(bad) = values.iter().find(|v| !valid_value(v)) {
        return Err(format!("invalid value {bad:?}"));
    }
    Ok(values)
}

fn parse_requirement(part: &str) -> Result<Requirement, String> {
    let p = part.trim();
    if p.is_empty() {
        return Err("empty requirement".into());
    }
    let value = |v: &str| -> Result<String, String> {
        let v = v.trim();
        if valid_value(v) {
            Ok(v.to_string())
        } else {
            Err(format!("invalid value {v:?}"))
        }
    };
    let key = |k: &str| -> Result<String, String> {
        let k = k.trim();
        if valid_key(k) {
            Ok(k.to_string())
        } else {
            Err(format!("invalid key {k:?}"))
        }
    };
    if let Some(k) = p.strip_prefix('!') {
        return Ok(Requirement::DoesNotExist(key(k)?));
    }
    if let Some((k, v)) = p.split_once("!=") {
        return Ok(Requirement::NotEquals(key(k)?, value(v)?));
    }
    if let Some((k, v)) = p.split_once("==") {
        return Ok(Requirement::Equals(key(k)?, value(v)?));
    }
    if let Some((k, v)) = p.split_once('=') {
        return Ok(Requirement::Equals(key(k)?, value(v)?));
    }
    let mut words = p.splitn(2, char::is_whitespace);
    let k = words.next().unwrap_or_default();
    let rest = words.next().unwrap_or_default().trim_start();
    if let Some(set) = rest.strip_prefix("notin") {
        return Ok(Requirement::NotIn(key(k)?, parse_set(set)?));
    }
    if let Some(set) = rest.strip_prefix("in") {
        return Ok(Requirement::In(key(k)?, parse_set(set)?));
    }
    if rest.is_empty() {
        return Ok(Requirement::Exists(key(k)?));
    }
    Err(format!("cannot read {p:?}"))
}

impl LabelSelector {
    /// Parses `text`; empty text is the match-everything selector.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        let err = |reason: String| SelectorError {
            selector: text.to_string(),
            reason,
        };
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        let requirements = split_top_level(text)
            .map_err(err)?
            .into_iter()
            .map(parse_requirement)
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        Ok(Self { requirements })
    }

    /// The requirements, in the order written.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// True when it matches everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// True when `labels` satisfy every requirement.
    pub fn matches(&self, labels: Option<&BTreeMap<String, String>>) -> bool {
        let get = |k: &str| labels.and_then(|l| l.get(k)).map(String::as_str);
        self.requirements.iter().all(|r| match r {
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::DoesNotExist(k) => get(k).is_none(),
            Requirement::Equals(k, v) => get(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => get(k) != Some(v.as_str()),
            Requirement::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Requirement::NotIn(k, vs) => !get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
        })
    }
}

/// Reads an informer's cache.
pub struct Lister<K> {
    indexer: Rc<RefCell<Indexer<K>>>,
}

impl<K> Clone for Lister<K> {
    fn clone(&self) -> Self {
        Self {
            indexer: self.indexer.clone(),
        }
    }
}

impl<K: Resource> Lister<K> {
    /// A lister over `indexer`.
    pub fn new(indexer: Rc<RefCell<Indexer<K>>>) -> Self {
        Self { indexer }
    }

    /// Every object matching `selector`.
    pub fn list(&self, selector: &LabelSelector) -> Vec<Rc<K>> {
        let all = self.indexer.borrow().list();
        filter(all, selector)
    }

    /// A cluster-scoped object (or any object by its full key).
    pub fn get(&self, key: &str) -> Option<Rc<K>> {
        self.indexer.borrow().get(key)
    }

    /// The objects of one namespace.
    pub fn namespace(&self, namespace: &str) -> NamespaceLister<K> {
        NamespaceLister {
            indexer: self.indexer.clone(),
            namespace: namespace.to_string(),
        }
    }
}

/// Reads one namespace of an informer's cache.
pub struct NamespaceLister<K> {
    indexer: Rc<RefCell<Indexer<K>>>,
    namespace: String,
}

impl<K: Resource> NamespaceLister<K> {
    /// The object named `name` in this namespace.
    pub fn get(&self, name: &str) -> Option<Rc<K>> {
        self.indexer
            .borrow()
            .get(&format!("{}/{name}", self.namespace))
    }

    /// Objects in this namespace matching `selector` (found through the
    /// namespace index). The namespace `""` is every namespace, as in
    /// client-go's `ListAllByNamespace` (`metav1.NamespaceAll`).
    pub fn list(&self, selector: &LabelSelector) -> Vec<Rc<K>> {
        let indexer = self.indexer.borrow();
        let objs = if self.namespace.is_empty() {
            indexer.list()
        } else {
            indexer
                .by_index(NAMESPACE_INDEX, &self.namespace)
                .unwrap_or_default()
        };
        filter(objs, selector)
    }
}

fn filter<K: Resource>(objs: Vec<Rc<K>>, selector: &LabelSelector) -> Vec<Rc<K>> {
    if selector.is_empty() {
        return objs;
    }
    objs.into_iter()
        .filter(|o| selector.matches(o.meta().labels.as_ref()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn selectors_follow_the_api_server_grammar() {
        let l = labels(&[("app", "web"), ("tier", "front"), ("env", "prod")]);
        let yes = [
            "",
            "app=web",
            "app==web",
            "app",
            "!missing",
            "tier!=back",
            "missing!=x",
            "env in (prod, staging)",
            "env notin (dev)",
            "missing notin (a)",
            "app=web,tier in (front),!gone",
            "example.com/part-of",
        ];
        let no = [
            "app=db",
            "missing",
            "!app",
            "app!=web",
            "env in (dev,staging)",
            "env notin (prod)",
            "missing in (a)",
            "app=web,tier=back",
        ];
        let l2 = labels(&[
            ("example.com/part-of", "x"),
            ("app", "web"),
            ("env", "prod"),
            ("tier", "front"),
        ]);
        for s in yes {
            let sel = LabelSelector::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert!(
                sel.matches(Some(&l2)) || sel.matches(Some(&l)),
                "{s} should match"
            );
        }
        for s in no {
            let sel = LabelSelector::parse(s).expect("present");
            assert!(!sel.matches(Some(&l)), "{s} should not match");
        }
        assert!(LabelSelector::parse("").expect("present").matches(None));
        assert!(!LabelSelector::parse("app").expect("present").matches(None));
    }

    #[test]
    fn bad_selectors_say_what_is_wrong() {
        for s in [
            "app=", "=web", "a in (x", "a in x", "a,,b", "a b c", "a=<b>",
        ] {
            let e = LabelSelector::parse(s);
            if s == "app=" {
                // An empty value is allowed: app=  matches app="".
                assert!(e.is_ok());
                continue;
            }
            let e = e.expect_err(s);
            assert_eq!(e.selector, s);
            assert!(!e.reason.is_empty());
        }
    }

    fn cm(ns: &str, name: &str, app: &str) -> Rc<ConfigMap> {
        let mut c = ConfigMap::default();
        c.metadata.namespace = Some(ns.into());
        c.metadata.name = Some(name.into());
        c.metadata.labels = Some(labels(&[("app", app)]));
        Rc::new(c)
    }

    #[test]
    fn listers_read_by_namespace_and_selector() {
        let indexer = Rc::new(RefCell::new(Indexer::new()));
        indexer.borrow_mut().put(cm("a", "one", "web"));
        indexer.borrow_mut().put(cm("a", "two", "db"));
        indexer.borrow_mut().put(cm("b", "three", "web"));
        let lister = Lister::new(indexer);
        let web = LabelSelector::parse("app=web").expect("present");
        assert_eq!(lister.list(&web).len(), 2);
        assert_eq!(lister.list(&LabelSelector::default()).len(), 3);
        let a = lister.namespace("a");
        assert_eq!(a.list(&web).len(), 1);
        assert_eq!(a.list(&LabelSelector::default()).len(), 2);
        assert!(a.get("two").is_some());
        assert!(a.get("three").is_none());
        assert!(lister.get("b/three").is_some());
        // ListAllByNamespace: "" is every namespace.
        assert_eq!(lister.namespace("").list(&web).len(), 2);
        assert_eq!(
            lister.namespace("").list(&LabelSelector::default()).len(),
            3
        );
    }
}
