//! Waiting for a started `kubectl proxy` to serve: its own "Starting to
//! serve" line, then any HTTP answer to `/version` through its socket.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::{proxy, relay, say};

/// How long a proxy may take to start serving, and then to get an answer
/// from the cluster (a credential plugin may be asking for a login).
pub const READY_LIMIT: Duration = Duration::from_secs(120);

/// Waits for kubectl to serve (see `wait_ready`); says what went wrong in
/// words for the terminal, or prints the cluster's odd answer and returns
/// `None`.
pub async fn ready_problem(
    child: &mut proxy::Proxy,
    serving: &mut mpsc::Receiver<()>,
    socket: &Path,
    name: &str,
) -> Option<String> {
    let name = say::quoted(name);
    match wait_ready(child, serving, socket, READY_LIMIT).await {
        Ok(200) => None,
        Ok(status) => {
            eprintln!(
                "kubectl-glass: context {name}: the cluster answered {status} to /version; the app will say more"
            );
            None
        }
        Err(NotReady::Exited(status)) => Some(format!(
            "kubectl proxy for context {name} exited ({status})"
        )),
        Err(NotReady::Timeout(what, t)) => Some(format!(
            "kubectl proxy for context {name} took longer than {t:?} {what}"
        )),
    }
}

/// How waiting for a proxy ended badly.
#[derive(Debug)]
pub enum NotReady {
    /// kubectl exited first, with this status.
    Exited(std::process::ExitStatus),
    /// It did not get that far within the time allowed.
    Timeout(&'static str, Duration),
}

/// Waits until kubectl says it serves on its socket, then until
/// `GET /version` gets any HTTP answer through it; returns that status. A
/// status other than 200 is the cluster's answer (unreachable,
/// unauthorized): the app shows it.
pub async fn wait_ready(
    child: &mut proxy::Proxy,
    serving: &mut mpsc::Receiver<()>,
    socket: &Path,
    limit: Duration,
) -> Result<u16, NotReady> {
    let start = Instant::now();
    let mut said = false;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(NotReady::Exited(status));
        }
        said = said || serving.try_recv().is_ok();
        if said && let Ok(status) = relay::version_status(socket).await {
            return Ok(status);
        }
        if start.elapsed() > limit {
            let what = if said {
                "to answer"
            } else {
                "to start serving"
            };
            return Err(NotReady::Timeout(what, limit));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
