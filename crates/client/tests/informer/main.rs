//! Shared informers and the factory against the scripted fake API server
//! and a fake clock: handlers, late handlers, relists, resync, transforms,
//! sharing and stopping.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::cache::factory::Spawner;
use kubeglass_client::cache::lister::LabelSelector;
use kubeglass_client::cache::{
    InformerFactory, InformerOptions, Notification, QueueKind, SharedInformer, object_key,
};
use kubeglass_client::rest::RestClient;
use kubeglass_testing::{FakeApiServer, FakeClock, Reply, StreamHandle};
use serde_json::{Value, json};

mod factory;
mod handlers;
mod secrets;
mod seed;
mod stale;
mod transforms;

const PATH: &str = "/api/v1/namespaces/ns/configmaps";

fn cm(name: &str, rv: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv,
                        "labels": {"app": if name.starts_with('w') { "web" } else { "db" }},
                        "managedFields": [{"manager": "kubectl", "operation": "Apply"}]}})
}

fn list(rv: &str, items: Vec<Value>) -> Reply {
    Reply::json(
        200,
        json!({"apiVersion": "v1", "kind": "ConfigMapList",
               "metadata": {"resourceVersion": rv}, "items": items}),
    )
}

/// Expects the first list (rv=0) and a watch from `rv`; returns the watch feed.
fn expect_list_and_watch(server: &FakeApiServer, rv: &str, items: Vec<Value>) -> StreamHandle {
    server
        .expect_get(PATH)
        .query("resourceVersion", "0")
        .reply(list(rv, items));
    expect_watch(server, rv)
}

fn expect_watch(server: &FakeApiServer, rv: &str) -> StreamHandle {
    let (reply, feed) = Reply::stream();
    server
        .expect_get(PATH)
        .query("watch", "true")
        .query("resourceVersion", rv)
        .reply(reply);
    feed
}

/// Handler notifications, as lines and applied to a map (the replay check).
#[derive(Default)]
struct Recorder {
    lines: Vec<String>,
    replay: BTreeMap<String, String>,
}

fn rv_of(o: &ConfigMap) -> String {
    o.metadata.resource_version.clone().unwrap_or_default()
}

fn record(rec: &Rc<RefCell<Recorder>>) -> impl FnMut(&Notification<ConfigMap>) + 'static {
    let rec = rec.clone();
    move |n| {
        let mut r = rec.borrow_mut();
        let line = match n {
            Notification::Added { object, initial } => {
                r.replay.insert(object_key(object.as_ref()), rv_of(object));
                format!(
                    "add {}@{}{}",
                    object_key(object.as_ref()),
                    rv_of(object),
                    if *initial { " initial" } else { "" }
                )
            }
            Notification::Updated { old, new, resync } => {
                r.replay.insert(object_key(new.as_ref()), rv_of(new));
                format!(
                    "update {} {}->{}{}",
                    object_key(new.as_ref()),
                    rv_of(old),
                    rv_of(new),
                    if *resync { " resync" } else { "" }
                )
            }
            Notification::Deleted {
                object,
                final_state_unknown,
            } => {
                r.replay.remove(&object_key(object.as_ref()));
                format!(
                    "delete {}@{}{}",
                    object_key(object.as_ref()),
                    rv_of(object),
                    if *final_state_unknown { " unknown" } else { "" }
                )
            }
        };
        r.lines.push(line);
    }
}

struct Harness {
    pool: LocalPool,
    clock: FakeClock,
    informer: SharedInformer<ConfigMap>,
}

impl Harness {
    fn new(server: &FakeApiServer, queue: QueueKind) -> Self {
        let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
        let options = InformerOptions::new(PATH);
        let options = options.with_queue(queue);
        let informer = SharedInformer::new(
            RestClient::new(Rc::new(server.clone())),
            Rc::new(clock.clone()),
            options,
        );
        Self {
            pool: LocalPool::new(),
            clock,
            informer,
        }
    }

    fn start(&mut self) {
        let i = self.informer.clone();
        self.pool
            .spawner()
            .spawn_local(async move { i.run().await })
            .expect("spawn");
        self.settle();
    }

    fn settle(&mut self) {
        self.pool.run_until_stalled();
    }

    fn cached(&self) -> BTreeMap<String, String> {
        self.informer
            .indexer()
            .borrow()
            .list()
            .iter()
            .map(|o| (object_key(o.as_ref()), rv_of(o)))
            .collect()
    }
}

const BOTH: [QueueKind; 2] = [QueueKind::InOrder, QueueKind::Delta];
