//! Editing an object safely: the YAML a person edits (status and managedFields away), read back with errors at their line and column, the server's dry-run answer as a field-by-field review with the server's own changes marked, the three versions of a conflict, and a rebase of the person's edit onto the server's newer object.

use serde_json::{Map, Number, Value};
use yaml_rust2::{Yaml, YamlLoader};

use kubeglass_kubectl::actions::patch::merge_patch;

use crate::rules::versions::{FieldChange, diff, get_at, set_at};
use crate::rules::yaml::to_yaml;

/// The object as a person edits it: without `status` (the server ignores
/// it on an update) and `metadata.managedFields` (the server keeps them);
/// the resourceVersion stays, so a write from a stale edit is refused.
pub fn editable(object: &Value) -> Value {
    let mut o = object.clone();
    if let Some(m) = o.as_object_mut() {
        m.remove("status");
    }
    if let Some(m) = o.get_mut("metadata").and_then(Value::as_object_mut) {
        m.remove("managedFields");
    }
    o
}

/// The text the editor opens with.
pub fn editable_yaml(object: &Value) -> String {
    to_yaml(&editable(object))
}

/// Why an edit could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditError {
    /// 1-based line, when the error has a place.
    pub line: Option<usize>,
    /// 1-based column.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            (Some(l), None) => write!(f, "line {l}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

fn error(message: impl Into<String>) -> EditError {
    EditError {
        line: None,
        column: None,
        message: message.into(),
    }
}

/// Reads one YAML (or JSON) document as an object.
pub fn parse(text: &str) -> Result<Value, EditError> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| EditError {
        line: Some(e.marker().line()),
        column: Some(e.marker().col() + 1),
        message: e.info().to_string(),
    })?;
    let [doc] = docs.as_slice() else {
        return Err(error(format!(
            "one document is edited here, and the text holds {}",
            docs.len()
        )));
    };
    let v = to_json(doc, "")?;
    if !v.is_object() {
        return Err(error("the text is not an object (a map of fields)"));
    }
    Ok(v)
}

pub(crate) fn to_json(y: &Yaml, path: &str) -> Result<Value, EditError> {
    Ok(match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::Number((*i).into()),
        Yaml::Real(r) => {
            let f: f64 = r
                .parse()
                .map_err(|_| error(format!("{path}: {r} is not a number")))?;
            Number::from_f64(f)
                .map(Value::Number)
                .ok_or_else(|| error(format!("{path}: {r} is not a finite number")))?
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(a) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, y)| to_json(y, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    Yaml::Real(r) => r.clone(),
                    _ => return Err(error(format!("{path}: a key that is not text"))),
                };
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                let value = to_json(v, &at)?;
                if m.insert(key, value).is_some() {
                    return Err(error(format!("{at} is given twice")));
                }
            }
            Value::Object(m)
        }
        Yaml::Alias(_) => return Err(error(format!("{path}: an alias to nothing"))),
        Yaml::BadValue => return Err(error(format!("{path}: a value that could not be read"))),
    })
}

/// One line of a review: a field that the write would change, and whether
/// the server changed it (defaulting, a webhook) rather than the person.
#[derive(Debug, Clone, PartialEq)]
pub struct Reviewed {
    /// The field, before (live) and after (what the server would store).
    pub change: FieldChange,
    /// The value differs from what the person sent: the server's doing.
    pub by_server: bool,
}

/// What Apply sends for the text `edited`, opened from `base`: the merge
/// patch of what the person changed (`status` and managedFields, which the
/// text leaves out, untouched), carrying the resourceVersion the edit began
/// from, so the server applies it only to that very object.
pub fn edit_patch(base: &Value, edited: &Value) -> Value {
    let mut patch = merge_patch(&editable(base), edited);
    let began = base
        .pointer("/metadata/resourceVersion")
        .cloned()
        .unwrap_or(Value::Null);
    if let Some(p) = patch.as_object_mut() {
        let meta = p
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(m) = meta.as_object_mut() {
            m.insert("resourceVersion".into(), began);
        }
    }
    patch
}

/// An object as a review compares it: without managedFields, and without
/// `status` when `status` is a subresource (a write of the object itself
/// cannot change it there); where it is not, `status` is part of what a
/// write could change, and the review shows it.
fn comparable(object: &Value, status_subresource: bool) -> Value {
    let mut o = object.clone();
    if status_subresource && let Some(m) = o.as_object_mut() {
        m.remove("status");
    }
    if let Some(m) = o.get_mut("metadata").and_then(Value::as_object_mut) {
        m.remove("managedFields");
    }
    o
}

/// What a write of `sent` would change in `live`, given `result`, the
/// server's dry-run answer: every field that differs between `live` and
/// `result` (`status` too where it is not a subresource), each marked when
/// `result` differs from `sent` there.
pub fn review(
    live: &Value,
    sent: &Value,
    result: &Value,
    status_subresource: bool,
) -> Vec<Reviewed> {
    let live = comparable(live, status_subresource);
    let result = comparable(result, status_subresource);
    diff(&live, &result)
        .into_iter()
        .filter(|c| c.path != "metadata.generation")
        .map(|c| {
            let by_server = get_at(sent, &c.at) != c.new.as_ref();
            Reviewed {
                change: c,
                by_server,
            }
        })
        .collect()
}

/// The person's edit (`yours`, from `base`) applied to the server's newer
/// object (`theirs`): each field the person changed is set in `theirs`
/// (their resourceVersion kept, so the next write is checked against it),
/// and the fields both changed differently are returned as conflicts.
pub fn rebase(base: &Value, yours: &Value, theirs: &Value) -> (Value, Vec<String>) {
    let theirs = editable(theirs);
    let mut out = theirs.clone();
    let mut conflicts = Vec::new();
    for c in diff(&editable(base), yours) {
        if c.path == "metadata.resourceVersion" {
            continue;
        }
        let now = get_at(&theirs, &c.at);
        if now != c.old.as_ref() && now != c.new.as_ref() {
            conflicts.push(c.path.clone());
        }
        set_at(&mut out, &c.at, c.new.clone());
    }
    (out, conflicts)
}

/// The line (1-based) of `field` (a server cause's `spec.replicas` or
/// `spec.template.spec.containers[0].image`) in YAML `text` as
/// [`to_yaml`] writes it: each key found in turn, deeper and later. A
/// field the text lacks (the server says it is required: `spec.selector`)
/// is at the line of its nearest ancestor the text has (`spec:`).
pub fn field_line(text: &str, field: &str) -> Option<usize> {
    let keys: Vec<&str> = field
        .split('.')
        .map(|k| k.split('[').next().unwrap_or(k))
        .filter(|k| !k.is_empty())
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    let mut from = 0;
    let mut found = None;
    let mut depth = 0usize;
    for key in keys {
        let Some(hit) = lines.iter().enumerate().skip(from).find(|(_, l)| {
            let t = l.trim_start();
            let indent = l.len() - t.len();
            let t = t.strip_prefix("- ").unwrap_or(t);
            indent >= depth
                && (t.starts_with(&format!("{key}:")) || t.starts_with(&format!("\"{key}\":")))
        }) else {
            return found;
        };
        found = Some(hit.0 + 1);
        from = hit.0 + 1;
        depth = hit.1.len() - hit.1.trim_start().len() + 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7",
                         "labels": {"app.kubernetes.io/name": "web"},
                         "annotations": {"note": "line one\nline two", "empty": ""},
                         "managedFields": [{"manager": "kubectl"}]},
            "spec": {"replicas": 3, "paused": false, "ratio": 0.5, "tags": [], "extra": {},
                     "template": {"spec": {"containers": [{"name": "c", "image": "web:1",
                        "args": ["--port", "8080", "yes", "null", "- x", "a: b", "#c"]}]}}},
            "status": {"replicas": 3},
        })
    }

    #[test]
    fn the_editor_text_reads_back_as_the_object_without_status_and_managed_fields() {
        let text = editable_yaml(&deployment());
        assert!(
            !text.contains("managedFields") && !text.contains("status:"),
            "{text}"
        );
        assert_eq!(parse(&text).expect("reads back"), editable(&deployment()));
        // JSON is YAML too.
        assert_eq!(
            parse(r#"{"kind": "ConfigMap", "data": {"a": "1"}}"#).expect("json"),
            json!({"kind": "ConfigMap", "data": {"a": "1"}})
        );
    }

    #[test]
    fn bad_text_is_an_error_at_its_line_and_column() {
        let e = parse("kind: Pod\nspec:\n  containers: [\n").expect_err("unclosed");
        assert!(e.line.is_some() && e.column.is_some(), "{e:?}");
        assert!(e.to_string().starts_with("line "), "{e}");
        let twice = parse("a: 1\na: 2\n").expect_err("a key twice");
        assert!(
            twice.message.contains("given twice") || twice.line.is_some(),
            "{twice:?}"
        );
        assert!(
            parse("- 1\n- 2\n")
                .expect_err("a list")
                .message
                .contains("not an object")
        );
        assert!(
            parse("a: 1\n---\nb: 2\n")
                .expect_err("two")
                .message
                .contains("holds 2")
        );
        // An alias reads as the value it names.
        assert_eq!(
            parse("a: &x 1\nb: *x\n").expect("alias"),
            json!({"a": 1, "b": 1})
        );
    }

    #[test]
    fn a_review_marks_what_the_server_changed() {
        let live = deployment();
        let mut sent = editable(&live);
        sent["spec"]["replicas"] = json!(5);
        sent["spec"]["template"]["spec"]["containers"][0]["resources"] = json!({});
        let mut result = sent.clone();
        // The server defaulted the limits, moved the generation and the version.
        result["spec"]["template"]["spec"]["containers"][0]["resources"] =
            json!({"limits": {"memory": "128Mi"}});
        result["metadata"]["generation"] = json!(2);
        result["metadata"]["resourceVersion"] = json!("8");
        let r = review(&live, &sent, &result, true);
        let seen: Vec<(&str, bool)> = r
            .iter()
            .map(|x| (x.change.path.as_str(), x.by_server))
            .collect();
        assert_eq!(
            seen,
            [
                ("spec.replicas", false),
                ("spec.template.spec.containers[0].resources", true)
            ]
        );
    }

    #[test]
    fn an_edit_sends_only_what_changed_with_the_version_it_began_from() {
        let base = deployment();
        let mut text = editable(&base);
        text["spec"]["replicas"] = json!(5);
        text["metadata"]["labels"]
            .as_object_mut()
            .expect("labels")
            .clear();
        let patch = edit_patch(&base, &text);
        let began = base["metadata"]["resourceVersion"].clone();
        let labels: Map<String, Value> = base["metadata"]["labels"]
            .as_object()
            .expect("labels")
            .keys()
            .map(|k| (k.clone(), Value::Null))
            .collect();
        assert_eq!(
            patch,
            json!({"metadata": {"resourceVersion": began, "labels": labels}, "spec": {"replicas": 5}})
        );
        assert!(patch.get("status").is_none(), "status is never sent");
        // Nothing changed: only the version, which the page reads as "nothing to write".
        assert_eq!(
            edit_patch(&base, &editable(&base)),
            json!({"metadata": {"resourceVersion": began}})
        );
    }

    #[test]
    fn a_review_shows_status_where_it_is_not_a_subresource() {
        let mut live = json!({"apiVersion": "x/v1", "kind": "Db",
            "metadata": {"name": "a", "resourceVersion": "1"},
            "spec": {"size": 1}, "status": {"phase": "Ready"}});
        let sent = json!({"apiVersion": "x/v1", "kind": "Db",
            "metadata": {"name": "a", "resourceVersion": "1"}, "spec": {"size": 2}});
        // A write that would wipe the status: shown when status is part of
        // the object, left out where it is a subresource.
        let mut wiped = sent.clone();
        wiped["metadata"]["resourceVersion"] = json!("2");
        let paths =
            |r: Vec<Reviewed>| -> Vec<String> { r.into_iter().map(|x| x.change.path).collect() };
        assert_eq!(
            paths(review(&live, &sent, &wiped, false)),
            ["spec.size", "status"]
        );
        assert_eq!(paths(review(&live, &sent, &wiped, true)), ["spec.size"]);
        live["metadata"]["managedFields"] = json!([{"manager": "x"}]);
        let mut kept = wiped.clone();
        kept["status"] = json!({"phase": "Ready"});
        assert_eq!(paths(review(&live, &sent, &kept, false)), ["spec.size"]);
    }

    #[test]
    fn a_rebase_keeps_the_servers_news_and_the_persons_edit_and_names_clashes() {
        let base = deployment();
        let mut yours = editable(&base);
        yours["spec"]["replicas"] = json!(5);
        yours["metadata"]["labels"]["app.kubernetes.io/name"] = json!("web2");
        let mut theirs = base.clone();
        theirs["metadata"]["resourceVersion"] = json!("9");
        theirs["spec"]["paused"] = json!(true);
        theirs["spec"]["replicas"] = json!(4);
        let (out, conflicts) = rebase(&base, &yours, &theirs);
        assert_eq!(
            out["metadata"]["resourceVersion"], "9",
            "checked against theirs"
        );
        assert_eq!(out["spec"]["paused"], true, "their change kept");
        assert_eq!(out["spec"]["replicas"], 5, "yours applied");
        assert_eq!(out["metadata"]["labels"]["app.kubernetes.io/name"], "web2");
        assert_eq!(conflicts, ["spec.replicas"]);
        assert!(out.get("status").is_none());
    }

    #[test]
    fn a_field_is_found_at_its_line() {
        let text = editable_yaml(&deployment());
        let line = |f: &str| {
            field_line(&text, f).map(|n| text.lines().nth(n - 1).unwrap_or("").trim().to_string())
        };
        assert_eq!(line("spec.replicas").as_deref(), Some("replicas: 3"));
        assert_eq!(
            line("spec.template.spec.containers[0].image").as_deref(),
            Some("image: web:1")
        );
        assert_eq!(line("metadata.name").as_deref(), Some("name: web"));
        // A field the text lacks (required, says the server): its parent's line.
        assert_eq!(line("spec.selector").as_deref(), Some("spec:"));
        assert_eq!(field_line(&text, "nothing.at.all"), None);
    }
}
