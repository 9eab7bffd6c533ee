//! Discovery, the RESTMapper and the discovery cache, against discovery
//! documents recorded from the real kube-apiserver v1.37.2 of `hack/`
//! (tests/fixtures/, with the demo CRD installed) served by the scripted fake.

use std::rc::Rc;
use std::time::Duration;

use futures::executor::block_on;
use kubeglass_client::discovery::{
    CachedDiscovery, DISCOVERY_TTL, Discovery, DiscoveryClient, KeyValueStore, MemoryStore,
};
use kubeglass_client::rest::RestClient;
use kubeglass_testing::{FakeApiServer, FakeClock, Reply};

mod cache;
mod fetch;

fn fixture(name: &str) -> serde_json::Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("json")
}

fn expect_aggregated(server: &FakeApiServer) {
    server
        .expect_get("/api")
        .header("accept", "as=APIGroupDiscoveryList")
        .reply(Reply::json(200, fixture("aggregated-api.json")));
    server
        .expect_get("/apis")
        .header("accept", "g=apidiscovery.k8s.io;v=v2")
        .reply(Reply::json(200, fixture("aggregated-apis.json")));
}

fn aggregated() -> Discovery {
    let server = FakeApiServer::new();
    expect_aggregated(&server);
    let d = block_on(DiscoveryClient::new(RestClient::new(Rc::new(server.clone()))).fetch())
        .expect("discovery");
    server.verify();
    d
}
