//! Shared pieces of the benchmarks: the work-queue workload, the same natively and in the browser.

use std::rc::Rc;

use kubeglass_client::clock::PassiveClock;
use kubeglass_client::workqueue::Queue;

/// Adds `items` distinct keys, each `repeats` times, then gets and dones
/// every key; returns how many items were processed.
pub fn queue_workload(clock: Rc<dyn PassiveClock>, items: u32, repeats: u32) -> u64 {
    let q: Queue<u32> = Queue::new("bench", clock);
    for _ in 0..repeats {
        for i in 0..items {
            q.add(i);
        }
    }
    let mut processed = 0;
    while let Some(i) = q.try_get() {
        q.done(&i);
        processed += 1;
    }
    processed
}
