//! Where events are written: the [`EventSink`] trait and the API server sink, core/v1 or events.k8s.io/v1 as the server offers.

use std::rc::Rc;

use futures::FutureExt;
use futures::future::LocalBoxFuture;
use k8s_openapi::api::core::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube_core::params::{Patch, PatchParams, PostParams};

use crate::api::Api;
use crate::clock::Clock;
use crate::rest::{Error, RestClient};

/// Where events are written.
pub trait EventSink {
    /// Creates `event`.
    fn create<'a>(&'a self, event: &'a Event) -> LocalBoxFuture<'a, Result<Event, Error>>;
    /// Patches the existing event `name` in `namespace` with a merge patch.
    fn patch<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
        patch: serde_json::Value,
    ) -> LocalBoxFuture<'a, Result<Event, Error>>;
    /// True when the sink writes events.k8s.io/v1 series: repeats are then
    /// counted in a [`series::SeriesCache`] and written on its schedule
    /// (client-go `tools/events`) instead of through the [`Correlator`].
    fn series(&self) -> bool {
        false
    }
}

/// Which Events API a sink writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventsApi {
    /// `v1 Event` (`count`, `lastTimestamp`).
    CoreV1,
    /// `events.k8s.io/v1 Event` (`series`, `eventTime`, `note`).
    EventsV1,
}

/// Writes Events through the API: events.k8s.io/v1 with series when the
/// server offers it, core/v1 otherwise.
#[derive(Clone)]
pub struct ApiSink {
    client: RestClient,
    api: EventsApi,
    clock: Option<Rc<dyn Clock>>,
}

impl std::fmt::Debug for ApiSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiSink")
            .field("api", &self.api)
            .finish_non_exhaustive()
    }
}

impl ApiSink {
    /// A core/v1 sink writing with `client`.
    pub fn new(client: RestClient) -> Self {
        Self {
            client,
            api: EventsApi::CoreV1,
            clock: None,
        }
    }

    /// A sink for the API discovery says the server offers.
    pub fn for_server(
        client: RestClient,
        discovery: &crate::discovery::Discovery,
        clock: Rc<dyn Clock>,
    ) -> Self {
        let v1 = discovery
            .resources_for("events.k8s.io", "v1")
            .iter()
            .any(|r| r.plural == "events" && r.supports("create") && r.supports("patch"));
        Self {
            client,
            api: if v1 {
                EventsApi::EventsV1
            } else {
                EventsApi::CoreV1
            },
            clock: Some(clock),
        }
    }

    /// Asks the server whether it serves events.k8s.io/v1 (one small
    /// request, no full discovery) and picks the API accordingly.
    pub async fn probe(client: RestClient, clock: Rc<dyn Clock>) -> Self {
        let request = http::Request::get("/apis/events.k8s.io/v1").body(Vec::new());
        let v1 = match request {
            Ok(r) => client
                .send_json::<k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList>(r)
                .await
                .is_ok_and(|l| {
                    l.resources.iter().any(|r| {
                        r.name == "events"
                            && r.verbs.iter().any(|v| v == "create")
                            && r.verbs.iter().any(|v| v == "patch")
                    })
                }),
            Err(_) => false,
        };
        Self {
            client,
            api: if v1 {
                EventsApi::EventsV1
            } else {
                EventsApi::CoreV1
            },
            clock: Some(clock),
        }
    }

    /// The API this sink writes to.
    pub fn api(&self) -> EventsApi {
        self.api
    }

    fn micro_now(&self) -> Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime> {
        let now = self.clock.as_ref()?.now();
        let t =
            k8s_openapi::jiff::Timestamp::from_microsecond(i64::try_from(now.as_micros()).ok()?)
                .ok()?;
        Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime(t))
    }

    fn v1_api(&self, namespace: &str) -> Api<k8s_openapi::api::events::v1::Event> {
        Api::namespaced(self.client.clone(), namespace)
    }
}

/// The events.k8s.io/v1 form of a core/v1 Event.
fn to_events_v1(
    e: &Event,
    event_time: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime>,
) -> k8s_openapi::api::events::v1::Event {
    let controller = e
        .reporting_component
        .clone()
        .unwrap_or_else(|| "kubeglass".into());
    k8s_openapi::api::events::v1::Event {
        metadata: e.metadata.clone(),
        event_time,
        reporting_controller: Some(controller.clone()),
        reporting_instance: Some(e.reporting_instance.clone().unwrap_or(controller)),
        action: Some(
            e.action
                .clone()
                .or_else(|| e.reason.clone())
                .unwrap_or_default(),
        ),
        reason: e.reason.clone(),
        regarding: Some(e.involved_object.clone()),
        note: e.message.clone(),
        type_: e.type_.clone(),
        // deprecatedSource stays unset: the apiserver refuses it on create
        // ("needs to be unset"), so core/v1 readers see no `source` for
        // events written this way.
        ..Default::default()
    }
}

/// Reads a v1 Event back as a core/v1 one (what watchers and counts expect).
fn from_events_v1(e: k8s_openapi::api::events::v1::Event) -> Event {
    Event {
        metadata: e.metadata,
        involved_object: e.regarding.unwrap_or_default(),
        reason: e.reason,
        message: e.note,
        type_: e.type_,
        reporting_component: e.reporting_controller,
        reporting_instance: e.reporting_instance,
        action: e.action,
        count: e.series.as_ref().map(|s| s.count),
        ..Default::default()
    }
}

impl EventSink for ApiSink {
    fn series(&self) -> bool {
        self.api == EventsApi::EventsV1
    }

    fn create<'a>(&'a self, event: &'a Event) -> LocalBoxFuture<'a, Result<Event, Error>> {
        async move {
            let ns = event.metadata.namespace.as_deref().unwrap_or("default");
            match self.api {
                EventsApi::CoreV1 => {
                    Api::<Event>::namespaced(self.client.clone(), ns)
                        .create(&PostParams::default(), event)
                        .await
                }
                EventsApi::EventsV1 => self
                    .v1_api(ns)
                    .create(
                        &PostParams::default(),
                        &to_events_v1(event, self.micro_now()),
                    )
                    .await
                    .map(from_events_v1),
            }
        }
        .boxed_local()
    }

    fn patch<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
        patch: serde_json::Value,
    ) -> LocalBoxFuture<'a, Result<Event, Error>> {
        async move {
            match self.api {
                EventsApi::CoreV1 => {
                    Api::<Event>::namespaced(self.client.clone(), namespace)
                        .patch(name, &PatchParams::default(), &Patch::Merge(patch))
                        .await
                }
                EventsApi::EventsV1 => {
                    // A repeat is a series: its count and when it was last
                    // seen. `note` is immutable in events.k8s.io/v1 (the
                    // apiserver answers 422), so the first message stays.
                    // When the last occurrence was seen (the series cache
                    // writes a finished series later), else now.
                    let observed = patch
                        .get("lastTimestamp")
                        .cloned()
                        .and_then(|t| serde_json::from_value::<Time>(t).ok())
                        .map(|t| k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime(t.0))
                        .or_else(|| self.micro_now());
                    let v1 = serde_json::json!({
                        "series": {
                            "count": patch.get("count").cloned().unwrap_or(serde_json::json!(2)),
                            "lastObservedTime": observed,
                        },
                    });
                    self.v1_api(namespace)
                        .patch(name, &PatchParams::default(), &Patch::Merge(v1))
                        .await
                        .map(from_events_v1)
                }
            }
        }
        .boxed_local()
    }
}
