//! CPU and memory use from `metrics.k8s.io` (what `kubectl top` reads, at the version it would read), polled and shared per target.
//!
//! "Usage" is the one word for these figures here and in the app, so
//! "metrics" keeps its client-go sense: counters of requests, queues and
//! informers (`kubeglass_client::rest`, `kubeglass_client::workqueue`).
//!
//! The metrics API serves PodMetrics and NodeMetrics from metrics-server,
//! an aggregated API behind the apiserver. It has no watch: figures are
//! samples that metrics-server takes every 15 s, so the only way to follow
//! them is to ask again. [`UsagePolls`] does that the way
//! [`kubeglass_client::cache::InformerFactory`] shares watches: one poll per
//! [`Target`] however many views hold a [`PollRef`], started by the first
//! holder and stopped when the last lets go.
//!
//! - `quantity` reads resource quantities exactly, and writes them as
//!   `kubectl top` does and as short words;
//! - `decode` reads PodMetricsList and NodeMetricsList, skipping what is
//!   malformed;
//! - `ring` keeps a bounded ring of [`Point`]s per object;
//! - `poll` runs the polls and shares them; each asks the group's
//!   discovery first which version to read ([`Version::first_served`],
//!   kubectl's choice).
//!
//! metrics-server leaves out an object it has no figures for (a pod that
//! just started, a node with no running pod: it drops zeros, and a CPU rate
//! needs two scrapes), so an object missing from a sample is normal: it
//! only gets no new point.
//!
//! # The polls and their rules
//!
//! This module reads `metrics.k8s.io` (PodMetrics and
//! NodeMetrics, what `kubectl top` reads). That API has no watch, so it is
//! polled: `UsagePolls` keeps one poll per `Target` (pods in a namespace,
//! pods in all namespaces, nodes) the way `InformerFactory` keeps one watch,
//! and views hold a `PollRef`. The first hold starts the poll (its first GET
//! at once), every holder shares one GET per `POLL_EVERY` (15 s,
//! metrics-server's resolution), and the last hold to drop aborts it; a later
//! hold starts afresh. Its rules:
//!
//! - The version is kubectl's choice: before its first GET a poll reads the
//!   group's discovery document (`METRICS_GROUP`, one small `APIGroup`) and
//!   takes the first version it lists, in the server's order, that kubectl
//!   reads (`Version::first_served`, kubectl's
//!   SupportedMetricsAPIVersionAvailable: `v1` where it is served, else
//!   `v1beta1`; a group that lists neither is `NotServed`). It asks again
//!   only after a not-served answer. `PollRef::version` and
//!   `PollSnapshot::version` say which.
//! - `quantity` reads resource quantities exactly (`Quantity`: whole
//!   billionths in 128 bits, a finer value rounded up as apimachinery's
//!   ParseQuantity rounds it) and as `f64` for charts (`cpu_millis`,
//!   `bytes`). A pod's figures are its containers added exactly
//!   (`Quantities`, on `ObjectUsage`, beside the `f64` `Usage`), so what
//!   `kubectl top` prints comes out to the digit: `top_cpu` is MilliValue
//!   (a fraction of a millicore rounded up), `top_memory` is `Value` (bytes
//!   rounded up) in whole `Mi` with the rest dropped, `top_share` and
//!   `top_percent` kubectl's share of allocatable cut toward zero (0 of a
//!   zero allocatable). `cpu_words` and `bytes_words` are the app's own short
//!   words (`1.5Gi`), for its graphs and right-sizing.
//! - `decode` skips a malformed item (no name, an unreadable quantity) and
//!   keeps the others; a body that is not the list asked for is an error in
//!   words. A pod's usage is the sum of its containers.
//! - `PollState` says where a poll stands: a 404 or 503 is `NotServed` (the
//!   words say to install metrics-server), a 403 `Forbidden`; both are asked
//!   again only every `NOT_SERVED_EVERY` (a minute). Any other failure is
//!   `Failed`; the last good sample stays readable through failures.
//! - `ring` keeps a ring of `RING_POINTS` (an hour) per object, adds
//!   no point when metrics-server has not scraped since the last poll,
//!   forgets an object unseen for `KEY_TTL_SECS`, and holds at most
//!   `MAX_TOTAL_POINTS` per poll: over that, objects missing from the latest
//!   sample go first, then the oldest points of the longest series. An object
//!   missing from a sample is normal (metrics-server drops zeros and needs
//!   two scrapes for a rate): it just gets no new point.
//! - A namespace that is not a valid name sends nothing: the poll is
//!   `Failed`.
//! - `history` keeps a poll's ring between visits (a [`History`], loaded
//!   before the first GET, saved at most every [`HISTORY_EVERY`] and when
//!   asked), and pauses every poll while the tab is quiet.
//!
//! Tested natively in `usage/tests` against the scripted fake server and
//! the fake clock (sharing, stopping and restarting, the slow retry while not
//! served, failures keeping the last sample, ring bounds, subscriptions,
//! the version read), and `quantity`'s and `decode`'s own tests (apimachinery's
//! rounding, kubectl's words, a pod's containers added exactly).

mod decode;
mod fetch;
mod history;
mod poll;
pub mod quantity;
mod ring;
#[cfg(test)]
mod tests;
mod types;

pub use decode::decode_list;
pub use fetch::Read;
pub use history::{HISTORY_EVERY, History, MAX_SAVED_POINTS};
pub use poll::{LINGER, NOT_SERVED_EVERY, PollRef, PollSnapshot, PollSubscription, UsagePolls};
pub use ring::{KEY_TTL_SECS, MAX_TOTAL_POINTS};
pub use types::*;
