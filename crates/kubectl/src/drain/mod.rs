//! `kubectl drain`: cordon the node, then evict its pods through the
//! Eviction API (`plan` decides which), each until it is gone; a
//! PodDisruptionBudget's refusal (429) is waited out with backoff and said
//! ("waiting for budget"), and the whole has a deadline. Uncordon is the
//! action queue's `Cordon(false)`.
//!
//! The evictions are sent together, as kubectl sends them, so a budget
//! that allows one disruption at a time lets them through one by one.
//! Every step is reported to the caller as it happens.

mod plan;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::future::join_all;
use serde_json::{Value, json};

use kubeglass_client::api::with_query;
use kubeglass_client::clock::Clock;
use kubeglass_client::names::{validate_name, validate_namespace};
use kubeglass_client::rest::{Error, RestClient};

pub use plan::{Allow, Blocker, Left, Plan, plan};

/// How a drain runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrainOptions {
    /// What the person allowed.
    pub allow: Allow,
    /// The whole drain's deadline (kubectl's `--timeout`).
    pub timeout: Duration,
}

/// One pod of the drain: `namespace/name`.
pub type PodKey = String;

/// Where one pod stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodState {
    /// Not sent yet.
    Waiting,
    /// The eviction is being asked for.
    Evicting,
    /// A PodDisruptionBudget refused it this many times; asked again later.
    WaitingForBudget(u32),
    /// Evicted; waiting for it to be gone.
    Evicted,
    /// Gone from the node.
    Gone,
    /// Left alone.
    Left(Left),
    /// It failed, in words.
    Failed(String),
}

/// What a drain reports, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Report {
    /// The node is unschedulable now.
    Cordoned,
    /// The node's pods and what will be done with each.
    Planned(Vec<(PodKey, Plan)>),
    /// One pod moved on.
    Pod(PodKey, PodState),
}

/// How a drain ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DrainEnd {
    /// Every pod to evict is gone.
    Drained,
    /// Pods the person did not allow stop it; nothing was evicted.
    Refused(Vec<(PodKey, Vec<Blocker>)>),
    /// The deadline passed with these pods still there.
    TimedOut(Vec<PodKey>),
    /// It failed, in words.
    Failed(String),
}

/// How long between budget refusals, first to last (kubectl waits 5 s).
const BUDGET_BACKOFF: [u64; 4] = [1, 2, 4, 5];

/// How often an evicted pod is looked for.
const GONE_POLL: Duration = Duration::from_secs(1);

/// Drains `node`: cordon, list its pods, plan, evict, wait. `report` hears
/// every step.
pub async fn drain(
    client: &RestClient,
    clock: &Rc<dyn Clock>,
    node: &str,
    options: DrainOptions,
    report: impl FnMut(Report) + 'static,
) -> DrainEnd {
    let report = Rc::new(RefCell::new(report));
    let say = |r: Report| (report.borrow_mut())(r);
    if let Err(e) = validate_name(node) {
        return DrainEnd::Failed(e.to_string());
    }
    if let Err(e) = cordon(client, node).await {
        return DrainEnd::Failed(format!("could not cordon {node}: {e}"));
    }
    say(Report::Cordoned);
    let pods = match pods_on(client, node).await {
        Ok(p) => p,
        Err(e) => return DrainEnd::Failed(format!("could not list the pods on {node}: {e}")),
    };
    let planned: Vec<(PodKey, Plan, Value)> = pods
        .into_iter()
        .map(|p| (key(&p), plan(&p, options.allow), p))
        .collect();
    say(Report::Planned(
        planned
            .iter()
            .map(|(k, p, _)| (k.clone(), p.clone()))
            .collect(),
    ));
    let blocked: Vec<(PodKey, Vec<Blocker>)> = planned
        .iter()
        .filter_map(|(k, p, _)| match p {
            Plan::Blocked(b) => Some((k.clone(), b.clone())),
            _ => None,
        })
        .collect();
    if !blocked.is_empty() {
        return DrainEnd::Refused(blocked);
    }
    let deadline = clock.now() + options.timeout;
    let evictions = planned.iter().filter_map(|(k, p, pod)| match p {
        Plan::Evict => Some(evict_until_gone(
            client,
            clock,
            k.clone(),
            pod,
            deadline,
            report.clone(),
        )),
        Plan::Leave(l) => {
            say(Report::Pod(k.clone(), PodState::Left(*l)));
            None
        }
        Plan::Blocked(_) => None,
    });
    let ends: Vec<(PodKey, Result<(), Option<String>>)> = join_all(evictions).await;
    let late: Vec<PodKey> = ends
        .iter()
        .filter(|(_, r)| matches!(r, Err(None)))
        .map(|(k, _)| k.clone())
        .collect();
    if let Some((k, Err(Some(why)))) = ends.iter().find(|(_, r)| matches!(r, Err(Some(_)))) {
        return DrainEnd::Failed(format!("{k}: {why}"));
    }
    if !late.is_empty() {
        return DrainEnd::TimedOut(late);
    }
    DrainEnd::Drained
}

fn key(pod: &Value) -> PodKey {
    format!(
        "{}/{}",
        pod["metadata"]["namespace"].as_str().unwrap_or_default(),
        pod["metadata"]["name"].as_str().unwrap_or_default()
    )
}

/// `spec.unschedulable: true`, as `kubectl cordon` sets it.
async fn cordon(client: &RestClient, node: &str) -> Result<(), Error> {
    let req = http::Request::patch(format!("/api/v1/nodes/{node}?fieldManager=kubeglass"))
        .header(http::header::CONTENT_TYPE, "application/merge-patch+json")
        .body(serde_json::to_vec(&json!({"spec": {"unschedulable": true}})).unwrap_or_default())
        .map_err(|e| Error::Request(e.to_string()))?;
    client.send_raw(req).await.map(|_| ())
}

/// Every pod bound to `node`, in every namespace.
async fn pods_on(client: &RestClient, node: &str) -> Result<Vec<Value>, Error> {
    let req = http::Request::get("/api/v1/pods")
        .body(Vec::new())
        .map_err(|e| Error::Request(e.to_string()))?;
    // The name encoded into the query, whatever it holds.
    let req = with_query(req, "fieldSelector", &format!("spec.nodeName={node}"));
    let list: Value = client.send_json(req).await?;
    Ok(list["items"].as_array().cloned().unwrap_or_default())
}

/// Evicts `pod` (asking again while a budget refuses), then waits for it
/// to be gone, until `deadline`. `Err(None)`: the deadline passed.
async fn evict_until_gone(
    client: &RestClient,
    clock: &Rc<dyn Clock>,
    key: PodKey,
    pod: &Value,
    deadline: Duration,
    report: Rc<RefCell<impl FnMut(Report) + 'static>>,
) -> (PodKey, Result<(), Option<String>>) {
    let say = |s: PodState| (report.borrow_mut())(Report::Pod(key.clone(), s));
    let (ns, name) = (
        pod["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        pod["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    );
    let uid = pod["metadata"]["uid"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    // Names from the cluster go into request paths only once checked.
    if let Err(e) = validate_namespace(&ns).and_then(|()| validate_name(&name)) {
        say(PodState::Failed(e.to_string()));
        return (key, Err(Some(e.to_string())));
    }
    let mut refused = 0u32;
    loop {
        if clock.now() >= deadline {
            return (key, Err(None));
        }
        say(PodState::Evicting);
        match evict(client, &ns, &name).await {
            Ok(()) => break,
            Err(Error::Api(a)) if a.code == 404 => {
                say(PodState::Gone);
                return (key, Ok(()));
            }
            Err(Error::Api(a)) if a.code == 429 => {
                refused += 1;
                say(PodState::WaitingForBudget(refused));
                let secs = BUDGET_BACKOFF[(refused as usize - 1).min(BUDGET_BACKOFF.len() - 1)];
                clock.sleep(Duration::from_secs(secs)).await;
            }
            Err(e) => {
                let why = e.to_string();
                say(PodState::Failed(why.clone()));
                return (key, Err(Some(why)));
            }
        }
    }
    say(PodState::Evicted);
    loop {
        match still_there(client, &ns, &name, &uid).await {
            Ok(false) => {
                say(PodState::Gone);
                return (key, Ok(()));
            }
            Ok(true) | Err(_) if clock.now() < deadline => clock.sleep(GONE_POLL).await,
            _ => return (key, Err(None)),
        }
    }
}

/// `POST …/pods/<name>/eviction`, policy/v1.
async fn evict(client: &RestClient, ns: &str, name: &str) -> Result<(), Error> {
    let body = json!({
        "apiVersion": "policy/v1", "kind": "Eviction",
        "metadata": {"name": name, "namespace": ns},
    });
    let req = http::Request::post(format!("/api/v1/namespaces/{ns}/pods/{name}/eviction"))
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(serde_json::to_vec(&body).unwrap_or_default())
        .map_err(|e| Error::Request(e.to_string()))?;
    client.send_raw(req).await.map(|_| ())
}

/// True while the pod of that name and `uid` exists (a new pod of the same
/// name, a StatefulSet's, is another pod).
async fn still_there(client: &RestClient, ns: &str, name: &str, uid: &str) -> Result<bool, Error> {
    let req = http::Request::get(format!("/api/v1/namespaces/{ns}/pods/{name}"))
        .body(Vec::new())
        .map_err(|e| Error::Request(e.to_string()))?;
    match client.send_json::<Value>(req).await {
        Ok(p) => Ok(p["metadata"]["uid"].as_str() == Some(uid)),
        Err(Error::Api(a)) if a.code == 404 => Ok(false),
        Err(e) => Err(e),
    }
}
