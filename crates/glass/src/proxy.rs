//! `kubectl proxy` as Kubeglass runs it: the capability URL, 127.0.0.1, the
//! hardened reject-paths, and for `--read-only` every write method refused.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// kubectl proxy's default reject-paths (exec, attach) plus port-forward and
/// the `proxy` subresource of pods, services and nodes: `hack/reject-paths`,
/// the one list the scripts and the e2e tests read too.
pub const REJECT_PATHS: &str = include_str!("../../../hack/reject-paths");

/// What `--read-only` refuses: every method that writes, in any case.
pub const WRITE_METHODS: &str = "(?i)^(POST|PUT|PATCH|DELETE)$";

/// A fresh capability token: 128 random bits in hex. Hex never starts with
/// `api`, a prefix kubectl proxy would not strip.
pub fn new_token() -> Result<String, String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| format!("no randomness for the token: {e}"))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// One proxy to start.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The kubectl to run.
    pub kubectl: PathBuf,
    /// `--kubeconfig`, when given.
    pub kubeconfig: Option<PathBuf>,
    /// The context.
    pub context: String,
    /// The port on 127.0.0.1.
    pub port: u16,
    /// The capability token.
    pub token: String,
    /// The app's folder.
    pub www: PathBuf,
    /// Refuse every write method.
    pub read_only: bool,
}

impl Spec {
    /// kubectl's arguments.
    pub fn args(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(k) = &self.kubeconfig {
            a.push(format!("--kubeconfig={}", k.display()));
        }
        a.extend([
            format!("--context={}", self.context),
            "proxy".into(),
            "--address=127.0.0.1".into(),
            format!("--port={}", self.port),
            format!("--api-prefix=/{}/", self.token),
            format!("--www={}", self.www.display()),
            format!("--www-prefix=/{}/ui/", self.token),
            format!("--reject-paths={}", reject_paths()),
        ]);
        if self.read_only {
            a.push(format!("--reject-methods={WRITE_METHODS}"));
        }
        a
    }

    /// The API's base URL (the token is its path).
    pub fn api(&self) -> String {
        format!("http://127.0.0.1:{}/{}", self.port, self.token)
    }

    /// The app's URL.
    pub fn url(&self) -> String {
        format!("{}/ui/", self.api())
    }

    /// Starts kubectl. Its stderr and stdin are the person's terminal (so
    /// its own messages reach them, and a credential plugin may ask them
    /// something); its stdout is read for "Starting to serve on", which is
    /// reported once on the returned channel.
    pub fn spawn(&self) -> std::io::Result<(Child, mpsc::Receiver<()>)> {
        let mut child = Command::new(&self.kubectl)
            .args(self.args())
            .stdin(Stdio::inherit())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let (tx, rx) = mpsc::channel();
        if let Some(out) = child.stdout.take() {
            std::thread::spawn(move || {
                // Read to the end, so kubectl never blocks on a full pipe.
                for line in BufReader::new(out).lines().map_while(Result::ok) {
                    if line.starts_with("Starting to serve on") {
                        let _ = tx.send(());
                    }
                }
            });
        }
        Ok((child, rx))
    }
}

/// [`REJECT_PATHS`] as kubectl takes it: comma-separated.
pub fn reject_paths() -> String {
    REJECT_PATHS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(",")
}

/// How waiting for a proxy ended badly.
#[derive(Debug)]
pub enum NotReady {
    /// kubectl exited first, with this status.
    Exited(std::process::ExitStatus),
    /// It did not get that far within the time allowed.
    Timeout(&'static str, Duration),
}

/// Waits until kubectl says it serves (so the port is its own, and the
/// token goes to nobody else), then until `GET <api>/version` gets any
/// HTTP answer through it; returns that status. A status other than 200 is
/// the cluster's answer (unreachable, unauthorized): the app shows it.
pub fn wait_ready(
    child: &mut Child,
    serving: &mpsc::Receiver<()>,
    api: &str,
    limit: Duration,
) -> Result<u16, NotReady> {
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(NotReady::Exited(status));
        }
        if serving.recv_timeout(Duration::from_millis(100)).is_ok() {
            break;
        }
        if start.elapsed() > limit {
            return Err(NotReady::Timeout("to start serving", limit));
        }
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(limit))
        .http_status_as_error(false)
        .build()
        .into();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(NotReady::Exited(status));
        }
        if let Ok(r) = agent.get(format!("{api}/version")).call() {
            return Ok(r.status().as_u16());
        }
        if start.elapsed() > limit {
            return Err(NotReady::Timeout("to answer", limit));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(read_only: bool) -> Spec {
        Spec {
            kubectl: "kubectl".into(),
            kubeconfig: Some("/home/me/.kube/prod".into()),
            context: "prod".into(),
            port: 47123,
            token: "0123456789abcdef0123456789abcdef".into(),
            www: "/tmp/kubectl-glass-x/app".into(),
            read_only,
        }
    }

    #[test]
    fn the_proxy_gets_the_capability_url_and_the_hardened_flags() {
        let a = spec(false).args();
        for want in [
            "--kubeconfig=/home/me/.kube/prod",
            "--context=prod",
            "proxy",
            "--address=127.0.0.1",
            "--port=47123",
            "--api-prefix=/0123456789abcdef0123456789abcdef/",
            "--www=/tmp/kubectl-glass-x/app",
            "--www-prefix=/0123456789abcdef0123456789abcdef/ui/",
        ] {
            assert!(a.iter().any(|x| x == want), "{want} missing from {a:?}");
        }
        let rp = a
            .iter()
            .find(|x| x.starts_with("--reject-paths="))
            .expect("reject-paths");
        for p in [
            "exec",
            "attach",
            "portforward",
            "pods/.*/proxy",
            "services/.*/proxy",
            "nodes/.*/proxy",
        ] {
            assert!(rp.contains(p), "{p} not in {rp}");
        }
        assert!(!rp.contains('\n'));
        assert!(!a.iter().any(|x| x.starts_with("--reject-methods")));
        assert!(
            !a.iter().any(|x| x.starts_with("--accept-hosts")),
            "kubectl's default accept-hosts"
        );
        assert!(
            spec(true)
                .args()
                .iter()
                .any(|x| x == "--reject-methods=(?i)^(POST|PUT|PATCH|DELETE)$")
        );
        assert_eq!(
            spec(false).url(),
            "http://127.0.0.1:47123/0123456789abcdef0123456789abcdef/ui/"
        );
    }

    #[test]
    fn tokens_are_fresh_hex() {
        let (a, b) = (new_token().expect("token"), new_token().expect("token"));
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
