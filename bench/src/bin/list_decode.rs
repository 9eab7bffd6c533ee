//! Decoding a pod Table LIST natively: the whole body at once, and the same
//! body pushed in 64 KiB chunks as it would arrive (`ListDecoder`), so the
//! scan that cuts items apart is weighed against the decode. Prints;
//! asserts nothing about time. Also the heap a decoded row holds (a
//! counting allocator, natively: 64-bit, so more than in wasm).
//!
//! Usage: `cargo run --release -p kubeglass-bench --bin list_decode [ROWS]`

use std::alloc::System;
use std::time::Instant;

use kubeglass_client::rest::list::{ListDecoder, decode_list_page};
use kubeglass_client::rest::split::Splitter;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn live_bytes() -> i64 {
    let s = GLOBAL.stats();
    s.bytes_allocated as i64 - s.bytes_deallocated as i64
}
use kubeglass_client::rest::table::TableRowObject;

/// A compact pod Table of `rows` rows, shaped like the apiserver's
/// `includeObject=Metadata` answer (about 1.7 KB a row).
fn table(rows: usize) -> Vec<u8> {
    let mut out = String::from(
        r#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"123456"},"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"Name","priority":0},{"name":"Ready","type":"string","format":"","description":"ready","priority":0},{"name":"Status","type":"string","format":"","description":"status","priority":0},{"name":"Restarts","type":"string","format":"","description":"restarts","priority":0},{"name":"Age","type":"string","format":"","description":"age","priority":0}],"rows":["#,
    );
    for i in 0..rows {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            r#"{{"cells":["bench-{i}","1/1","Running","0","5m"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"bench-{i}","generateName":"bench-","namespace":"bench","uid":"0b6c7e2e-2f4b-4a57-9c55-{i:012}","resourceVersion":"{rv}","creationTimestamp":"2026-12-06T07:00:00Z","labels":{{"app":"bench","pod-template-hash":"5d8f7c9b6","tier":"backend","i":"{i}"}},"annotations":{{"kwok.x-k8s.io/node":"fake-node-1"}},"ownerReferences":[{{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"bench-5d8f7c9b6","uid":"9f1d2c3b-aaaa-bbbb-cccc-000000000001","controller":true,"blockOwnerDeletion":true}}],"managedFields":[{{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-12-06T07:00:00Z","fieldsType":"FieldsV1","fieldsV1":{{"f:metadata":{{"f:generateName":{{}},"f:labels":{{".":{{}},"f:app":{{}}}}}},"f:spec":{{"f:containers":{{}}}}}}}},{{"manager":"kwok","operation":"Update","apiVersion":"v1","time":"2026-12-06T07:00:01Z","fieldsType":"FieldsV1","fieldsV1":{{"f:status":{{"f:conditions":{{}},"f:phase":{{}}}}}},"subresource":"status"}}]}}}}}}"#,
            rv = 100_000 + i
        ));
    }
    out.push_str("]}");
    out.into_bytes()
}

fn main() {
    let rows: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let body = table(rows);
    println!("{rows} rows, {} bytes", body.len());
    let before = live_bytes();
    let mut decoder = ListDecoder::<TableRowObject>::new(true, &|r| r);
    for chunk in body.chunks(64 * 1024) {
        decoder.push(chunk);
    }
    let page = decoder.finish().expect("page");
    let held = live_bytes() - before;
    println!(
        "the decoded rows hold {held} bytes of heap: {} B a row, against {} B a row on the wire",
        held / rows as i64,
        body.len() / rows
    );
    drop(page);
    for round in 0..3 {
        let start = Instant::now();
        let page = decode_list_page::<TableRowObject>(&body, true).expect("page");
        let whole = start.elapsed();
        assert_eq!(page.items.len(), rows);
        drop(page);
        let start = Instant::now();
        let mut decoder = ListDecoder::<TableRowObject>::new(true, &|r| r);
        for chunk in body.chunks(64 * 1024) {
            decoder.push(chunk);
        }
        let page = decoder.finish().expect("page");
        let chunked = start.elapsed();
        assert_eq!(page.items.len(), rows);
        let start = Instant::now();
        let mut split = Splitter::new(true);
        let mut pieces = 0usize;
        for chunk in body.chunks(64 * 1024) {
            split.feed(chunk, &mut |_| pieces += 1);
        }
        let scan = start.elapsed();
        println!(
            "round {round}: whole body {:.1} ms, in 64 KiB chunks {:.1} ms, of which cutting the items apart {:.1} ms ({pieces} pieces)",
            whole.as_secs_f64() * 1e3,
            chunked.as_secs_f64() * 1e3,
            scan.as_secs_f64() * 1e3
        );
    }
}
