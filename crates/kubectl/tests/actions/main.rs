//! User actions through the rate-limited queue, against the scripted fake API
//! server: a conflict is retried after the limiter's delay, a Forbidden is
//! not, and each outcome is recorded as an Event.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use http::Method;
use kubeglass_client::kube_core::{ApiResource, GroupVersionKind};
use kubeglass_client::record::{ApiSink, EventBroadcaster};
use kubeglass_client::rest::{Error, RestClient};
use kubeglass_kubectl::actions::{Action, ActionKind, ActionQueue, ActionResult, RollBackTo};
use kubeglass_testing::{FakeApiServer, FakeClock, Reply};
use serde_json::json;

mod queue;
mod rollback;
mod writes;

const SCALE: &str = "/apis/apps/v1/namespaces/shop/deployments/web/scale";

fn scale_json(rv: &str, replicas: i32) -> serde_json::Value {
    json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
           "metadata": {"name": "web", "namespace": "shop", "uid": "uid-web", "resourceVersion": rv},
           "spec": {"replicas": replicas}})
}

fn deployments() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apps", "v1", "Deployment"),
        "deployments",
    )
}

/// Live discovery of apps/v1, which every write on a Deployment confirms first.
fn expect_apps_discovery(server: &FakeApiServer) {
    server.expect_get("/apis/apps/v1").reply(Reply::json(
        200,
        json!({"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": [
            {"name": "deployments", "singularName": "deployment", "namespaced": true,
             "kind": "Deployment", "verbs": ["get", "patch", "delete"]},
            {"name": "deployments/scale", "singularName": "", "namespaced": true,
             "kind": "Scale", "verbs": ["get", "update"]}]}),
    ));
}

/// Runs `action` on a fresh queue against `server` and returns how it ended
/// (events are not written: the recorder has no sink).
fn run_one(server: &FakeApiServer, action: Action) -> Vec<ActionResult> {
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let client = RestClient::new(Rc::new(server.clone()));
    let broadcaster = EventBroadcaster::new();
    let actions = ActionQueue::new(
        client,
        broadcaster.recorder("kubeglass", Rc::new(clock.clone())),
        Rc::new(clock.clone()),
    );
    let results = Rc::new(RefCell::new(Vec::new()));
    let r2 = results.clone();
    actions.on_result(move |_, r| r2.borrow_mut().push(r.clone()));
    let mut pool = LocalPool::new();
    pool.spawner()
        .spawn_local(actions.clone().run())
        .expect("spawn");
    actions.submit(action);
    pool.run_until_stalled();
    results.take()
}
