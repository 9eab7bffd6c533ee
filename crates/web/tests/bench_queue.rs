//! Work-queue throughput in headless Chromium (run by `make bench`, not by
//! `make test`). Prints add/get/done per second; asserts nothing about time.

use std::rc::Rc;

use kubeglass_bench::queue_workload;
use kubeglass_web::WebClock;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn workload(items: u32, repeats: u32) -> u64 {
    queue_workload(Rc::new(WebClock), items, repeats)
}

#[wasm_bindgen_test]
fn queue_throughput() {
    let perf = web_sys::window()
        .and_then(|w| w.performance())
        .expect("performance");
    for (items, repeats) in [(100_000u32, 1u32), (1_000, 100)] {
        workload(items, repeats);
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = perf.now();
            assert_eq!(workload(items, repeats), u64::from(items));
            best = best.min((perf.now() - t) / 1e3);
        }
        let adds = f64::from(items) * f64::from(repeats);
        console_log!(
            "browser queue: {items} keys x {repeats} adds: {:.0} adds/s, {:.0} get+done/s ({:.1} ms)",
            adds / best,
            f64::from(items) / best,
            best * 1e3
        );
    }
}
