//! The launcher's session file: the one schema `kubectl glass` writes beside the app and the app reads, so the two cannot drift.
//!
//! `kubectl glass` writes [`SESSION_FILE`] next to the app, on the same
//! origin and under the same capability prefix: which context, cluster and
//! namespace this tab shows, and whether its proxy refuses every write. A
//! build of the app ships the file as `null`, so under a plain
//! `kubectl proxy --www` (or with no file at all) there is no session.

use serde::{Deserialize, Serialize};

/// The file's name, beside the app's `index.html`.
pub const SESSION_FILE: &str = "kubeglass-context.json";

/// What the launcher says about this session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Session {
    /// The kubeconfig context.
    pub context: String,
    /// The context's cluster.
    pub cluster: String,
    /// The context's namespace, if it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The proxy refuses every write method.
    #[serde(default)]
    pub read_only: bool,
    /// The launcher lets a shell in a container through (neither
    /// `--read-only` nor `--no-exec`); RBAC may still refuse it.
    #[serde(default)]
    pub exec: bool,
    /// Every context this launcher serves, in the kubeconfig's order (this
    /// one among them): the header's menu. The page opens the one at index
    /// `i` through [`open_path`], a navigation the launcher answers with a
    /// redirect to that context's own origin, so no page ever holds another
    /// context's token. Empty when the launcher serves this one only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contexts: Vec<Peer>,
}

/// Another context the same launcher serves, as the menu names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Peer {
    /// The kubeconfig context.
    pub name: String,
    /// Its cluster.
    pub cluster: String,
}

/// The launcher's path (under the token, beside `/ui/`) that opens the
/// context at `index` of [`Session::contexts`]: a redirect to its app.
pub const OPEN_PATH: &str = "/glass/open";

/// [`OPEN_PATH`] for the context at `index`, relative to the app's page
/// (`/<token>/ui/`), so the page never needs its own token.
pub fn open_path(index: usize) -> String {
    format!("..{OPEN_PATH}/{index}")
}

/// Why a session file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// Not the launcher's JSON (or `null`): serde's words.
    #[error("{SESSION_FILE}: {0}")]
    Unreadable(String),
    /// A session must name its context.
    #[error("{SESSION_FILE}: the context is empty")]
    NoContext,
}

impl Session {
    /// Reads the file's text: `null` is no session; anything else must be
    /// a whole session with a context.
    pub fn parse(text: &str) -> Result<Option<Self>, SessionError> {
        let s: Option<Self> =
            serde_json::from_str(text).map_err(|e| SessionError::Unreadable(e.to_string()))?;
        if s.as_ref().is_some_and(|s| s.context.is_empty()) {
            return Err(SessionError::NoContext);
        }
        Ok(s)
    }

    /// The file's text, as the launcher writes it.
    pub fn to_json(&self) -> String {
        // A struct of strings and a bool always serializes.
        serde_json::to_string(self).unwrap_or_else(|_| "null".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_launcher_writes_the_app_reads_back() {
        let s = Session {
            context: "prod".into(),
            cluster: "eks-eu".into(),
            namespace: Some("shop".into()),
            read_only: true,
            exec: false,
            contexts: vec![],
        };
        assert_eq!(
            s.to_json(),
            r#"{"context":"prod","cluster":"eks-eu","namespace":"shop","readOnly":true,"exec":false}"#
        );
        // A file from before the shell: no shell.
        let old = Session::parse(r#"{"context": "a", "cluster": "b"}"#).expect("reads");
        assert!(!old.expect("a session").exec);
        assert_eq!(Session::parse(&s.to_json()), Ok(Some(s)));
        assert_eq!(Session::parse("null"), Ok(None));
        assert_eq!(
            Session::parse(r#"{"context": "", "cluster": "x"}"#),
            Err(SessionError::NoContext)
        );
        let unknown = Session::parse(r#"{"context": "a", "cluster": "b", "admin": true}"#);
        assert!(matches!(unknown, Err(SessionError::Unreadable(m)) if m.contains("unknown field")));
    }
}
