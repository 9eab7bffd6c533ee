//! One poll's GETs: the group's discovery document, the list, and what a failure means for the person looking.

use super::decode::decode_list;
use super::types::{METRICS_GROUP, ObjectUsage, PollState, Target, Version};
use kubeglass_client::clock::Clock;
use kubeglass_client::rest::{Error, RestClient};

/// What reading one good answer cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Read {
    /// The body's size in bytes.
    pub bytes: usize,
    /// How long decoding it took on the clock, in milliseconds.
    pub decode_ms: f64,
}

/// One good answer: its objects, and what reading it cost.
pub(super) type Sample = (Vec<ObjectUsage>, Read);

/// One GET of `path` as JSON, its body, or what its failure means.
async fn get(client: &RestClient, path: &str) -> Result<Vec<u8>, PollState> {
    let request = http::Request::get(path)
        .header(http::header::ACCEPT, "application/json")
        .body(Vec::new())
        .map_err(|e| PollState::Failed(format!("cannot build the request: {e}")))?;
    client.send_raw(request).await.map_err(|e| state_of(&e))
}

/// One GET of `path`, its answer read as `target`'s list.
pub(super) async fn fetch(
    client: &RestClient,
    clock: &dyn Clock,
    target: &Target,
    path: &str,
) -> Result<Sample, PollState> {
    let body = get(client, path).await?;
    let start = clock.now();
    let items = decode_list(&body, target).map_err(|e| PollState::Failed(e.to_string()))?;
    let read = Read {
        bytes: body.len(),
        decode_ms: clock.now().saturating_sub(start).as_secs_f64() * 1000.0,
    };
    Ok((items, read))
}

/// The version to read, from the group's discovery document ([`METRICS_GROUP`]):
/// kubectl's choice ([`Version::first_served`]), or why there is none.
pub(super) async fn discover(client: &RestClient) -> Result<Version, PollState> {
    let body = get(client, METRICS_GROUP).await?;
    let listed = group_versions(&body)?;
    Version::first_served(listed.iter().map(String::as_str)).ok_or_else(|| {
        PollState::NotServed(format!(
            "this cluster serves metrics.k8s.io only as {}, and kubectl top reads {}; \
             install a metrics-server that serves one of those",
            if listed.is_empty() {
                "no version".to_string()
            } else {
                listed.join(", ")
            },
            Version::SUPPORTED.map(Version::as_str).join(" or "),
        ))
    })
}

/// The versions an `APIGroup` lists, in its order.
fn group_versions(body: &[u8]) -> Result<Vec<String>, PollState> {
    #[derive(serde::Deserialize)]
    struct Group {
        #[serde(default)]
        versions: Vec<GroupVersion>,
    }
    #[derive(serde::Deserialize)]
    struct GroupVersion {
        version: String,
    }
    serde_json::from_slice::<Group>(body)
        .map(|g| g.versions.into_iter().map(|v| v.version).collect())
        .map_err(|e| {
            PollState::Failed(format!(
                "the metrics API's discovery is not an APIGroup: {e}"
            ))
        })
}

/// What a failed GET means for the person looking.
fn state_of(e: &Error) -> PollState {
    let Some(api) = e.api() else {
        return PollState::Failed(match e {
            Error::Transport(t) => format!("no answer from the API server: {t}"),
            other => other.to_string(),
        });
    };
    let said = if api.message().is_empty() {
        api.reason()
    } else {
        api.message()
    };
    match api.code {
        404 => PollState::NotServed(format!(
            "this cluster does not serve metrics.k8s.io (404: {said}); \
             install metrics-server to see CPU and memory use"
        )),
        503 => PollState::NotServed(format!(
            "the metrics API is not available (503: {said}); \
             install metrics-server, or check that it is running"
        )),
        403 => PollState::Forbidden(said.to_string()),
        _ => PollState::Failed(format!("the metrics API answered {api}")),
    }
}
