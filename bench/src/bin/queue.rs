//! Work-queue throughput natively: adds, and get+done, per second. Prints; asserts nothing about time.

use std::rc::Rc;
use std::time::Instant;

use kubeglass_bench::report;
use kubeglass_native::SystemClock;

fn main() {
    let start = Instant::now();
    let now = move || start.elapsed().as_secs_f64();
    for (items, repeats) in [(100_000u32, 1u32), (1_000, 100)] {
        println!(
            "{}",
            report("native", Rc::new(SystemClock), items, repeats, &now)
        );
    }
}
