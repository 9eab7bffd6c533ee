//! The event correlator, recorder, broadcaster and sink on a fake clock,
//! ported from client-go's tools/record tests (events_cache_test and
//! event_test), with the scripted fake API server as the sink's apiserver.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use http::Method;
use k8s_openapi::api::core::v1::ObjectReference;
use kubeglass_client::record::correlator::{
    AGGREGATE_AFTER, COMBINED_PREFIX, Correlator, Decision, EventKey, SPAM_BURST, SPAM_REFILL,
};
use kubeglass_client::record::{ApiSink, EventBroadcaster, EventType, SINK_TRIES};
use kubeglass_client::rest::RestClient;
use kubeglass_testing::{FakeApiServer, FakeClock, Reply};
use serde_json::json;

mod correlator;
mod events_v1;
mod sink;

fn key(object: &str, reason: &str, message: &str) -> EventKey {
    EventKey {
        source: "kubeglass".into(),
        object: (
            "Deployment".into(),
            "shop".into(),
            object.into(),
            format!("uid-{object}"),
            "apps/v1".into(),
        ),
        type_: "Normal".into(),
        reason: reason.into(),
        message: message.into(),
        field_path: String::new(),
        reporting_controller: "kubeglass".into(),
        reporting_instance: "kubeglass-1".into(),
    }
}

const T0: Duration = Duration::from_secs(1_700_000_000);

fn deployment() -> ObjectReference {
    ObjectReference {
        api_version: Some("apps/v1".into()),
        kind: Some("Deployment".into()),
        namespace: Some("shop".into()),
        name: Some("web".into()),
        uid: Some("uid-web".into()),
        ..Default::default()
    }
}
