//! Work-queue throughput natively: add/get/done per second. Prints; asserts nothing about time.

use std::rc::Rc;
use std::time::Instant;

use kubeglass_bench::queue_workload;
use kubeglass_native::SystemClock;

fn main() {
    for (items, repeats) in [(100_000u32, 1u32), (1_000, 100)] {
        // One warm-up round, then the best of five.
        queue_workload(Rc::new(SystemClock), items, repeats);
        let mut best = f64::MAX;
        let mut processed = 0;
        for _ in 0..5 {
            let t = Instant::now();
            processed = queue_workload(Rc::new(SystemClock), items, repeats);
            best = best.min(t.elapsed().as_secs_f64());
        }
        assert_eq!(
            processed,
            u64::from(items),
            "the stingy queue processes each key once"
        );
        let adds = f64::from(items) * f64::from(repeats);
        println!(
            "native queue: {items} keys x {repeats} adds: {:.0} adds/s, {:.0} get+done/s ({:.1} ms)",
            adds / best,
            f64::from(items) / best,
            best * 1e3
        );
    }
}
