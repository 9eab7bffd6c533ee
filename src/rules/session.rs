//! The launcher's session file as the header shows it; the schema itself is the kubectl crate's (`kubeglass_kubectl::session`), shared with `kubectl glass`.
//!
//! `kubectl glass` writes `kubeglass-context.json` next to the app, on the
//! same origin and under the same capability prefix. The header shows its
//! context and cluster on every page, so one cluster is never mistaken for
//! another, and a read-only session (whose proxy refuses every write
//! method) shows a badge and offers no actions. `make app` ships the file
//! as `null`, so under a plain `kubectl proxy --www` or `make serve` (or
//! with no file at all) nothing extra is shown.

pub use kubeglass_kubectl::session::{Peer, SESSION_FILE, Session, open_path};

/// How the header names a session.
pub trait SessionLabel {
    /// `context · cluster` for the header (one name when they are the same).
    fn label(&self) -> String;
}

/// Longest context or cluster name shown; longer ones are cut, with `…`.
const MAX_SHOWN: usize = 80;

impl SessionLabel for Session {
    fn label(&self) -> String {
        label(&self.context, &self.cluster)
    }
}

impl SessionLabel for Peer {
    fn label(&self) -> String {
        label(&self.name, &self.cluster)
    }
}

/// The page's title: which context and cluster, then the app.
pub fn title(session: Option<&Session>) -> String {
    match session {
        Some(s) => format!("{} — Kubeglass", s.label()),
        None => "Kubeglass".into(),
    }
}

fn label(context: &str, cluster: &str) -> String {
    let cut = |s: &str| -> String {
        if s.chars().count() > MAX_SHOWN {
            let mut t: String = s.chars().take(MAX_SHOWN).collect();
            t.push('…');
            t
        } else {
            s.to_string()
        }
    };
    if cluster.is_empty() || cluster == context {
        cut(context)
    } else {
        format!("{} · {}", cut(context), cut(cluster))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launcher_file_parses_and_labels_the_header() {
        let s = Session::parse(
            r#"{"context": "prod-eu", "cluster": "eks-eu-1", "namespace": "shop", "readOnly": true}"#,
        )
        .expect("parses")
        .expect("a session");
        assert_eq!(s.label(), "prod-eu · eks-eu-1");
        assert!(s.read_only);
        let same = Session::parse(r#"{"context": "kind", "cluster": "kind"}"#)
            .expect("parses")
            .expect("a session");
        assert_eq!(same.label(), "kind");
        assert!(!same.read_only);
        let long = Session::parse(&format!(
            r#"{{"context": "{}", "cluster": ""}}"#,
            "c".repeat(200)
        ))
        .expect("parses")
        .expect("a session");
        assert_eq!(long.label().chars().count(), MAX_SHOWN + 1);
        assert_eq!(Session::parse("null"), Ok(None), "what make app ships");
        assert_eq!(title(Some(&s)), "prod-eu · eks-eu-1 — Kubeglass");
        assert_eq!(title(None), "Kubeglass");
    }

    #[test]
    fn the_menu_names_each_context_and_opens_it_by_its_place() {
        let s = Session::parse(
            r#"{"context": "b", "cluster": "kind", "contexts": [
                {"name": "a", "cluster": "eks"}, {"name": "b", "cluster": "kind"}]}"#,
        )
        .expect("parses")
        .expect("a session");
        let labels: Vec<String> = s.contexts.iter().map(SessionLabel::label).collect();
        assert_eq!(labels, ["a · eks", "b · kind"]);
        assert_eq!(open_path(0), "../glass/open/0");
        let alone = Session::parse(r#"{"context": "a", "cluster": "b"}"#)
            .expect("parses")
            .expect("a session");
        assert!(alone.contexts.is_empty(), "an older launcher's file");
    }

    #[test]
    fn a_broken_file_says_why() {
        for bad in [
            "",
            "<html>",
            r#"{"context": ""}"#,
            r#"{"context": "a", "cluster": "b", "extra": 1}"#,
            r#"{"context": 1, "cluster": "b"}"#,
        ] {
            let e = Session::parse(bad).expect_err(bad).to_string();
            assert!(e.starts_with(SESSION_FILE), "{e}");
        }
    }
}
