//! Shared pieces of the benchmarks: the work-queue workload, the same natively and in the browser.

use std::rc::Rc;

use kubeglass_client::clock::PassiveClock;
use kubeglass_client::workqueue::Queue;

/// What one run of the queue workload did and how long each phase took.
#[derive(Debug, Clone, Copy)]
pub struct QueueRun {
    /// Items handed out and marked done (each distinct key once).
    pub processed: u64,
    /// Adds performed.
    pub adds: u64,
    /// Seconds spent adding.
    pub add_secs: f64,
    /// Seconds spent in get + done.
    pub drain_secs: f64,
}

/// Adds `items` distinct keys, each `repeats` times, then gets and dones
/// every key. `now` reads a fine-grained clock in seconds.
pub fn queue_workload(
    clock: Rc<dyn PassiveClock>,
    items: u32,
    repeats: u32,
    now: &dyn Fn() -> f64,
) -> QueueRun {
    let q: Queue<u32> = Queue::new("bench", clock);
    let t0 = now();
    for _ in 0..repeats {
        for i in 0..items {
            q.add(i);
        }
    }
    let t1 = now();
    let mut processed = 0;
    while let Some(i) = q.try_get() {
        q.done(&i);
        processed += 1;
    }
    let t2 = now();
    QueueRun {
        processed,
        adds: u64::from(items) * u64::from(repeats),
        add_secs: t1 - t0,
        drain_secs: t2 - t1,
    }
}

/// Runs the workload once to warm up, then five times, and reports the best
/// phase times as one line.
pub fn report(
    label: &str,
    clock: Rc<dyn PassiveClock>,
    items: u32,
    repeats: u32,
    now: &dyn Fn() -> f64,
) -> String {
    queue_workload(clock.clone(), items, repeats, now);
    let mut add = f64::MAX;
    let mut drain = f64::MAX;
    for _ in 0..5 {
        let r = queue_workload(clock.clone(), items, repeats, now);
        assert_eq!(r.processed, u64::from(items), "each key is processed once");
        add = add.min(r.add_secs);
        drain = drain.min(r.drain_secs);
    }
    let adds = f64::from(items) * f64::from(repeats);
    format!(
        "{label} queue: {items} keys x {repeats} adds: {:.2} M adds/s ({:.1} ns/add), {:.2} M get+done/s ({:.1} ns/item)",
        adds / add / 1e6,
        add / adds * 1e9,
        f64::from(items) / drain / 1e6,
        drain / f64::from(items) * 1e9
    )
}

/// How an informer gets its initial state in [`informer_ingest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IngestMode {
    /// LIST (rv=0), then watch.
    List,
    /// Streaming list (`sendInitialEvents`).
    WatchList,
}

impl IngestMode {
    /// The name used in reports ("list", "watchlist"), as the Go program prints it.
    pub fn name(self) -> &'static str {
        match self {
            IngestMode::List => "list",
            IngestMode::WatchList => "watchlist",
        }
    }
}

/// One informer ingest run.
#[derive(Debug, Clone)]
pub struct IngestRun {
    /// Objects in the cache at sync.
    pub objects: usize,
    /// Seconds from start to synced.
    pub seconds: f64,
    /// Live heap growth while the synced informer exists, in bytes.
    pub retained_bytes: Option<i64>,
    /// Plain lists the reflector made.
    pub lists: u64,
    /// Streaming lists the reflector completed.
    pub watch_lists: u64,
    /// Streaming lists given up for a plain list.
    pub fallbacks: u64,
    /// The last error the reflector saw, if any.
    pub last_error: Option<String>,
}

/// Starts a ConfigMap informer on `namespace`, waits until it has synced
/// and measures the time and the heap it holds; then stops it. `live_bytes`
/// reads the allocator's live byte count, if the caller counts them.
#[allow(clippy::too_many_arguments)]
pub async fn informer_ingest(
    client: kubeglass_client::rest::RestClient,
    clock: Rc<dyn kubeglass_client::clock::Clock>,
    namespace: &str,
    mode: IngestMode,
    queue: kubeglass_client::cache::QueueKind,
    now: &dyn Fn() -> f64,
    live_bytes: &dyn Fn() -> Option<i64>,
) -> IngestRun {
    use futures::future::{Either, select};
    use k8s_openapi::api::core::v1::ConfigMap;
    use kubeglass_client::cache::{InformerOptions, SharedInformer};

    let before = live_bytes();
    let options =
        InformerOptions::<ConfigMap>::new(format!("/api/v1/namespaces/{namespace}/configmaps"));
    let mut options = options.with_queue(queue);
    options.reflector.watch_list = mode == IngestMode::WatchList;
    let informer = SharedInformer::new(client, clock, options);
    let t0 = now();
    let run = Box::pin(informer.run());
    let synced = Box::pin(informer.wait_synced());
    let run = match select(synced, run).await {
        Either::Left(((), run)) => run,
        Either::Right(((), _)) => unreachable!("an informer runs until dropped"),
    };
    let seconds = now() - t0;
    let objects = informer.indexer().borrow().len();
    let after = live_bytes();
    let status = informer.status().borrow().clone();
    drop(run);
    IngestRun {
        objects,
        seconds,
        retained_bytes: before.zip(after).map(|(b, a)| a - b),
        lists: status.lists,
        watch_lists: status.watch_lists,
        fallbacks: status.watch_list_fallbacks,
        last_error: status.last_error.clone(),
    }
}

/// One JSON line per run, the same shape as bench/informer-go prints.
pub fn ingest_json(implementation: &str, mode: IngestMode, run: &str, r: &IngestRun) -> String {
    let per_object = |v: f64| {
        if r.objects == 0 {
            0.0
        } else {
            v / r.objects as f64
        }
    };
    format!(
        "{{\"impl\":\"{implementation}\",\"mode\":\"{}\",\"run\":{run},\"objects\":{},\"seconds\":{:.4},\"objects_per_second\":{:.0},\"ns_per_object\":{:.0},\"heap_bytes_per_object\":{},\"list_requests\":{},\"watchlist_requests\":{}}}",
        mode.name(),
        r.objects,
        r.seconds,
        if r.seconds > 0.0 {
            r.objects as f64 / r.seconds
        } else {
            0.0
        },
        per_object(r.seconds * 1e9),
        r.retained_bytes
            .map(|b| format!("{:.0}", per_object(b as f64)))
            .unwrap_or_else(|| "null".into()),
        r.lists,
        r.watch_lists,
    )
}

/// The run with the median time.
pub fn median(runs: &[IngestRun]) -> Option<IngestRun> {
    let mut v = runs.to_vec();
    v.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    v.get(v.len() / 2).cloned()
}
