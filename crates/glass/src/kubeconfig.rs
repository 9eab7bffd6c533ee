//! The contexts of a kubeconfig, as `kubectl config view -o json` prints
//! them: kubectl reads the files (merging `KUBECONFIG`, resolving
//! `--kubeconfig`), so the launcher never parses a kubeconfig itself.

use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

use kubeglass_kubectl::session::Session;
use serde::Deserialize;

use crate::launch_error::LaunchError;

/// One context: its name, cluster and namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The context's name.
    pub name: String,
    /// The cluster it points at.
    pub cluster: String,
    /// Its namespace, when it names one.
    pub namespace: Option<String>,
    /// Its cluster's server URL (empty when the view names none): with the
    /// name, what the saved tables are kept by, so a context pointed at
    /// another cluster never starts from the first one's.
    pub server: String,
}

#[derive(Deserialize)]
struct View {
    #[serde(default)]
    clusters: Option<Vec<NamedCluster>>,
    #[serde(default)]
    contexts: Option<Vec<NamedContext>>,
    #[serde(default, rename = "current-context")]
    current_context: Option<String>,
}

#[derive(Deserialize)]
struct NamedCluster {
    name: String,
    #[serde(default)]
    cluster: Option<ClusterBody>,
}

#[derive(Deserialize)]
struct ClusterBody {
    #[serde(default)]
    server: Option<String>,
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
    let clusters = v.clusters.unwrap_or_default();
    let server_of = |cluster: &str| {
        clusters
            .iter()
            .find(|c| c.name == cluster)
            .and_then(|c| c.cluster.as_ref()?.server.clone())
            .unwrap_or_default()
    };
    let contexts = v
        .contexts
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            let body = c.context;
            let cluster = body
                .as_ref()
                .and_then(|b| b.cluster.clone())
                .unwrap_or_default();
            Context {
                server: server_of(&cluster),
                cluster,
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
        contexts: vec![],
    }
}

/// The kubeconfig's contexts, and the one to open (none with
/// `--all-contexts`: they all start, and none is opened).
pub struct Contexts {
    /// Every context, in kubeconfig order.
    pub all: Vec<Context>,
    /// The index in `all` of the one to open.
    pub opened: Option<usize>,
}

/// What the person asked for: which kubectl, kubeconfig and context, or all.
pub struct Asked<'a> {
    /// The kubectl to run.
    pub kubectl: &'a Path,
    /// `--kubeconfig`.
    pub kubeconfig: Option<&'a Path>,
    /// `--context`.
    pub context: Option<&'a str>,
    /// `--all-contexts`.
    pub all: bool,
}

impl Asked<'_> {
    /// kubectl's view of the kubeconfig: every context, and the one to
    /// open, checked with `--minify` as kubectl itself would use it.
    /// kubectl prints its own errors (a bad context, a broken kubeconfig)
    /// straight to the terminal; then its exit code is returned.
    pub fn contexts(&self) -> Result<Result<Contexts, ExitCode>, LaunchError> {
        let wanted = match self.all {
            true => None,
            false => match self.view(true)? {
                Ok(json) => {
                    let (one, current) = parse_view(&json).map_err(LaunchError::Kubeconfig)?;
                    let name = self.context.map(str::to_string).or(current);
                    let found = one.into_iter().find(|c| Some(&c.name) == name.as_ref());
                    Some(found.ok_or(LaunchError::NoCurrentContext)?)
                }
                Err(code) => return Ok(Err(code)),
            },
        };
        let all = match self.view(false)? {
            Ok(json) => parse_view(&json).map_err(LaunchError::Kubeconfig)?.0,
            Err(code) => return Ok(Err(code)),
        };
        let Some(wanted) = wanted else {
            if all.is_empty() {
                return Err(LaunchError::NoContexts);
            }
            return Ok(Ok(Contexts { all, opened: None }));
        };
        Ok(Ok(match all.iter().position(|c| c.name == wanted.name) {
            Some(i) => Contexts {
                all,
                opened: Some(i),
            },
            // kubectl minified a context its full view does not list: that one alone.
            None => Contexts {
                all: vec![wanted],
                opened: Some(0),
            },
        }))
    }

    /// `kubectl config view -o json` (with `--minify`: the context in use
    /// only); its exit code when it fails.
    fn view(&self, minify: bool) -> Result<Result<String, ExitCode>, LaunchError> {
        let mut cmd = Command::new(self.kubectl);
        if let Some(k) = self.kubeconfig {
            cmd.arg(format!("--kubeconfig={}", k.display()));
        }
        if let Some(c) = self.context {
            cmd.arg(format!("--context={c}"));
        }
        cmd.args(["config", "view", "-o", "json"]);
        if minify {
            cmd.arg("--minify");
        }
        let out = cmd
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|source| LaunchError::Kubectl {
                kubectl: self.kubectl.to_path_buf(),
                source,
            })?;
        Ok(match out.status.success() {
            true => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
            false => Err(exit_code(out.status)),
        })
    }
}

/// kubectl's exit status as the launcher's code (failure when it has none
/// that fits, or 0).
pub fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    status
        .code()
        .and_then(|c| u8::try_from(c).ok())
        .filter(|c| *c != 0)
        .map_or(ExitCode::FAILURE, ExitCode::from)
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
                    namespace: Some("shop".into()),
                    server: "https://x".into(),
                },
                Context {
                    name: "bare".into(),
                    cluster: "kind".into(),
                    namespace: None,
                    server: String::new(),
                },
                Context {
                    name: "empty".into(),
                    cluster: String::new(),
                    namespace: None,
                    server: String::new(),
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
