//! In-browser tests: the fetch transport, the watch decoder and the reflector
//! running in headless Chromium against the real apiserver through a real
//! `kubectl proxy` (started by `make test`).
//!
//! wasm-bindgen-test serves this page from its own port, so the proxy is a
//! different origin; the test browser runs with `--disable-web-security`
//! (crates/web/webdriver.json) for that reason only. The app itself is served
//! by the proxy and needs no such flag.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kubeglass_client::cache::{Reflector, ReflectorConfig, Store};
use kubeglass_client::clock::{Clock, PassiveClock};
use kubeglass_client::kube_core::params::{DeleteParams, PostParams, WatchParams};
use kubeglass_client::kube_core::watch::WatchEvent;
use kubeglass_client::kube_core::{ObjectList, Request};
use kubeglass_client::rest::RestClient;
use kubeglass_client::transport::{Transport, TransportError};
use kubeglass_testing::{informer_scenarios, scenarios};
use kubeglass_web::{FetchTransport, WebClock, WebSocketTransport};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

mod actions;
mod fetch;
mod integration;
mod snapshots;

wasm_bindgen_test_configure!(run_in_browser);

const PROXY: &str = match option_env!("KUBEGLASS_TEST_PROXY") {
    Some(p) => p,
    None => "http://127.0.0.1:8001",
};

fn transport() -> Rc<FetchTransport> {
    Rc::new(FetchTransport::new(PROXY, Duration::from_secs(20)))
}

fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", js_sys::Date::now() as u64)
}

/// Polls `cond` every 50 ms for up to `secs` seconds.
async fn eventually(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let clock = WebClock;
    let end = clock.now() + Duration::from_secs(secs);
    while clock.now() < end {
        if cond() {
            return true;
        }
        clock.sleep(Duration::from_millis(50)).await;
    }
    cond()
}

const RESTRICTED_PROXY: &str = match option_env!("KUBEGLASS_TEST_RESTRICTED_PROXY") {
    Some(p) => p,
    None => "http://127.0.0.1:8002",
};

fn admin() -> RestClient {
    RestClient::new(transport())
}

const FAULT_PROXY: &str = match option_env!("KUBEGLASS_TEST_FAULT_PROXY") {
    Some(p) => p,
    None => "http://127.0.0.1:18003",
};

const CONTROL: &str = match option_env!("KUBEGLASS_TEST_CONTROL") {
    Some(p) => p,
    None => "http://127.0.0.1:18009",
};

fn client_for(base: &str) -> RestClient {
    RestClient::new(Rc::new(FetchTransport::new(base, Duration::from_secs(30))))
}
