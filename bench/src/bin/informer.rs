//! Informer ingest natively against the real apiserver through kubectl
//! proxy: time to sync and live heap per cached object. Prints JSON lines
//! in the shape bench/informer-go prints; asserts nothing about time.
//!
//! Usage: informer --server URL --namespace NS [--mode list|watchlist]
//! [--queue inorder|delta] [--runs N]
//!
//! `--server` defaults to `$KUBEGLASS_BENCH_SERVER`, where a URL with a
//! capability token belongs (every local user can read a command line).

use std::alloc::System;
use std::rc::Rc;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use kubeglass_bench::{IngestMode, informer_ingest, ingest_json, median};
use kubeglass_client::cache::QueueKind;
use kubeglass_client::rest::RestClient;
use kubeglass_native::{NativeTransport, SystemClock};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn live_bytes() -> Option<i64> {
    let s = GLOBAL.stats();
    Some(s.bytes_allocated as i64 - s.bytes_deallocated as i64)
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let server = arg(&args, "--server")
        .or_else(|| std::env::var("KUBEGLASS_BENCH_SERVER").ok())
        .unwrap_or_else(|| "http://127.0.0.1:18001".into());
    let namespace = arg(&args, "--namespace").unwrap_or_else(|| "bench-1k".into());
    let mode = match arg(&args, "--mode").as_deref() {
        Some("watchlist") => IngestMode::WatchList,
        _ => IngestMode::List,
    };
    let (queue, label) = match arg(&args, "--queue").as_deref() {
        Some("delta") => (QueueKind::Delta, "kubeglass-native-deltafifo"),
        _ => (QueueKind::InOrder, "kubeglass-native"),
    };
    let runs: usize = arg(&args, "--runs")
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let start = Instant::now();
    let now = move || start.elapsed().as_secs_f64();
    let mut results = Vec::new();
    for i in 1..=runs {
        let client = RestClient::new(Rc::new(NativeTransport::new(
            server.clone(),
            Duration::from_secs(600),
        )));
        let r = block_on(informer_ingest(
            client,
            Rc::new(SystemClock),
            &namespace,
            mode,
            queue,
            &now,
            &live_bytes,
        ));
        println!("{}", ingest_json(label, mode, &i.to_string(), &r));
        results.push(r);
    }
    if let Some(m) = median(&results) {
        println!("{}", ingest_json(label, mode, "\"median\"", &m));
    }
}
