//! JSON shown as YAML the way kubectl prints it, with `metadata.managedFields` folded to one line.

use serde_json::Value;

/// Renders JSON as YAML (block style; strings quoted when they would be
/// misread), folding `metadata.managedFields`.
pub fn to_yaml(v: &Value) -> String {
    fn scalar(s: &str) -> String {
        let plain = !s.is_empty()
            && !s.starts_with(|c: char| " -?:,[]{}#&*!|>'\"%@`".contains(c) || c.is_ascii_digit())
            && !s.contains(": ")
            && !s.contains(" #")
            && !s.contains('\n')
            && !s.ends_with(' ')
            && !matches!(
                s,
                "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
            );
        if plain {
            s.to_string()
        } else {
            serde_json::to_string(s).unwrap_or_default()
        }
    }
    fn walk(v: &Value, indent: usize, out: &mut String, path: &str) {
        let pad = "  ".repeat(indent);
        match v {
            Value::Object(m) if !m.is_empty() => {
                for (k, child) in m {
                    let p = format!("{path}.{k}");
                    if p == ".metadata.managedFields" {
                        let n = child.as_array().map_or(0, Vec::len);
                        out.push_str(&format!("{pad}managedFields: # {n} entries, folded\n"));
                        continue;
                    }
                    match child {
                        Value::Object(c) if !c.is_empty() => {
                            out.push_str(&format!("{pad}{}:\n", scalar(k)));
                            walk(child, indent + 1, out, &p);
                        }
                        Value::Array(a) if !a.is_empty() => {
                            out.push_str(&format!("{pad}{}:\n", scalar(k)));
                            walk(child, indent, out, &p);
                        }
                        _ => {
                            out.push_str(&format!("{pad}{}: ", scalar(k)));
                            walk(child, 0, out, &p);
                        }
                    }
                }
            }
            Value::Array(a) if !a.is_empty() => {
                for item in a {
                    match item {
                        Value::Object(m) if !m.is_empty() => {
                            let mut inner = String::new();
                            walk(item, indent + 1, &mut inner, path);
                            let trimmed = inner.trim_start_matches(' ');
                            out.push_str(&format!("{pad}- {trimmed}"));
                        }
                        _ => {
                            out.push_str(&format!("{pad}- "));
                            walk(item, 0, out, path);
                        }
                    }
                }
            }
            Value::Object(_) => out.push_str("{}\n"),
            Value::Array(_) => out.push_str("[]\n"),
            Value::String(s) => out.push_str(&format!("{}\n", scalar(s))),
            other => out.push_str(&format!("{other}\n")),
        }
    }
    let mut out = String::new();
    walk(v, 0, &mut out, "");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_reads_like_kubectl_and_folds_managed_fields() {
        let v = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "x", "labels": {"app": "web"}, "managedFields": [{"manager": "k"}]},
            "data": {"a": "1", "b": "two words", "c": "<img src=x>"},
            "list": [{"name": "c", "ports": [80, 443]}, "plain"]});
        let y = to_yaml(&v);
        assert!(y.contains("apiVersion: v1\n"), "{y}");
        assert!(y.contains("  labels:\n    app: web\n"), "{y}");
        assert!(y.contains("managedFields: # 1 entries, folded"), "{y}");
        assert!(y.contains("  a: \"1\"\n"), "{y}");
        assert!(y.contains("  b: two words\n"), "{y}");
        assert!(
            y.contains("- name: c\n  ports:\n  - 80\n  - 443\n- plain\n"),
            "{y}"
        );
    }
}
