//! A context's `kubectl proxy`, run on demand: started when a tab first
//! asks the API (or at launch, for the context the launcher opens), and
//! stopped once no tab has used it for the idle time. Every request that
//! goes through it holds a [`Hold`] until its answer has been read to the
//! end (a watch's WebSocket, a followed log: until it closes), so a proxy
//! is never stopped under a tab that is using it.

use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::proxy;
use crate::ready::ready_problem;

/// After a start that failed, requests within this time get the same
/// answer instead of starting kubectl again (a credential plugin that
/// refuses, a cluster name that does not resolve).
pub const RETRY_AFTER: Duration = Duration::from_secs(10);

/// Where the API is for one context.
pub struct Upstream {
    /// The kubectl to run, or none: a socket someone else serves (the
    /// door's own tests), never started or stopped here.
    spec: Option<proxy::Spec>,
    socket: PathBuf,
    /// The context's name, for what the terminal is told.
    context: String,
    /// Stop kubectl after this long without a request (None: never).
    idle: Option<Duration>,
    running: Mutex<Option<proxy::Proxy>>,
    /// One start at a time: requests that arrive during it wait for it.
    starting: tokio::sync::Mutex<()>,
    /// The last start that failed: when, and why.
    failed: Mutex<Option<(Instant, String)>>,
    busy: AtomicUsize,
    last_used: Mutex<Instant>,
    starts: AtomicU32,
}

impl Upstream {
    /// A context whose kubectl proxy `spec` describes (not started yet).
    pub fn kubectl(spec: proxy::Spec, idle: Option<Duration>) -> Arc<Self> {
        let socket = spec.socket.clone();
        let context = spec.context.clone();
        Arc::new(Self::new(Some(spec), socket, context, idle))
    }

    /// A socket that is served already, by something this never starts
    /// or stops.
    pub fn at(socket: PathBuf) -> Arc<Self> {
        Arc::new(Self::new(None, socket, String::new(), None))
    }

    fn new(
        spec: Option<proxy::Spec>,
        socket: PathBuf,
        context: String,
        idle: Option<Duration>,
    ) -> Self {
        Self {
            spec,
            socket,
            context,
            idle,
            running: Mutex::new(None),
            starting: tokio::sync::Mutex::new(()),
            failed: Mutex::new(None),
            busy: AtomicUsize::new(0),
            last_used: Mutex::new(Instant::now()),
            starts: AtomicU32::new(0),
        }
    }

    /// kubectl's socket.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// True while kubectl runs (always, for a socket served elsewhere).
    pub fn running(&self) -> bool {
        self.spec.is_none() || self.running.lock().is_ok_and(|r| r.is_some())
    }

    /// How many times kubectl has been started.
    pub fn starts(&self) -> u32 {
        self.starts.load(Ordering::SeqCst)
    }

    /// Marks a request in flight until the returned guard is dropped.
    pub fn hold(self: &Arc<Self>) -> Hold {
        self.busy.fetch_add(1, Ordering::SeqCst);
        self.touch();
        Hold(self.clone())
    }

    fn touch(&self) {
        if let Ok(mut t) = self.last_used.lock() {
            *t = Instant::now();
        }
    }

    /// Starts kubectl unless it runs, and waits until it serves; the
    /// reason in words when it did not come up (also printed for the
    /// person at the terminal, once per failed start).
    pub async fn start(&self) -> Result<(), String> {
        let Some(spec) = &self.spec else {
            return Ok(());
        };
        if self.running() {
            return Ok(());
        }
        let _one = self.starting.lock().await;
        if self.running() {
            return Ok(());
        }
        if let Ok(f) = self.failed.lock()
            && let Some((at, why)) = f.as_ref()
            && at.elapsed() < RETRY_AFTER
        {
            return Err(why.clone());
        }
        // A kubectl stopped for idleness leaves its socket file behind,
        // and a new one could not listen there.
        let _ = std::fs::remove_file(&self.socket);
        let (mut child, mut serving) = spec
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", spec.kubectl.display()))?;
        self.starts.fetch_add(1, Ordering::SeqCst);
        if let Some(problem) =
            ready_problem(&mut child, &mut serving, &self.socket, &self.context).await
        {
            let _ = child.stop();
            eprintln!("kubectl-glass: {problem}");
            if let Ok(mut f) = self.failed.lock() {
                *f = Some((Instant::now(), problem.clone()));
            }
            return Err(problem);
        }
        if let Ok(mut r) = self.running.lock() {
            *r = Some(child);
        }
        if let Ok(mut f) = self.failed.lock() {
            *f = None;
        }
        self.touch();
        Ok(())
    }

    /// Stops kubectl when nothing is in flight and the last request ended
    /// longer than the idle time before `now`; true when it did.
    pub fn stop_if_idle(&self, now: Instant) -> bool {
        let Some(idle) = self.idle else {
            return false;
        };
        if self.busy.load(Ordering::SeqCst) > 0 || self.spec.is_none() {
            return false;
        }
        let quiet = self
            .last_used
            .lock()
            .map(|t| now.saturating_duration_since(*t))
            .unwrap_or_default();
        if quiet < idle {
            return false;
        }
        // Not while a start is under way (it holds the lock).
        let Ok(_one) = self.starting.try_lock() else {
            return false;
        };
        self.stop().is_some()
    }

    /// kubectl's status when it has exited by itself (it is then
    /// forgotten: the next request would start it again).
    pub fn exited(&self) -> Option<ExitStatus> {
        let mut r = self.running.lock().ok()?;
        let status = r.as_mut()?.try_wait().ok()??;
        *r = None;
        Some(status)
    }

    /// Stops kubectl now (killed and reaped, its socket file removed);
    /// how it ended, if it ran.
    pub fn stop(&self) -> Option<Option<ExitStatus>> {
        let child = self.running.lock().ok()?.take()?;
        let status = child.stop();
        let _ = std::fs::remove_file(&self.socket);
        Some(status)
    }
}

/// A request in flight through an [`Upstream`]: while one is held, its
/// kubectl is not stopped for idleness.
pub struct Hold(Arc<Upstream>);

impl Drop for Hold {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A "kubectl" that only sleeps: it never serves.
    fn sleeper(dir: &Path) -> proxy::Spec {
        let kubectl = dir.join("kubectl");
        std::fs::write(&kubectl, "#!/bin/sh\nexec sleep 300\n").expect("write");
        std::fs::set_permissions(&kubectl, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        proxy::Spec {
            kubectl,
            kubeconfig: None,
            context: "c".into(),
            socket: proxy::socket_in(dir),
            read_only: false,
            exec: false,
        }
    }

    /// Starts the sleeper as if it served. A fork elsewhere in the test
    /// process may briefly hold the new script open for writing
    /// (ETXTBSY): try again.
    fn run(up: &Upstream) {
        let spec = up.spec.as_ref().expect("spec");
        let (child, _serving) = (0..50)
            .find_map(|_| {
                spec.spawn()
                    .map_err(|_| std::thread::sleep(Duration::from_millis(20)))
                    .ok()
            })
            .expect("kubectl started");
        *up.running.lock().expect("lock") = Some(child);
    }

    #[test]
    fn a_request_in_flight_keeps_the_proxy_and_the_idle_time_counts_from_its_end() {
        let dir = tempfile::tempdir().expect("tempdir");
        let up = Upstream::kubectl(sleeper(dir.path()), Some(Duration::from_secs(60)));
        run(&up);
        let hold = up.hold();
        let later = Instant::now() + Duration::from_secs(3600);
        assert!(!up.stop_if_idle(later), "a watch is open");
        drop(hold);
        assert!(
            !up.stop_if_idle(Instant::now() + Duration::from_secs(30)),
            "30 s after the last request ended"
        );
        assert!(up.running());
        std::fs::write(up.socket(), b"").expect("a socket file kubectl left");
        assert!(up.stop_if_idle(Instant::now() + Duration::from_secs(61)));
        assert!(!up.running(), "stopped after the idle time");
        assert!(!up.socket().exists(), "its socket file went with it");
        assert_eq!(up.exited(), None, "stopped, not exited by itself");
    }

    #[test]
    fn without_an_idle_time_or_a_kubectl_nothing_is_stopped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let up = Upstream::kubectl(sleeper(dir.path()), None);
        run(&up);
        assert!(!up.stop_if_idle(Instant::now() + Duration::from_secs(86400)));
        assert!(up.stop().is_some());
        let elsewhere = Upstream::at(dir.path().join("s"));
        assert!(elsewhere.running());
        assert!(!elsewhere.stop_if_idle(Instant::now() + Duration::from_secs(86400)));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_kubectl_that_exits_at_once_is_a_reason_and_is_not_retried_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        // `false` takes kubectl's arguments and exits 1.
        let up = Upstream::kubectl(
            proxy::Spec {
                kubectl: "false".into(),
                ..sleeper(dir.path())
            },
            None,
        );
        std::fs::write(up.socket(), b"").expect("a socket file an earlier kubectl left");
        let why = up.start().await.expect_err("exits");
        assert!(!up.socket().exists(), "removed before kubectl started");
        assert!(why.contains("exited"), "{why}");
        assert_eq!(up.start().await, Err(why));
        assert_eq!(up.starts(), 1, "the second request got the first answer");
        assert!(!up.running());
    }
}
