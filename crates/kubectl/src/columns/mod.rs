//! kubectl's `-o custom-columns`: a spec `NAME:.path,OTHER:.path`, each
//! path a JSONPath template as kubectl reads it (the braces and the leading
//! dot optional), evaluated on an object; a column's cell is every result,
//! joined by commas, or `<none>` when there is none.
//!
//! The JSONPath read here is kubectl's: `.field` and `['field']`, `*` and
//! `[*]`, `[i]` (negative from the end), `[a:b:s]`, `[i,j]` and
//! `['a','b']`, `..field` (every depth), and filters `[?(@.path)]` and
//! `[?(@.path <op> literal)]` with `==`, `!=`, `<`, `<=`, `>`, `>=`. An
//! expression that does not read says where ([`SpecError`]).

mod path;

use std::fmt;

use serde_json::Value;

pub use path::{MAX_DESCENTS, MAX_VALUES, Path, PathError};

/// What kubectl prints for a column with no result.
pub const NONE: &str = "<none>";

/// One column of a spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The header, as written.
    pub header: String,
    /// The expression, as written.
    pub expression: String,
    /// The expression, read.
    pub path: Path,
}

/// Where a spec is wrong: which column, where in its expression, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// The column, from 1.
    pub column: usize,
    /// The expression (or the whole column when it has no `:`).
    pub text: String,
    /// The character offset in `text` where it goes wrong.
    pub at: usize,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "column {}: {} at character {} of {:?}",
            self.column,
            self.message,
            self.at + 1,
            self.text
        )
    }
}

/// Reads a spec as kubectl does: columns split at every `,`, each
/// `HEADER:EXPRESSION` split at its first `:`.
pub fn parse_spec(spec: &str) -> Result<Vec<Column>, SpecError> {
    let mut out = Vec::new();
    for (i, part) in spec.split(',').enumerate() {
        let column = i + 1;
        let fail = |text: &str, at: usize, message: &str| SpecError {
            column,
            text: text.to_string(),
            at,
            message: message.to_string(),
        };
        let part = part.trim();
        let Some((header, expression)) = part.split_once(':') else {
            return Err(fail(part, part.len(), "expected HEADER:JSONPATH"));
        };
        if header.trim().is_empty() {
            return Err(fail(part, 0, "the column has no header"));
        }
        let path =
            Path::parse_relaxed(expression).map_err(|e| fail(expression, e.at, &e.message))?;
        out.push(Column {
            header: header.trim().to_string(),
            expression: expression.to_string(),
            path,
        });
    }
    Ok(out)
}

/// A value as kubectl prints it (Go's `%v` of the decoded JSON): strings
/// bare, whole numbers without a point, objects `map[k:v]` with sorted
/// keys, lists `[a b]`, null `<nil>`.
pub fn print_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            // Not an int64: Go decodes it as a float64.
            None => go_float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(print_value).collect::<Vec<_>>().join(" ")
        ),
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            let inner: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", print_value(&o[k])))
                .collect();
            format!("map[{}]", inner.join(" "))
        }
    }
}

/// A float64 as Go's `%v` prints it: the shortest digits, in exponent form
/// (`1.5000005e+06`, `1e-05`) when the exponent is under -4 or 6 and over.
fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        format!("{f}")
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    }
}

/// The cell `column` shows for `object`: every result printed, joined by
/// commas, or [`NONE`].
pub fn cell(column: &Column, object: &Value) -> String {
    let found = column.path.eval(object);
    if found.is_empty() {
        return NONE.into();
    }
    found
        .into_iter()
        .map(print_value)
        .collect::<Vec<_>>()
        .join(",")
}
