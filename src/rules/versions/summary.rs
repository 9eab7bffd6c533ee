//! A change in words: a value cut short, one line naming the first fields
//! and the writers, and the count of changes per top-level section.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::{FieldChange, Manager, manager_words};

/// Fields a summary leaves out: they follow another change (a spec change
/// moves the generation), so naming them says nothing new.
const FOLLOWERS: &[&str] = &["metadata.generation"];

/// A value in a line of text: strings bare, the rest as JSON, cut at 40
/// characters.
pub fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    if s.chars().count() > 40 {
        let head: String = s.chars().take(39).collect();
        format!("{head}…")
    } else {
        s
    }
}

/// A change in one line: the first fields that differ (`spec.replicas 3 →
/// 5`, `metadata.labels.tier = web`, `spec.paused removed`), how many more,
/// and who wrote it (`by kubectl-scale`).
pub fn summary(changes: &[FieldChange], by: &[Manager]) -> String {
    const SHOWN: usize = 3;
    let said: Vec<&FieldChange> = changes
        .iter()
        .filter(|c| !FOLLOWERS.contains(&c.path.as_str()))
        .collect();
    let changes = if said.is_empty() {
        changes.iter().collect()
    } else {
        said
    };
    let mut s = String::new();
    for (i, c) in changes.iter().take(SHOWN).enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = match (&c.old, &c.new) {
            (Some(a), Some(b)) => write!(s, "{} {} → {}", c.path, short(a), short(b)),
            (None, Some(b)) => write!(s, "{} = {}", c.path, short(b)),
            (Some(_), None) => write!(s, "{} removed", c.path),
            (None, None) => Ok(()),
        };
    }
    if changes.len() > SHOWN {
        let _ = write!(s, " and {} more", changes.len() - SHOWN);
    }
    if changes.is_empty() {
        s.push_str("no field changed");
    }
    let mut names: Vec<String> = Vec::new();
    for m in by {
        let w = manager_words(m);
        if !names.contains(&w) {
            names.push(w);
        }
    }
    if !names.is_empty() {
        let _ = write!(s, ", by {}", names.join(", "));
    }
    s
}

/// A version's changes by top-level section (`metadata`, `spec`,
/// `status`…), for folding status-only updates.
pub fn sections(changes: &[FieldChange]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for c in changes {
        let top = c.path.split(['.', '[']).next().unwrap_or("").to_string();
        *out.entry(top).or_default() += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::rules::versions::*;
    use serde_json::json;

    #[test]
    fn summaries_name_three_changes_and_count_the_rest() {
        let c = |p: &str, o: Option<Value>, n: Option<Value>| FieldChange {
            path: p.into(),
            at: Vec::new(),
            old: o,
            new: n,
        };
        let changes = [
            c("metadata.labels.tier", None, Some(json!("front"))),
            c("spec.paused", Some(json!(true)), None),
            c("spec.replicas", Some(json!(1)), Some(json!(2))),
            c("spec.x", Some(json!("a")), Some(json!("b"))),
        ];
        assert_eq!(
            summary(&changes, &[]),
            "metadata.labels.tier = front, spec.paused removed, spec.replicas 1 → 2 and 1 more"
        );
        assert_eq!(summary(&[], &[]), "no field changed");
        assert_eq!(short(&json!("x".repeat(50))).chars().count(), 40);
        assert_eq!(
            sections(&changes),
            BTreeMap::from([("metadata".into(), 1), ("spec".into(), 3)])
        );
    }
}
