//! `kubectl proxy` as Kubeglass runs it: on a Unix socket in the run's
//! private folder (no TCP port, no token in any argument), with the
//! hardened reject-paths, and for `--read-only` every write method refused
//! (the launcher's own allowlist, in `gate`, refuses them first).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

/// kubectl proxy's default reject-paths (exec, attach) plus port-forward and
/// the `proxy` subresource of pods, services and nodes: `hack/reject-paths`,
/// the one list the scripts and the e2e tests read too.
pub const REJECT_PATHS: &str = include_str!("../../../hack/reject-paths");

/// What `--read-only` refuses: every method that writes, in any case.
pub const WRITE_METHODS: &str = "(?i)^(POST|PUT|PATCH|DELETE)$";

/// No randomness for a token.
#[derive(Debug, thiserror::Error)]
#[error("no randomness for the token: {0}")]
pub struct NoRandomness(#[from] getrandom::Error);

/// A fresh capability token: 128 random bits in hex. It lives in the
/// launcher's memory and in the URL it prints, nowhere else.
pub fn new_token() -> Result<String, NoRandomness> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b)?;
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
    /// The socket, in a folder only this user can enter.
    pub socket: PathBuf,
    /// Refuse every write method.
    pub read_only: bool,
}

impl Spec {
    /// kubectl's arguments: none of them is a secret.
    pub fn args(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(k) = &self.kubeconfig {
            a.push(format!("--kubeconfig={}", k.display()));
        }
        a.extend([
            format!("--context={}", self.context),
            "proxy".into(),
            format!("--unix-socket={}", self.socket.display()),
            format!("--reject-paths={}", reject_paths()),
        ]);
        if self.read_only {
            a.push(format!("--reject-methods={WRITE_METHODS}"));
        }
        a
    }

    /// Starts kubectl. Its stderr and stdin are the person's terminal (so
    /// its own messages reach them, and a credential plugin may ask them
    /// something); its stdout is read for "Starting to serve on", which is
    /// reported once on the returned channel. On Linux kubectl gets SIGTERM
    /// when the launcher dies, however it dies (SIGKILL included).
    pub fn spawn(&self) -> std::io::Result<(Child, mpsc::Receiver<()>)> {
        let mut cmd = Command::new(&self.kubectl);
        cmd.args(self.args())
            .stdin(Stdio::inherit())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        crate::orphan::die_with_parent(&mut cmd);
        let mut child = cmd.spawn()?;
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

/// The socket's path in `dir`.
pub fn socket_in(dir: &Path) -> PathBuf {
    dir.join("proxy.sock")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(read_only: bool) -> Spec {
        Spec {
            kubectl: "kubectl".into(),
            kubeconfig: Some("/home/me/.kube/prod".into()),
            context: "prod".into(),
            socket: "/tmp/kubectl-glass-x/app-0/proxy.sock".into(),
            read_only,
        }
    }

    #[test]
    fn the_proxy_listens_on_the_private_socket_with_the_hardened_flags() {
        let a = spec(false).args();
        for want in [
            "--kubeconfig=/home/me/.kube/prod",
            "--context=prod",
            "proxy",
            "--unix-socket=/tmp/kubectl-glass-x/app-0/proxy.sock",
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
        for gone in [
            "--port",
            "--address",
            "--api-prefix",
            "--www",
            "--www-prefix",
        ] {
            assert!(
                !a.iter().any(|x| x.starts_with(gone)),
                "{gone}: kubectl listens on the socket only, and serves no files"
            );
        }
        assert!(
            spec(true)
                .args()
                .iter()
                .any(|x| x == "--reject-methods=(?i)^(POST|PUT|PATCH|DELETE)$")
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
