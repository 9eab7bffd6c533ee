//! `kube/` natively, against the client crate's scripted fake API server and
//! fake clock: a host whose executor, frames and storage the test steps by
//! hand. Fakes, not the real thing: the e2e suite drives the same layer in
//! real Chromium against the real apiserver.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use futures::FutureExt;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use kubeglass_client::cache::factory::Spawner;
use kubeglass_client::discovery::MemoryStore;
use kubeglass_client::reconnect::Reconnect;
use kubeglass_client::rest::RestClient;
use kubeglass_testing::{FakeApiServer, FakeClock, FakeDuplex, Reply, StreamHandle};
use kubeglass_web::ConnectionCounts;
use leptos::prelude::*;
use serde_json::{Value, json};

use super::{Host, Kube, Sockets};

mod changes;
mod logs;
mod saved;
mod session;
mod settle;
mod shell;
mod subscribe;

const START: u64 = 1_700_000_000;

/// The WebSocket switches, set by the test.
#[derive(Default)]
struct Switches {
    watches: Cell<bool>,
    logs: Cell<bool>,
}

impl Sockets for Switches {
    fn websockets_enabled(&self) -> bool {
        self.watches.get()
    }
    fn log_websockets_enabled(&self) -> bool {
        self.logs.get()
    }
}

type Frames = Rc<RefCell<Vec<Box<dyn FnOnce()>>>>;
/// What the host's `read_beside` answers, by file.
type Files = Rc<RefCell<BTreeMap<&'static str, Result<Option<String>, String>>>>;

/// A `Kube` on a host the test steps: futures run when it says, frames
/// are drawn when it says.
struct Rig {
    server: FakeApiServer,
    clock: FakeClock,
    pool: LocalPool,
    frames: Frames,
    storage: MemoryStore,
    switches: Rc<Switches>,
    files: Files,
    shells: FakeDuplex,
    kube: Kube,
}

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/crates/client/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("json")
}

/// Scripts aggregated discovery (recorded from the real apiserver).
fn expect_discovery(server: &FakeApiServer) {
    server
        .expect_get("/api")
        .reply(Reply::json(200, fixture("aggregated-api.json")));
    server
        .expect_get("/apis")
        .reply(Reply::json(200, fixture("aggregated-apis.json")));
}

fn host(pool: &LocalPool, frames: &Frames, storage: &MemoryStore, files: &Files) -> Host {
    let spawner = pool.spawner();
    let spawn: Spawner = Rc::new(move |f| spawner.spawn_local(f).expect("spawn"));
    let pending = frames.clone();
    let files = files.clone();
    Host {
        spawn,
        frames: Rc::new(move |f| {
            pending.borrow_mut().push(f);
            true
        }),
        storage: Rc::new(storage.clone()),
        sockets: Rc::new(Switches::default()),
        counts: Rc::new(ConnectionCounts::default()),
        duplex: Rc::new(FakeDuplex::new()),
        saved: None,
        shares: Rc::new(Vec::new),
        read_beside: Rc::new(move |file| {
            let answer = files.borrow().get(file).cloned().unwrap_or(Ok(None));
            async move { answer }.boxed_local()
        }),
    }
}

/// A rig whose discovery has loaded (from the fake server, into `storage`).
fn rig() -> Rig {
    rig_on(MemoryStore::default(), expect_discovery)
}

/// A rig on `storage`, its server told by `script` what comes first
/// (discovery loads as the `Kube` starts).
fn rig_on(storage: MemoryStore, script: impl FnOnce(&FakeApiServer)) -> Rig {
    rig_saving(storage, None, script)
}

/// [`rig_on`] whose host saves tables in `saved`.
fn rig_saving(
    storage: MemoryStore,
    saved: Option<Rc<dyn super::host::SavedStore>>,
    script: impl FnOnce(&FakeApiServer),
) -> Rig {
    let server = FakeApiServer::new();
    script(&server);
    let clock = FakeClock::new(Duration::from_secs(START));
    let pool = LocalPool::new();
    let frames = Frames::default();
    let files = Files::default();
    let switches = Rc::new(Switches::default());
    let mut host = host(&pool, &frames, &storage, &files);
    host.sockets = switches.clone();
    let shells = FakeDuplex::new();
    host.duplex = Rc::new(shells.clone());
    host.saved = saved;
    let client = RestClient::new(Rc::new(server.clone())).with_clock(Rc::new(clock.clone()));
    let kube = Kube::new(
        client,
        Rc::new(clock.clone()),
        Reconnect::new(),
        host,
        "http://127.0.0.1:8001/token",
        true,
    );
    let mut rig = Rig {
        server,
        clock,
        pool,
        frames,
        storage,
        switches,
        files,
        shells,
        kube,
    };
    rig.run();
    rig
}

impl Rig {
    /// Runs every future that can run.
    fn run(&mut self) {
        self.pool.run_until_stalled();
        self.server.assert_no_failures();
    }

    /// Draws one frame: runs what can run, then every frame callback asked
    /// for so far; returns how many there were.
    fn frame(&mut self) -> usize {
        self.run();
        let n = self.frame_only();
        self.run();
        n
    }

    /// Calls every frame callback asked for so far, and nothing else (a
    /// task that could run first does not); returns how many there were.
    fn frame_only(&self) -> usize {
        let due: Vec<_> = std::mem::take(&mut *self.frames.borrow_mut());
        let n = due.len();
        for f in due {
            f();
        }
        n
    }

    /// Moves the clock on and runs what came due.
    fn advance(&mut self, d: Duration) {
        self.clock.advance(d);
        self.run();
    }
}

/// Expects a list of `path` (any query) answered with `items`, then a
/// watch from `rv`; returns the watch's feed.
fn expect_list_and_watch(
    server: &FakeApiServer,
    path: &str,
    rv: &str,
    items: Vec<Value>,
) -> StreamHandle {
    server.expect_get(path).reply(Reply::json(
        200,
        json!({"apiVersion": "v1", "kind": "List",
               "metadata": {"resourceVersion": rv}, "items": items}),
    ));
    expect_watch(server, path, rv)
}

/// Expects a watch of `path` from `rv`; returns its feed.
fn expect_watch(server: &FakeApiServer, path: &str, rv: &str) -> StreamHandle {
    let (reply, feed) = Reply::stream();
    server
        .expect_get(path)
        .query("watch", "true")
        .query("resourceVersion", rv)
        .reply(reply);
    feed
}

fn config_map(name: &str, rv: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv,
                        "managedFields": [{"manager": "kubectl", "operation": "Apply"}]},
           "data": {"k": rv}})
}

#[test]
fn discovery_loads_into_the_signal_and_is_cached_in_the_hosts_storage() {
    let rig = rig();
    let found = rig.kube.discovered.get_untracked();
    let discovery = match found {
        Some(Ok(d)) => d,
        other => panic!("discovery did not load: {:?}", other.map(|r| r.err())),
    };
    assert!(
        discovery.resources.iter().any(|r| r.plural == "pods"),
        "no pods in discovery"
    );
    assert_eq!(rig.server.log(), ["GET /api", "GET /apis"]);
    // The next start on the same storage (another tab, a reload) shows the
    // cached tree and asks the server nothing: the fake would fail on any
    // request it was not told to expect.
    let again = rig_on(rig.storage.clone(), |_| {});
    assert!(matches!(again.kube.discovered.get_untracked(), Some(Ok(_))));
    assert!(again.server.log().is_empty(), "{:?}", again.server.log());
    assert!(
        again.kube.discovery_age().is_some(),
        "the second start did not read the first one's cache"
    );
}

#[test]
fn discovery_that_fails_says_why_and_a_later_success_replaces_it() {
    let mut rig = rig_on(MemoryStore::default(), |server| {
        server.expect_get("/api").reply(Reply::status(
            503,
            "ServiceUnavailable",
            "apiserver is starting",
        ));
    });
    match rig.kube.discovered.get_untracked() {
        Some(Err(p)) => assert!(format!("{p:?}").contains("apiserver is starting"), "{p:?}"),
        other => panic!(
            "a failed discovery must say why: {:?}",
            other.map(|r| r.ok())
        ),
    }
    assert!(rig.kube.discovery_age().is_none(), "a failure was cached");
    expect_discovery(&rig.server);
    rig.kube.load_discovery(true);
    rig.run();
    assert!(matches!(rig.kube.discovered.get_untracked(), Some(Ok(_))));
    assert!(rig.kube.discovery_age().is_some());
}
