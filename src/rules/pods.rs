//! A pod as its page shows it, read from untyped JSON: node, IPs, QoS class, and each init, app and ephemeral container's image, state, readiness, restarts, last termination, ports and resources.

use serde_json::Value;

use crate::rules::time::{Seconds, age, parse_time};

/// Which list of the pod spec a container is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerKind {
    /// `spec.initContainers`.
    Init,
    /// `spec.containers`.
    App,
    /// `spec.ephemeralContainers` (`kubectl debug`).
    Ephemeral,
}

impl ContainerKind {
    /// A word for the table.
    pub fn word(self) -> &'static str {
        match self {
            ContainerKind::Init => "init",
            ContainerKind::App => "app",
            ContainerKind::Ephemeral => "ephemeral",
        }
    }
}

/// A container's state, as `status.containerStatuses[].state` says.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// No status yet.
    Unknown,
    /// Waiting, with its reason (`ContainerCreating`, `CrashLoopBackOff`).
    Waiting(String),
    /// Running since.
    Running(Option<Seconds>),
    /// Terminated, with its reason, exit code and when it finished.
    Terminated {
        /// `Completed`, `Error`, `OOMKilled`.
        reason: String,
        /// The exit code.
        exit_code: i64,
        /// When it finished.
        finished: Option<Seconds>,
    },
}

impl State {
    fn read(v: Option<&Value>) -> Self {
        let Some(v) = v else {
            return State::Unknown;
        };
        let text = |p: &str| {
            v.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let time = |p: &str| v.pointer(p).and_then(Value::as_str).and_then(parse_time);
        if v.get("running").is_some() {
            State::Running(time("/running/startedAt"))
        } else if v.get("terminated").is_some() {
            State::Terminated {
                reason: text("/terminated/reason"),
                exit_code: v
                    .pointer("/terminated/exitCode")
                    .and_then(Value::as_i64)
                    .unwrap_or(0),
                finished: time("/terminated/finishedAt"),
            }
        } else if v.get("waiting").is_some() {
            State::Waiting(text("/waiting/reason"))
        } else {
            State::Unknown
        }
    }

    /// The state in words, with how long ago (`Running 5m`, `Terminated: Error (exit 1) 2m ago`).
    pub fn describe(&self, now: Seconds) -> String {
        match self {
            State::Unknown => "—".into(),
            State::Waiting(r) if r.is_empty() => "Waiting".into(),
            State::Waiting(r) => format!("Waiting: {r}"),
            State::Running(Some(t)) => format!("Running {}", age(now, *t)),
            State::Running(None) => "Running".into(),
            State::Terminated {
                reason,
                exit_code,
                finished,
            } => {
                let reason = if reason.is_empty() {
                    "Terminated"
                } else {
                    reason
                };
                let when = finished
                    .map(|t| format!(" {} ago", age(now, t)))
                    .unwrap_or_default();
                format!("{reason} (exit {exit_code}){when}")
            }
        }
    }

    /// A class for its colour.
    pub fn class(&self) -> &'static str {
        match self {
            State::Running(_) => "status-ok",
            State::Terminated { exit_code: 0, .. } => "muted",
            State::Terminated { .. } => "status-bad",
            State::Waiting(r) if r.contains("BackOff") || r.contains("Err") => "status-bad",
            State::Waiting(_) | State::Unknown => "status-warn",
        }
    }

    /// True when the container has run and so may have a log.
    pub fn has_run(&self) -> bool {
        matches!(self, State::Running(_) | State::Terminated { .. })
    }
}

/// One container of the pod.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerRow {
    /// Its name.
    pub name: String,
    /// Init, app or ephemeral.
    pub kind: ContainerKind,
    /// Its image.
    pub image: String,
    /// Now.
    pub state: State,
    /// The last time it ended, if it restarted.
    pub last: State,
    /// Passing its readiness probe.
    pub ready: bool,
    /// Restarts.
    pub restarts: i64,
    /// `8080/TCP http`, …
    pub ports: Vec<String>,
    /// `cpu 100m`, `memory 128Mi`.
    pub requests: Vec<String>,
    /// Likewise.
    pub limits: Vec<String>,
}

/// A pod's heading facts and its containers.
#[derive(Debug, Clone, PartialEq)]
pub struct PodView {
    /// `spec.nodeName`.
    pub node: String,
    /// `status.podIPs` (or `podIP`).
    pub ips: Vec<String>,
    /// `status.hostIP`.
    pub host_ip: String,
    /// `status.qosClass`.
    pub qos: String,
    /// `status.phase`.
    pub phase: String,
    /// Init, then app, then ephemeral containers, in spec order.
    pub containers: Vec<ContainerRow>,
}

fn resources(c: &Value, which: &str) -> Vec<String> {
    c.pointer(&format!("/resources/{which}"))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    format!(
                        "{k} {}",
                        v.as_str().map_or_else(|| v.to_string(), str::to_string)
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A container's ports as `8080/TCP http`.
fn ports(c: &Value) -> Vec<String> {
    c.get("ports")
        .and_then(Value::as_array)
        .map(|ps| {
            ps.iter()
                .map(|p| {
                    let port = p.get("containerPort").and_then(Value::as_i64).unwrap_or(0);
                    let proto = p.get("protocol").and_then(Value::as_str).unwrap_or("TCP");
                    match p.get("name").and_then(Value::as_str) {
                        Some(n) => format!("{port}/{proto} {n}"),
                        None => format!("{port}/{proto}"),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

impl ContainerRow {
    /// One container of a pod: its spec `c` and its status `st`, if any.
    fn read(kind: ContainerKind, c: &Value, st: Option<&Value>) -> Self {
        let name = c.get("name").and_then(Value::as_str).unwrap_or("");
        ContainerRow {
            image: c
                .get("image")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            state: State::read(st.and_then(|s| s.get("state"))),
            last: State::read(
                st.and_then(|s| s.get("lastState"))
                    .filter(|v| v.as_object().is_some_and(|o| !o.is_empty())),
            ),
            ready: st
                .and_then(|s| s.get("ready"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            restarts: st
                .and_then(|s| s.get("restartCount"))
                .and_then(Value::as_i64)
                .unwrap_or(0),
            ports: ports(c),
            requests: resources(c, "requests"),
            limits: resources(c, "limits"),
            name: name.to_string(),
            kind,
        }
    }
}

impl PodView {
    /// Reads a pod.
    pub fn from_value(pod: &Value) -> Self {
        let text = |p: &str| {
            pod.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let mut ips: Vec<String> = pod
            .pointer("/status/podIPs")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|i| i.get("ip")?.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if ips.is_empty() && !text("/status/podIP").is_empty() {
            ips.push(text("/status/podIP"));
        }
        let mut containers = Vec::new();
        for (kind, spec, status) in [
            (
                ContainerKind::Init,
                "/spec/initContainers",
                "/status/initContainerStatuses",
            ),
            (
                ContainerKind::App,
                "/spec/containers",
                "/status/containerStatuses",
            ),
            (
                ContainerKind::Ephemeral,
                "/spec/ephemeralContainers",
                "/status/ephemeralContainerStatuses",
            ),
        ] {
            let statuses = pod.pointer(status).and_then(Value::as_array);
            for c in pod
                .pointer(spec)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = c.get("name").and_then(Value::as_str);
                let st = statuses.and_then(|s| {
                    s.iter()
                        .find(|s| s.get("name").and_then(Value::as_str) == name)
                });
                containers.push(ContainerRow::read(kind, c, st));
            }
        }
        Self {
            node: text("/spec/nodeName"),
            ips,
            host_ip: text("/status/hostIP"),
            qos: text("/status/qosClass"),
            phase: text("/status/phase"),
            containers,
        }
    }

    /// The container a log view opens when none is chosen: the
    /// `kubectl.kubernetes.io/default-container` annotation's, else the
    /// first app container, as kubectl does.
    pub fn default_container(pod: &Value, view: &PodView) -> Option<String> {
        let annotated = pod
            .pointer("/metadata/annotations/kubectl.kubernetes.io~1default-container")
            .and_then(Value::as_str)
            .filter(|n| view.containers.iter().any(|c| c.name == *n));
        annotated.map(str::to_string).or_else(|| {
            view.containers
                .iter()
                .find(|c| c.kind == ContainerKind::App)
                .or(view.containers.first())
                .map(|c| c.name.clone())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod() -> Value {
        json!({
            "metadata": {"name": "web-1", "annotations": {"kubectl.kubernetes.io/default-container": "app"}},
            "spec": {
                "nodeName": "kwok-node-1",
                "initContainers": [{"name": "migrate", "image": "m:1"}],
                "containers": [
                    {"name": "sidecar", "image": "s:1"},
                    {"name": "app", "image": "a:2", "ports": [{"containerPort": 8080, "name": "http"}, {"containerPort": 53, "protocol": "UDP"}],
                     "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}}}
                ],
                "ephemeralContainers": [{"name": "debugger", "image": "busybox"}]
            },
            "status": {
                "phase": "Running", "hostIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.7"}, {"ip": "fd00::7"}], "qosClass": "Burstable",
                "initContainerStatuses": [{"name": "migrate", "ready": false, "restartCount": 0,
                    "state": {"terminated": {"reason": "Completed", "exitCode": 0, "finishedAt": "2026-12-01T09:58:00Z"}}}],
                "containerStatuses": [
                    {"name": "app", "ready": true, "restartCount": 3,
                     "state": {"running": {"startedAt": "2026-12-01T09:59:00Z"}},
                     "lastState": {"terminated": {"reason": "Error", "exitCode": 137, "finishedAt": "2026-12-01T09:58:30Z"}}},
                    {"name": "sidecar", "ready": false, "restartCount": 0, "state": {"waiting": {"reason": "CrashLoopBackOff"}}, "lastState": {}}
                ]
            }
        })
    }

    #[test]
    fn a_pod_reads_its_containers_in_spec_order_with_their_states() {
        let p = pod();
        let v = PodView::from_value(&p);
        assert_eq!(
            (v.node.as_str(), v.qos.as_str(), v.host_ip.as_str()),
            ("kwok-node-1", "Burstable", "10.0.0.1")
        );
        assert_eq!(v.ips, ["10.0.0.7", "fd00::7"]);
        let names: Vec<(&str, ContainerKind)> = v
            .containers
            .iter()
            .map(|c| (c.name.as_str(), c.kind))
            .collect();
        assert_eq!(
            names,
            [
                ("migrate", ContainerKind::Init),
                ("sidecar", ContainerKind::App),
                ("app", ContainerKind::App),
                ("debugger", ContainerKind::Ephemeral)
            ]
        );
        let now = parse_time("2026-12-01T10:10:00Z").expect("present");
        let app = &v.containers[2];
        assert_eq!(app.state.describe(now), "Running 11m");
        assert_eq!(app.last.describe(now), "Error (exit 137) 11m ago");
        assert_eq!((app.ready, app.restarts), (true, 3));
        assert_eq!(app.ports, ["8080/TCP http", "53/UDP"]);
        assert_eq!(app.requests, ["cpu 100m", "memory 128Mi"]);
        assert_eq!(app.limits, ["memory 256Mi"]);
        assert_eq!(
            v.containers[0].state.describe(now),
            "Completed (exit 0) 12m ago"
        );
        assert_eq!(
            v.containers[1].state.describe(now),
            "Waiting: CrashLoopBackOff"
        );
        assert_eq!(v.containers[1].state.class(), "status-bad");
        assert_eq!(
            v.containers[1].last,
            State::Unknown,
            "an empty lastState is no last state"
        );
        assert_eq!(v.containers[3].state, State::Unknown);
        assert!(!v.containers[3].state.has_run());
    }

    #[test]
    fn the_default_container_is_the_annotated_one_then_the_first_app_container() {
        let p = pod();
        let v = PodView::from_value(&p);
        assert_eq!(PodView::default_container(&p, &v).as_deref(), Some("app"));
        let mut q = pod();
        q["metadata"]["annotations"] = json!({"kubectl.kubernetes.io/default-container": "nope"});
        let v = PodView::from_value(&q);
        assert_eq!(
            PodView::default_container(&q, &v).as_deref(),
            Some("sidecar")
        );
        let empty = json!({});
        let v = PodView::from_value(&empty);
        assert_eq!(PodView::default_container(&empty, &v), None);
        assert!(v.ips.is_empty());
    }
}
