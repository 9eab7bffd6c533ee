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
