//! Port-forwards the app asks for (`kubeglass_kubectl::forwards`): each is
//! the person's `kubectl port-forward` on the same kubeconfig and context,
//! listening on 127.0.0.1 on a port kubectl picks. None outlives the
//! launcher: each is killed and reaped when stopped or dropped, and dies
//! with the launcher however it dies (`orphan::die_with_parent`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kubeglass_kubectl::forwards::{Forward, ForwardRequest};

/// At most this many forwards at once.
pub const MAX_FORWARDS: usize = 32;

/// How long kubectl may take to say where it listens.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// Why a forward did not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// The request names something that cannot be.
    #[error("{0}")]
    Invalid(String),
    /// Too many already.
    #[error("{MAX_FORWARDS} forwards are running already; stop one first")]
    TooMany,
    /// kubectl could not be run.
    #[error("could not run kubectl: {0}")]
    Spawn(String),
    /// kubectl ended or said nothing in time, with what it printed.
    #[error("kubectl port-forward did not start: {0}")]
    Failed(String),
}

/// A forward and its kubectl.
struct Running {
    info: Forward,
    child: Child,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The run's forwards and how to start one.
pub struct Forwards {
    kubectl: PathBuf,
    kubeconfig: Option<PathBuf>,
    context: String,
    running: Mutex<BTreeMap<u32, Running>>,
    next: Mutex<u32>,
}

impl Forwards {
    /// Forwards through `kubectl` on `kubeconfig` (kubectl's default when
    /// None) and `context`.
    pub fn new(kubectl: PathBuf, kubeconfig: Option<PathBuf>, context: String) -> Self {
        Forwards {
            kubectl,
            kubeconfig,
            context,
            running: Mutex::default(),
            next: Mutex::new(1),
        }
    }

    /// kubectl's arguments for `r`: none is a secret, every name checked.
    pub fn args(&self, r: &ForwardRequest) -> Vec<String> {
        let mut a = crate::proxy::context_args(self.kubeconfig.as_deref(), &self.context);
        a.extend([
            "port-forward".into(),
            format!("--namespace={}", r.namespace),
            "--address=127.0.0.1".into(),
            r.target(),
            format!(":{}", r.port),
        ]);
        a
    }

    /// The running forwards, oldest first; those whose kubectl ended are
    /// dropped.
    pub fn list(&self) -> Vec<Forward> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        running.retain(|_, r| matches!(r.child.try_wait(), Ok(None)));
        running.values().map(|r| r.info.clone()).collect()
    }

    /// Stops forward `id`; false when there is none.
    pub fn stop(&self, id: u32) -> bool {
        let gone = self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        gone.is_some()
    }

    /// Stops every forward.
    pub fn stop_all(&self) {
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// Starts `r` and answers once kubectl says where it listens.
    pub async fn start(&self, r: ForwardRequest) -> Result<Forward, StartError> {
        r.validate()
            .map_err(|e| StartError::Invalid(e.to_string()))?;
        if self.list().len() >= MAX_FORWARDS {
            return Err(StartError::TooMany);
        }
        let mut cmd = Command::new(&self.kubectl);
        cmd.args(self.args(&r))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        crate::orphan::die_with_parent(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| StartError::Spawn(e.to_string()))?;
        let (said, said_all) = collect(child.stderr.take());
        let rx = listening_address(child.stdout.take());
        let mut running = Running {
            info: Forward {
                id: 0,
                request: r,
                local: String::new(),
            },
            child,
        };
        match tokio::time::timeout(START_TIMEOUT, rx).await {
            Ok(Ok(local)) => running.info.local = local,
            outcome => {
                drop(running);
                // kubectl has ended (or was just stopped): its last words
                // may still be in the pipe, so read to its end first.
                let _ = tokio::time::timeout(Duration::from_secs(2), said_all).await;
                let words = said
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .trim()
                    .to_string();
                let why = match (outcome, words.is_empty()) {
                    (Err(_), true) => format!("nothing said within {}s", START_TIMEOUT.as_secs()),
                    (_, true) => "kubectl ended without a word".into(),
                    (_, false) => words,
                };
                return Err(StartError::Failed(why));
            }
        }
        let id = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let id = *next;
            *next += 1;
            id
        };
        running.info.id = id;
        let info = running.info.clone();
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, running);
        Ok(info)
    }
}

/// Everything kubectl writes to `err`, as it arrives (its words when it fails).
fn collect(
    err: Option<std::process::ChildStderr>,
) -> (Arc<Mutex<String>>, tokio::sync::oneshot::Receiver<()>) {
    let said = Arc::new(Mutex::new(String::new()));
    let (done, all) = tokio::sync::oneshot::channel();
    if let Some(mut err) = err {
        let said = said.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buf[..n]).into_owned();
                said.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push_str(&text);
            }
            let _ = done.send(());
        });
    }
    (said, all)
}

/// The address kubectl says it listens on, once it says it; `out` is read
/// to its end, so kubectl never blocks on a full pipe.
fn listening_address(
    out: Option<std::process::ChildStdout>,
) -> tokio::sync::oneshot::Receiver<String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    if let Some(out) = out {
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if let Some(addr) = listening(&line)
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(addr);
                }
            }
        });
    }
    rx
}

/// The address in kubectl's `Forwarding from 127.0.0.1:43567 -> 80`.
fn listening(line: &str) -> Option<String> {
    let rest = line.strip_prefix("Forwarding from 127.0.0.1:")?;
    let port: u16 = rest.split_whitespace().next()?.parse().ok()?;
    Some(format!("127.0.0.1:{port}"))
}

/// An answer of the forwards' routes: the status, the body, and whether it
/// is JSON (else plain text, the refusal's words).
pub struct Answer {
    /// The status.
    pub status: u16,
    /// The body.
    pub body: String,
    /// JSON, else text.
    pub json: bool,
}

impl Answer {
    fn json(status: u16, body: String) -> Self {
        Answer {
            status,
            body,
            json: true,
        }
    }
    fn text(status: u16, body: impl Into<String>) -> Self {
        Answer {
            status,
            body: body.into(),
            json: false,
        }
    }
}

/// The largest request body: a [`ForwardRequest`] is small.
pub const MAX_BODY: usize = 4096;

impl Forwards {
    /// `GET` (the list), or `POST` of `body` (a [`ForwardRequest`]).
    pub async fn answer(&self, method: &str, body: &[u8]) -> Answer {
        if method == "GET" {
            return Answer::json(200, serde_json::to_string(&self.list()).unwrap_or_default());
        }
        let request: ForwardRequest = match serde_json::from_slice(body) {
            Ok(r) => r,
            Err(e) => return Answer::text(400, format!("not a port-forward request: {e}")),
        };
        match self.start(request).await {
            Ok(f) => Answer::json(201, serde_json::to_string(&f).unwrap_or_default()),
            Err(e @ StartError::Invalid(_)) => Answer::text(400, e.to_string()),
            Err(e @ StartError::TooMany) => Answer::text(429, e.to_string()),
            Err(e) => Answer::text(502, e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass_kubectl::forwards::ForwardKind;

    #[test]
    fn kubectl_is_asked_for_the_loopback_and_a_port_of_its_choice() {
        let f = Forwards::new("kubectl".into(), Some("/k".into()), "prod".into());
        let r = ForwardRequest {
            namespace: "shop".into(),
            kind: ForwardKind::Service,
            name: "web".into(),
            port: 8080,
        };
        assert_eq!(
            f.args(&r),
            [
                "--kubeconfig=/k",
                "--context=prod",
                "port-forward",
                "--namespace=shop",
                "--address=127.0.0.1",
                "service/web",
                ":8080"
            ]
        );
        assert_eq!(
            listening("Forwarding from 127.0.0.1:43567 -> 8080"),
            Some("127.0.0.1:43567".into())
        );
        assert_eq!(listening("Forwarding from [::1]:43567 -> 8080"), None);
        assert_eq!(listening("Handling connection for 43567"), None);
    }
}
