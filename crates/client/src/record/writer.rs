//! One write of one event, with client-go's retries, and what a patch that finds its event gone does.

use std::time::Duration;

use k8s_openapi::api::core::v1::{Event, ObjectReference};

use super::correlator::{Decision, EventKey};
use super::sink::EventSink;
use super::{SINK_RETRY_INTERVAL, SINK_TRIES, series, time};
use crate::clock::{Clock, Jitter, Timestamp};
use crate::rest::Error;

pub(super) fn key_of(e: &Event) -> EventKey {
    let o = &e.involved_object;
    let s = |v: &Option<String>| v.clone().unwrap_or_default();
    EventKey {
        source: e
            .source
            .as_ref()
            .and_then(|s| s.component.clone())
            .unwrap_or_default(),
        object: (
            s(&o.kind),
            s(&o.namespace),
            s(&o.name),
            s(&o.uid),
            s(&o.api_version),
        ),
        type_: s(&e.type_),
        reason: s(&e.reason),
        message: s(&e.message),
        field_path: s(&o.field_path),
        reporting_controller: s(&e.reporting_component),
        reporting_instance: s(&e.reporting_instance),
    }
}

pub(super) fn retryable(e: &Error) -> bool {
    match e {
        Error::Transport(_) => true,
        Error::Api(a) => a.is_too_many_requests() || a.is_server_error() || a.is_timeout(),
        _ => false,
    }
}

pub(super) enum Outcome {
    Written,
    Skipped,
    Failed,
}

/// What became of an event whose patch found it gone (the server's event TTL).
pub(super) enum Gone<'a> {
    /// A scheduled series write had no event to create again: forget it.
    Forgotten,
    /// Created again under `old_name` with the count so far; the caches
    /// take the created object's name (client-go's `UpdateState`).
    Recreated {
        /// The name the patch was for.
        old_name: &'a str,
        /// What the server created.
        created: &'a Event,
    },
}

/// The waits before each retry of one write ([`SINK_TRIES`] − 1 of them).
/// - core/v1 events, as client-go's `tools/record` `recordToSink`: the
///   first retry after a random 0–10 s, so many tabs that lost the server
///   do not retry in step, then 10 s apart.
/// - events.k8s.io/v1 series, as `tools/events` `attemptRecording`: every
///   retry after 10 s jittered by up to a quarter (`wait.Jitter(10 s, 0.25)`).
pub(super) fn retry_waits(series: bool, jitter: &mut Jitter) -> Vec<Duration> {
    (1..SINK_TRIES)
        .map(|attempt| {
            if series {
                SINK_RETRY_INTERVAL + SINK_RETRY_INTERVAL.mul_f64(0.25 * jitter.next_f64())
            } else if attempt == 1 {
                jitter.between(Duration::ZERO, SINK_RETRY_INTERVAL)
            } else {
                SINK_RETRY_INTERVAL
            }
        })
        .collect()
}

/// Writes one event as `decision` says, trying [`SINK_TRIES`] times, with
/// `waits` (from [`retry_waits`]) before the retries. A patch of an event that is gone (event TTL) creates it
/// again, with the same name and the count so far, as client-go's
/// `recordEvent` does, and tells `gone` so the caches follow the created
/// object; a scheduled series write with no event of its own is forgotten
/// instead. `observed` is when a patched repeat was last seen (now when None).
pub(super) async fn write(
    sink: &dyn EventSink,
    clock: &dyn Clock,
    mut event: Event,
    decision: Decision,
    observed: Option<Timestamp>,
    waits: &[Duration],
    gone: &mut dyn FnMut(Gone<'_>),
) -> Outcome {
    let namespace = event.metadata.namespace.clone().unwrap_or_default();
    for attempt in 0..SINK_TRIES {
        if attempt > 0 {
            let wait = waits
                .get(attempt as usize - 1)
                .copied()
                .unwrap_or(SINK_RETRY_INTERVAL);
            clock.sleep(wait).await;
        }
        let result = match &decision {
            Decision::Skip => return Outcome::Skipped,
            Decision::Create { message } => {
                event.message = Some(message.clone());
                match sink.create(&event).await {
                    Err(Error::Api(a)) if a.is_already_exists() => return Outcome::Written,
                    other => other,
                }
            }
            Decision::Patch {
                name,
                count,
                message,
            } => {
                let patch = serde_json::json!({
                    "count": count,
                    "message": message,
                    "lastTimestamp": time(observed.unwrap_or_else(|| clock.now())),
                });
                match sink.patch(&namespace, name, patch).await {
                    Err(Error::Api(a)) if a.is_not_found() => {
                        // The event expired (event-ttl). A scheduled write
                        // has no event to create again: forget it.
                        if event.metadata.name.is_none() {
                            gone(Gone::Forgotten);
                            return Outcome::Failed;
                        }
                        event.metadata.name = Some(name.clone());
                        event.metadata.resource_version = None;
                        event.count = Some(*count);
                        event.message = Some(message.clone());
                        match sink.create(&event).await {
                            Ok(created) => {
                                gone(Gone::Recreated {
                                    old_name: name,
                                    created: &created,
                                });
                                Ok(created)
                            }
                            other => other,
                        }
                    }
                    other => other,
                }
            }
        };
        match result {
            Ok(_) => return Outcome::Written,
            Err(e) if retryable(&e) => continue,
            Err(_) => return Outcome::Failed,
        }
    }
    Outcome::Failed
}

/// The isomorphic key of an event (client-go `tools/events` `getKey`).
pub(super) fn isomorphic_key(e: &Event) -> series::IsomorphicKey {
    let s = |v: &Option<String>| v.clone().unwrap_or_default();
    let object = |o: &ObjectReference| {
        [
            s(&o.kind),
            s(&o.namespace),
            s(&o.name),
            s(&o.uid),
            s(&o.api_version),
            s(&o.field_path),
        ]
    };
    series::IsomorphicKey {
        type_: s(&e.type_),
        action: e
            .action
            .clone()
            .or_else(|| e.reason.clone())
            .unwrap_or_default(),
        reason: s(&e.reason),
        reporting_controller: s(&e.reporting_component),
        reporting_instance: s(&e.reporting_instance),
        regarding: object(&e.involved_object),
        related: e.related.as_ref().map(object).unwrap_or_default(),
    }
}

/// Makes one write the series cache asked for.
pub(super) async fn write_series(
    sink: &dyn EventSink,
    clock: &dyn Clock,
    mut event: Event,
    w: series::SeriesWrite,
    waits: &[Duration],
    cache: &mut series::SeriesCache,
) -> Outcome {
    match w {
        series::SeriesWrite::Create => {
            let message = event.message.clone().unwrap_or_default();
            write(
                sink,
                clock,
                event,
                Decision::Create { message },
                None,
                waits,
                &mut |_| {},
            )
            .await
        }
        series::SeriesWrite::Series {
            namespace,
            name,
            count,
            last_observed,
        } => {
            // A scheduled write has no event of its own: only the name and
            // namespace are needed to patch (and a gone one is not recreated).
            if event.metadata.name.is_none() {
                event.metadata.namespace = Some(namespace.clone());
            }
            let message = event.message.clone().unwrap_or_default();
            let mut forgotten = false;
            let o = write(
                sink,
                clock,
                event,
                Decision::Patch {
                    name: name.clone(),
                    count,
                    message,
                },
                Some(last_observed),
                waits,
                &mut |gone| forgotten = matches!(gone, Gone::Forgotten),
            )
            .await;
            if forgotten {
                cache.forget(&namespace, &name);
            }
            o
        }
    }
}
