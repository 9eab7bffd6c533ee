//! Informer ingest in headless Chromium against the real apiserver (run by
//! `make bench`, not by `make test`): time to sync and live heap per cached
//! object, as JSON lines in the shape bench/informer-go prints. Asserts
//! nothing about time. The proxy URL and namespaces come from
//! `KUBEGLASS_BENCH_PROXY` and `KUBEGLASS_BENCH_NAMESPACES` at build time.

use std::alloc::System;
use std::rc::Rc;
use std::time::Duration;

use kubeglass_bench::{IngestMode, informer_ingest, ingest_json, median};
use kubeglass_client::cache::QueueKind;
use kubeglass_client::rest::RestClient;
use kubeglass_client::transport::Transport;
use kubeglass_web::{FetchTransport, WebClock, WebSocketTransport};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const PROXY: &str = match option_env!("KUBEGLASS_BENCH_PROXY") {
    Some(p) => p,
    None => "http://127.0.0.1:8001",
};

const NAMESPACES: &str = match option_env!("KUBEGLASS_BENCH_NAMESPACES") {
    Some(n) => n,
    None => "bench-1k",
};

fn live_bytes() -> Option<i64> {
    let s = GLOBAL.stats();
    Some(s.bytes_allocated as i64 - s.bytes_deallocated as i64)
}

#[wasm_bindgen_test]
async fn informer_ingest_in_the_browser() {
    let perf = web_sys::window()
        .and_then(|w| w.performance())
        .expect("performance");
    let now = move || perf.now() / 1e3;
    for namespace in NAMESPACES.split(',') {
        // Streaming lists go over WebSocket: through fetch, Kubernetes 1.37's
        // compressed streaming lists stall (docs/kubectl-proxy.md).
        for (mode, ws) in [(IngestMode::List, false), (IngestMode::WatchList, true)] {
            let mut runs = Vec::new();
            for i in 1..=3 {
                let fetch = FetchTransport::new(PROXY, Duration::from_secs(600));
                let transport: Rc<dyn Transport> = if ws {
                    Rc::new(WebSocketTransport::new(fetch))
                } else {
                    Rc::new(fetch)
                };
                let client = RestClient::new(transport);
                let r = informer_ingest(
                    client,
                    Rc::new(WebClock),
                    namespace,
                    mode,
                    QueueKind::InOrder,
                    &now,
                    &live_bytes,
                )
                .await;
                console_log!(
                    "{namespace} {}",
                    ingest_json("kubeglass-chromium", mode, &i.to_string(), &r)
                );
                runs.push(r);
            }
            if let Some(m) = median(&runs) {
                console_log!(
                    "{namespace} {}",
                    ingest_json("kubeglass-chromium", mode, "\"median\"", &m)
                );
            }
        }
    }
}
