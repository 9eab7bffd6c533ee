//! Feeds arbitrary bytes, cut into arbitrary chunks, to the watch decoder: it
//! must never panic, and the chunking must never change the events.
#![no_main]

use kube_core::DynamicObject;
use kubeglass_client::rest::watch::decode_all;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    // The first byte picks the cut points; the rest is the stream.
    let step = usize::from(data[0]).max(1);
    let body = &data[1..];
    let render = |events: Vec<_>| -> Vec<String> {
        events
            .into_iter()
            .map(|e: Result<_, _>| match e {
                Ok(ev) => serde_json::to_string(&ev).unwrap_or_default(),
                Err(err) => format!("error: {err}"),
            })
            .collect()
    };
    let whole = render(decode_all::<DynamicObject>([body]));
    let chunks: Vec<&[u8]> = body.chunks(step).collect();
    let split = render(decode_all::<DynamicObject>(chunks));
    assert_eq!(whole, split);
});
