//! Model-based property test of the whole informer: random sequences of
//! creates, updates, deletes, dropped and broken connections, 410s,
//! compactions, bookmarks, unreachable spells and time passing, against a
//! simulated API server. However the sequence goes, once the faults stop the
//! informer's cache must equal the server's state, and the handler's
//! notifications replayed onto an empty map must give the same state (no
//! lost delete, no phantom object). Run for both queue designs, with and
//! without streaming lists.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::cache::{
    InformerOptions, Notification, QueueKind, SharedInformer, object_key,
};
use kubeglass_client::rest::RestClient;
use kubeglass_testing::FakeClock;
use kubeglass_testing::sim::SimServer;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Put(u8, u8),
    Delete(u8),
    DropWatches { broken: bool },
    Expire,
    Compact,
    Bookmark,
    Down,
    Up,
    Wait(u16),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..12, any::<u8>()).prop_map(|(n, d)| Op::Put(n, d)),
        3 => (0u8..12).prop_map(Op::Delete),
        1 => any::<bool>().prop_map(|broken| Op::DropWatches { broken }),
        1 => Just(Op::Expire),
        1 => Just(Op::Compact),
        1 => Just(Op::Bookmark),
        1 => Just(Op::Down),
        1 => Just(Op::Up),
        2 => (0u16..5000).prop_map(Op::Wait),
    ]
}

type View = BTreeMap<String, String>;

fn rv(o: &ConfigMap) -> String {
    o.metadata.resource_version.clone().unwrap_or_default()
}

/// A handler that replays the notifications onto `replay`, noting in
/// `phantom` each one that does not fit what it replayed so far.
fn replaying(
    replay: Rc<RefCell<View>>,
    phantom: Rc<RefCell<Vec<String>>>,
) -> impl Fn(&Notification<ConfigMap>) + 'static {
    let (r, p) = (replay, phantom);
    move |n: &Notification<ConfigMap>| match n {
        Notification::Added { object, .. } => {
            let key = object_key(object.as_ref());
            if r.borrow().contains_key(&key) {
                p.borrow_mut().push(format!("added twice: {key}"));
            }
            r.borrow_mut().insert(key, rv(object));
        }
        Notification::Updated { new, .. } => {
            let key = object_key(new.as_ref());
            if !r.borrow().contains_key(&key) {
                p.borrow_mut().push(format!("update of unknown {key}"));
            }
            r.borrow_mut().insert(key, rv(new));
        }
        Notification::Deleted { object, .. } => {
            let key = object_key(object.as_ref());
            if r.borrow_mut().remove(&key).is_none() {
                p.borrow_mut().push(format!("delete of unknown {key}"));
            }
        }
    }
}

/// What the informer's cache holds, as key → resourceVersion.
fn cached(informer: &SharedInformer<ConfigMap>) -> View {
    informer
        .indexer()
        .borrow()
        .list()
        .iter()
        .map(|o| (object_key(o.as_ref()), rv(o)))
        .collect()
}

/// Does `op` to the simulated server or the clock.
fn apply(server: &SimServer, clock: &FakeClock, op: &Op) {
    match *op {
        Op::Put(n, d) => server.put(&format!("cm-{n}"), &d.to_string()),
        Op::Delete(n) => server.delete(&format!("cm-{n}")),
        Op::DropWatches { broken } => server.drop_watches(broken),
        Op::Expire => server.expire_watches(),
        Op::Compact => server.compact(),
        Op::Bookmark => server.bookmark(),
        Op::Down => server.set_down(true),
        Op::Up => server.set_down(false),
        Op::Wait(ms) => clock.advance(Duration::from_millis(u64::from(ms))),
    }
}

fn run_model(ops: &[Op], queue: QueueKind, watch_list: bool) -> Result<(), TestCaseError> {
    let server = SimServer::new("ns", watch_list);
    let clock = FakeClock::new(Duration::from_secs(1_700_000_000));
    let options = InformerOptions::<ConfigMap>::new(server.path());
    let mut options = options.with_queue(queue);
    options.reflector.watch_list = watch_list;
    let informer = SharedInformer::new(
        RestClient::new(Rc::new(server.clone())),
        Rc::new(clock.clone()),
        options,
    );
    let replay: Rc<RefCell<View>> = Rc::default();
    let phantom: Rc<RefCell<Vec<String>>> = Rc::default();
    informer.add_handler(
        replaying(replay.clone(), phantom.clone()),
        Some(Duration::from_secs(60)),
    );
    let mut pool = LocalPool::new();
    let i = informer.clone();
    pool.spawner()
        .spawn_local(async move { i.run().await })
        .expect("spawn");
    pool.run_until_stalled();

    for op in ops {
        apply(&server, &clock, op);
        pool.run_until_stalled();
        // The cache and the handler's view agree at every quiet moment.
        let cached = cached(&informer);
        prop_assert_eq!(&cached, &*replay.borrow(), "handler view after {:?}", op);
    }

    // Faults stop; give the informer time to catch up (backoffs are ≤ 30 s).
    server.set_down(false);
    let want: View = server
        .state()
        .into_iter()
        .map(|(k, (rv, _))| (format!("ns/{k}"), rv))
        .collect();
    let mut converged = false;
    for _ in 0..40 {
        pool.run_until_stalled();
        if cached(&informer) == want && informer.has_synced() {
            converged = true;
            break;
        }
        clock.advance(Duration::from_secs(5));
    }
    prop_assert!(
        converged,
        "cache never converged; status {:?}; requests {:#?}",
        informer.snapshot(),
        server.requests()
    );
    prop_assert_eq!(&*replay.borrow(), &want, "replayed notifications");
    prop_assert!(phantom.borrow().is_empty(), "{:?}", phantom.borrow());
    informer
        .indexer()
        .borrow()
        .check_consistent()
        .map_err(TestCaseError::fail)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn in_order_queue_converges(ops in proptest::collection::vec(op(), 1..60)) {
        run_model(&ops, QueueKind::InOrder, false)?;
    }

    #[test]
    fn delta_fifo_converges(ops in proptest::collection::vec(op(), 1..60)) {
        run_model(&ops, QueueKind::Delta, false)?;
    }

    #[test]
    fn streaming_lists_converge(ops in proptest::collection::vec(op(), 1..60)) {
        run_model(&ops, QueueKind::InOrder, true)?;
    }
}
