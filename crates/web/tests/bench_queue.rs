//! Work-queue throughput in headless Chromium (run by `make bench`, not by
//! `make test`). Prints add/get/done per second; asserts nothing about time.

use std::rc::Rc;

use kubeglass_bench::report;
use kubeglass_web::WebClock;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn queue_throughput() {
    let perf = web_sys::window()
        .and_then(|w| w.performance())
        .expect("performance");
    let now = move || perf.now() / 1e3;
    for (items, repeats) in [(100_000u32, 1u32), (1_000, 100)] {
        console_log!(
            "{}",
            report("browser", Rc::new(WebClock), items, repeats, &now)
        );
    }
}
