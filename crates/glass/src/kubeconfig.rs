//! The contexts of a kubeconfig, as `kubectl config view -o json` prints
//! them: kubectl reads the files (merging `KUBECONFIG`, resolving
//! `--kubeconfig`), so the launcher never parses a kubeconfig itself.

use kubeglass_kubectl::session::Session;
use serde::Deserialize;

/// One context: its name, cluster and namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The context's name.
    pub name: String,
    /// The cluster it points at.
    pub cluster: String,
    /// Its namespace, when it names one.
    pub namespace: Option<String>,
}

#[derive(Deserialize)]
struct View {
    #[serde(default)]
    contexts: Option<Vec<NamedContext>>,
    #[serde(default, rename = "current-context")]
    current_context: Option<String>,
}

#[derive(Deserialize)]
struct NamedContext {
    name: String,
    #[serde(default)]
    context: Option<ContextBody>,
}

#[derive(Deserialize)]
struct ContextBody {
    #[serde(default)]
    cluster: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
}

/// Every context in the view, in kubeconfig order, and the current one.
pub fn parse_view(json: &str) -> Result<(Vec<Context>, Option<String>), String> {
    let v: View = serde_json::from_str(json).map_err(|e| {
        format!("kubectl config view printed something that is not a kubeconfig: {e}")
    })?;
    let contexts = v
        .contexts
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            let body = c.context;
            Context {
                cluster: body
                    .as_ref()
                    .and_then(|b| b.cluster.clone())
                    .unwrap_or_default(),
                namespace: body.and_then(|b| b.namespace).filter(|n| !n.is_empty()),
                name: c.name,
            }
        })
        .collect();
    Ok((contexts, v.current_context.filter(|c| !c.is_empty())))
}

/// The session file for `context` (the one schema, shared with the app:
/// [`kubeglass_kubectl::session::Session`]).
pub fn session_for(context: &Context, mode: crate::gate::Mode) -> Session {
    Session {
        context: context.name.clone(),
        cluster: context.cluster.clone(),
        namespace: context.namespace.clone(),
        read_only: mode.read_only,
        exec: mode.exec,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Mode;

    #[test]
    fn contexts_and_the_current_one_are_read_from_kubectls_view() {
        let json = r#"{"kind": "Config", "apiVersion": "v1",
            "clusters": [{"name": "eks-eu", "cluster": {"server": "https://x"}}],
            "contexts": [
                {"name": "prod", "context": {"cluster": "eks-eu", "user": "me", "namespace": "shop"}},
                {"name": "bare", "context": {"cluster": "kind"}},
                {"name": "empty"}
            ],
            "current-context": "prod"}"#;
        let (contexts, current) = parse_view(json).expect("a view");
        assert_eq!(current.as_deref(), Some("prod"));
        assert_eq!(
            contexts,
            [
                Context {
                    name: "prod".into(),
                    cluster: "eks-eu".into(),
                    namespace: Some("shop".into())
                },
                Context {
                    name: "bare".into(),
                    cluster: "kind".into(),
                    namespace: None
                },
                Context {
                    name: "empty".into(),
                    cluster: String::new(),
                    namespace: None
                },
            ]
        );
        let file: serde_json::Value =
            serde_json::from_str(&session_for(&contexts[0], Mode::new(true, false)).to_json())
                .expect("json");
        assert_eq!(
            file,
            serde_json::json!({"context": "prod", "cluster": "eks-eu", "namespace": "shop", "readOnly": true, "exec": false})
        );
        let file: serde_json::Value =
            serde_json::from_str(&session_for(&contexts[0], Mode::new(false, false)).to_json())
                .expect("json");
        assert_eq!(file["exec"], true);
    }

    #[test]
    fn an_empty_kubeconfig_has_no_contexts_and_garbage_is_an_error() {
        let (c, current) =
            parse_view(r#"{"contexts": null, "current-context": ""}"#).expect("view");
        assert!(c.is_empty() && current.is_none());
        assert!(parse_view("error: nope").is_err());
    }
}
