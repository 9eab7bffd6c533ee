//! `kubectl proxy` as Kubeglass runs it: on a Unix socket in the run's
//! private folder (no TCP port, no token in any argument), with the
//! hardened reject-paths, and for `--read-only` every write method refused
//! (the launcher's own allowlist, in `gate`, refuses them first).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
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
    /// Let a shell through (`pods/<name>/exec`): only when the door does.
    pub exec: bool,
}

impl Spec {
    /// kubectl's arguments: none of them is a secret.
    pub fn args(&self) -> Vec<String> {
        let mut a = context_args(self.kubeconfig.as_deref(), &self.context);
        a.extend([
            "proxy".into(),
            format!("--unix-socket={}", self.socket.display()),
            format!("--reject-paths={}", reject_paths(self.exec)),
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
    pub fn spawn(&self) -> std::io::Result<(Proxy, mpsc::Receiver<()>)> {
        let mut cmd = Command::new(&self.kubectl);
        cmd.args(self.args())
            .stdin(Stdio::inherit())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        crate::orphan::die_with_parent(&mut cmd);
        let mut child = Proxy(cmd.spawn()?);
        let (tx, rx) = mpsc::channel();
        if let Some(out) = child.0.stdout.take() {
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

/// A running kubectl proxy, stopped (killed, and waited for so no zombie
/// stays) when it is dropped: whichever way the launcher leaves a function
/// after kubectl has started (an error, a signal, a panic that unwinds),
/// kubectl goes with it, before the private folder it serves from is
/// removed.
#[derive(Debug)]
pub struct Proxy(Child);

impl Proxy {
    /// kubectl's process id.
    pub fn id(&self) -> u32 {
        self.0.id()
    }

    /// kubectl's exit status, if it has exited by itself.
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.0.try_wait()
    }

    /// Stops kubectl now and returns how it ended.
    pub fn stop(mut self) -> Option<ExitStatus> {
        let _ = self.0.kill();
        self.0.wait().ok()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The person's kubeconfig (when given) and context, as every kubectl the
/// launcher runs gets them.
pub fn context_args(kubeconfig: Option<&Path>, context: &str) -> Vec<String> {
    let mut a = Vec::new();
    if let Some(k) = kubeconfig {
        a.push(format!("--kubeconfig={}", k.display()));
    }
    a.push(format!("--context={context}"));
    a
}

/// [`REJECT_PATHS`] as kubectl takes it: comma-separated. With `exec`
/// the pods' `exec` line is left out, for this run only: the door in front
/// (`gate::upgrade`) passes a shell only as a same-origin WebSocket with
/// the token, and attach, port-forward and the proxies stay refused here
/// too.
pub fn reject_paths(exec: bool) -> String {
    REJECT_PATHS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| !(exec && *l == EXEC_PATH))
        .collect::<Vec<_>>()
        .join(",")
}

/// The line of [`REJECT_PATHS`] that refuses a shell.
pub const EXEC_PATH: &str = "^/api/.*/pods/.*/exec";

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
            exec: false,
        }
    }

    #[test]
    fn only_a_run_that_allows_a_shell_drops_exec_from_the_reject_paths() {
        assert!(reject_paths(false).split(',').any(|l| l == EXEC_PATH));
        let open = reject_paths(true);
        assert!(!open.contains("exec"), "{open}");
        for still in ["attach", "portforward", "pods/.*/proxy", "nodes/.*/proxy"] {
            assert!(open.contains(still), "{still} not in {open}");
        }
        let with = Spec {
            exec: true,
            ..spec(false)
        };
        assert!(
            with.args()
                .iter()
                .any(|a| a == &format!("--reject-paths={open}"))
        );
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

    /// True while `pid` is a process that has not been reaped (a zombie
    /// counts: it was killed but nobody waited for it).
    fn exists(pid: u32) -> bool {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_proxy_left_by_any_early_return_is_killed_and_reaped() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let kubectl = dir.path().join("kubectl");
        std::fs::write(&kubectl, "#!/bin/sh\nexec sleep 300\n").expect("write");
        std::fs::set_permissions(&kubectl, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let spec = Spec {
            kubectl,
            socket: socket_in(dir.path()),
            ..spec(false)
        };
        // What start_one does: start kubectl, then a later step fails and
        // `?` returns early.
        let started = |pid: &mut u32| -> std::io::Result<()> {
            // A fork elsewhere in the test process may briefly hold the
            // new script open for writing (ETXTBSY): try again.
            let (proxy, _serving) = (0..50)
                .find_map(|_| {
                    spec.spawn()
                        .map_err(|_| std::thread::sleep(std::time::Duration::from_millis(20)))
                        .ok()
                })
                .expect("kubectl started");
            *pid = proxy.id();
            assert!(exists(*pid));
            Err(std::io::Error::other("a later step failed"))?;
            Ok(())
        };
        let mut pid = 0;
        assert!(started(&mut pid).is_err());
        assert!(!exists(pid), "kubectl {pid} outlived the early return");
    }

    #[test]
    fn tokens_are_fresh_hex() {
        let (a, b) = (new_token().expect("token"), new_token().expect("token"));
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
