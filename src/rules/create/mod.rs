//! Create from YAML: the documents a person pasted or dropped, each read as one object with where it would go, and a dry run's answer as the fields the server would store, its own marked.

use serde_json::Value;
use yaml_rust2::YamlLoader;

use crate::rules::edit::{EditError, Reviewed, editable, field_line, to_json};
use crate::rules::versions::{diff, get_at};

/// Fields every created object gets from the server, which say nothing
/// about this one: left out of a review.
const ALWAYS_SET: &[&str] = &[
    "metadata.uid",
    "metadata.creationTimestamp",
    "metadata.resourceVersion",
    "metadata.generation",
];

/// What a review shows for a Secret's values: the person typed them, and
/// they stay in the box, not in the review.
pub const HIDDEN: &str = "(hidden)";

/// One document of the text, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    /// Its place in the text, from 1.
    pub number: usize,
    /// The line (1-based) it starts on.
    pub first_line: usize,
    /// Its own text, for placing the server's field errors.
    pub text: String,
    /// The object.
    pub object: Value,
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, if it names one.
    pub namespace: Option<String>,
}

impl Doc {
    /// `ConfigMap demo-shop/flags`, or `ConfigMap flags` with no namespace.
    pub fn label(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }

    /// The line in the whole text of a field the server named.
    pub fn line_of(&self, field: &str) -> Option<usize> {
        field_line(&self.text, field).map(|l| self.first_line + l - 1)
    }
}

/// Reads the text as YAML documents (`---` between them; a `kind: List`
/// counts as its items). A text that does not read fails whole, with its
/// line and column; each document that is not an object with an
/// apiVersion, a kind and a name fails alone. Empty documents are skipped.
pub fn documents(text: &str) -> Result<Vec<Result<Doc, EditError>>, EditError> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| EditError {
        line: Some(e.marker().line()),
        column: Some(e.marker().col() + 1),
        message: e.info().to_string(),
    })?;
    let starts = starts(text);
    let mut out = Vec::new();
    let mut number = 0;
    for (i, y) in docs.iter().enumerate() {
        let (first_line, own) = starts.get(i).cloned().unwrap_or((1, text.to_string()));
        let at = |message: String| EditError {
            line: Some(first_line),
            column: None,
            message,
        };
        let v = match to_json(y, "") {
            Ok(Value::Null) => continue,
            Ok(v) => v,
            Err(e) => {
                number += 1;
                out.push(Err(at(format!("document {number}: {}", e.message))));
                continue;
            }
        };
        let items = match v.get("kind").and_then(Value::as_str) {
            Some(k) if k.ends_with("List") && v.get("items").is_some_and(Value::is_array) => {
                v["items"].as_array().cloned().unwrap_or_default()
            }
            _ => vec![v],
        };
        for object in items {
            number += 1;
            out.push(
                read(number, first_line, &own, object)
                    .map_err(|m| at(format!("document {number}: {m}"))),
            );
        }
    }
    Ok(out)
}

/// Each document's first line and text, split at `---` lines, in step
/// with the loader's documents (a document of comments only is one, as
/// the loader reads it null; nothing before a first `---` is none).
fn starts(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let (mut first, mut own) = (1, String::new());
    let mut seen_content = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("---") {
            if seen_content || !out.is_empty() || first > 1 {
                out.push((first, std::mem::take(&mut own)));
            }
            first = i + 2;
            own.clear();
            seen_content = false;
            continue;
        }
        if !line.trim().is_empty() && !line.trim_start().starts_with('#') {
            seen_content = true;
        }
        own.push_str(line);
        own.push('\n');
    }
    if seen_content {
        out.push((first, own));
    }
    out
}

fn read(number: usize, first_line: usize, text: &str, object: Value) -> Result<Doc, String> {
    if !object.is_object() {
        return Err("not an object (a map of fields)".into());
    }
    let text_at = |p: &str| {
        object
            .pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (api_version, kind, name) = (
        text_at("/apiVersion"),
        text_at("/kind"),
        text_at("/metadata/name"),
    );
    if api_version.is_empty() || kind.is_empty() {
        return Err("an object needs apiVersion and kind".into());
    }
    if name.is_empty() {
        let generated = object.pointer("/metadata/generateName").is_some();
        return Err(if generated {
            "metadata.name is needed here (generateName is not supported)".into()
        } else {
            "metadata.name is missing".into()
        });
    }
    let namespace = Some(text_at("/metadata/namespace")).filter(|s| !s.is_empty());
    Ok(Doc {
        number,
        first_line,
        text: text.to_string(),
        object,
        api_version,
        kind,
        name,
        namespace,
    })
}

/// What creating `sent` would store, given `result`, the server's dry-run
/// answer: every field of the result (status and managedFields away, and
/// the fields every object gets), each marked when it is not what was sent
/// (a default, a LimitRange, a webhook). A core Secret's values show as
/// [`HIDDEN`].
pub fn review_create(sent: &Value, result: &Value, secret: bool) -> Vec<Reviewed> {
    let result = editable(result);
    // Against its own shape with every value null, each value is one row.
    diff(&skeleton(&result), &result)
        .into_iter()
        .filter(|c| !ALWAYS_SET.contains(&c.path.as_str()))
        .map(|mut c| {
            c.old = None;
            let by_server = get_at(sent, &c.at) != c.new.as_ref();
            if secret && (c.path.starts_with("data.") || c.path.starts_with("stringData.")) {
                c.new = Some(Value::String(HIDDEN.into()));
            }
            Reviewed {
                change: c,
                by_server,
            }
        })
        .collect()
}

/// `v`'s maps and lists with every value null.
fn skeleton(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), skeleton(v))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(skeleton).collect()),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests;
