//! A drain against the scripted fake server and a fake clock: cordon, the
//! node's pods planned as kubectl plans them, evictions sent together, a
//! budget's 429 waited out and said, each evicted pod waited for until it
//! is gone; and a pod the person did not allow stops the drain before any
//! eviction.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use http::Method;
use kubeglass_client::clock::Clock;
use kubeglass_client::rest::RestClient;
use kubeglass_kubectl::drain::{
    Allow, Blocker, DrainEnd, DrainOptions, Left, PodState, Report, drain,
};
use kubeglass_testing::{FakeApiServer, FakeClock, Reply};
use serde_json::{Value, json};

fn pod(name: &str, owner: &str) -> Value {
    json!({"metadata": {"name": name, "namespace": "shop", "uid": format!("uid-{name}"),
        "ownerReferences": [{"kind": owner, "name": "x", "controller": true}]},
        "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}})
}

fn status(code: u16, reason: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code, "reason": reason,
        "message": "Cannot evict pod as it would violate the pod's disruption budget."})
}

/// Runs a drain of n1 to its end, stepping the fake clock; returns its end and reports.
fn run(server: &FakeApiServer, allow: Allow) -> (DrainEnd, Vec<Report>) {
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let client = RestClient::new(Rc::new(server.clone()));
    let reports = Rc::new(RefCell::new(Vec::new()));
    let end = Rc::new(RefCell::new(None));
    let (r, e) = (reports.clone(), end.clone());
    let c: Rc<dyn Clock> = Rc::new(clock.clone());
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(async move {
            let options = DrainOptions {
                allow,
                timeout: Duration::from_secs(60),
            };
            let out = drain(&client, &c, "n1", options, move |x| r.borrow_mut().push(x)).await;
            *e.borrow_mut() = Some(out);
        })
        .expect("spawn");
    loop {
        pool.run_until_stalled();
        if end.borrow().is_some() || clock.pending_timers() == 0 {
            break;
        }
        clock.advance_to_next_timer();
    }
    server.assert_no_failures();
    let out = end.borrow_mut().take().expect("the drain ended");
    (out, reports.take())
}

fn expect_cordon_and_pods(server: &FakeApiServer, pods: Vec<Value>) {
    server
        .expect(Method::PATCH, "/api/v1/nodes/n1")
        .body(json!({"spec": {"unschedulable": true}}))
        .reply(Reply::json(200, json!({"metadata": {"name": "n1"}})));
    server
        .expect_get("/api/v1/pods")
        .query("fieldSelector", "spec.nodeName=n1")
        .reply(Reply::json(200, json!({"items": pods})));
}

#[test]
fn a_budget_is_waited_out_and_daemonset_pods_stay() {
    let server = FakeApiServer::new();
    expect_cordon_and_pods(
        &server,
        vec![pod("web-1", "ReplicaSet"), pod("agent", "DaemonSet")],
    );
    let eviction = "/api/v1/namespaces/shop/pods/web-1/eviction";
    server
        .expect(Method::POST, eviction)
        .reply(Reply::json(429, status(429, "TooManyRequests")));
    server.expect(Method::POST, eviction).reply(Reply::json(
        201,
        json!({"kind": "Status", "status": "Success"}),
    ));
    server
        .expect_get("/api/v1/namespaces/shop/pods/web-1")
        .reply(Reply::json(200, pod("web-1", "ReplicaSet")));
    server
        .expect_get("/api/v1/namespaces/shop/pods/web-1")
        .reply(Reply::json(404, status(404, "NotFound")));
    let (end, reports) = run(&server, Allow::default());
    assert_eq!(end, DrainEnd::Drained);
    let web: Vec<PodState> = reports
        .iter()
        .filter_map(|r| match r {
            Report::Pod(k, s) if k == "shop/web-1" => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        web,
        [
            PodState::Evicting,
            PodState::WaitingForBudget(1),
            PodState::Evicting,
            PodState::Evicted,
            PodState::Gone
        ]
    );
    assert_eq!(reports[0], Report::Cordoned);
    assert!(reports.contains(&Report::Pod(
        "shop/agent".into(),
        PodState::Left(Left::DaemonSet)
    )));
    server.verify();
}

#[test]
fn a_pod_the_person_did_not_allow_stops_the_drain_before_any_eviction() {
    let server = FakeApiServer::new();
    let mut lone = pod("lone", "ReplicaSet");
    lone["metadata"]["ownerReferences"] = json!([]);
    expect_cordon_and_pods(&server, vec![pod("web-1", "ReplicaSet"), lone]);
    let (end, _) = run(&server, Allow::default());
    assert_eq!(
        end,
        DrainEnd::Refused(vec![("shop/lone".into(), vec![Blocker::Unmanaged])])
    );
    server.verify();
}
