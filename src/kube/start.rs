//! Starting the cluster side of the app once: transports under the page's capability prefix, the rate-limited client, the factory and discovery.

use std::rc::Rc;
use std::time::Duration;

use kubeglass_client::clock::Clock;
use kubeglass_client::discovery::KeyValueStore;
use kubeglass_client::reconnect::Reconnect;
use kubeglass_client::rest::{BROWSER_BURST, BROWSER_QPS, RestClient};
use kubeglass_client::tabs::SharedWatches;
use kubeglass_client::transport::Transport;
use kubeglass_web::{FetchTransport, Snapshots, TabBus, WebClock, WebSocketTransport};
use leptos::prelude::*;

use crate::kube::host::{SavedStore, Shares};
use crate::kube::{Host, Kube};

/// What starting gives the app: the shared handles and the reconnect
/// signal the version probe pulls.
pub struct Started {
    /// Client, clock, factory, discovery.
    pub kube: Kube,
    /// Wakes every reflector waiting out a backoff.
    pub reconnect: Reconnect,
}

/// Builds the client for the API beside this page and the shared handles.
///
/// Plain-JSON watches go over WebSocket (they hold no HTTP/1.1
/// connection); everything else, metadata-only watches included, over
/// fetch. The API is the parent of the app's `ui/` folder: `/<token>` under
/// a capability URL, the origin's root under a plain `kubectl proxy --www`.
pub fn start(storage: Rc<dyn KeyValueStore>, served: bool) -> Started {
    let location = window().location();
    let base = crate::route::api_base_from(&location.pathname().unwrap_or_default());
    // The launcher's store is the context's own, the same every run; the
    // browser's is the origin's, shared by whatever served it before.
    let scope = if served {
        "kubectl glass".to_string()
    } else {
        format!("{}{base}", location.origin().unwrap_or_default())
    };
    let protected = !base.is_empty();
    let transport = Rc::new(WebSocketTransport::new(FetchTransport::new(
        base.clone(),
        Duration::from_secs(30),
    )));
    // The only place the app takes the browser's clock: everything else
    // reads this one, through `Kube::clock`.
    let clock: Rc<dyn Clock> = Rc::new(WebClock);
    // Watches are shared with this origin's other tabs (one watch per
    // collection at the apiserver), where the browser has the means.
    let (watches, shares): (Rc<dyn Transport>, Shares) = match TabBus::new() {
        Some(bus) => {
            let tab = format!("{:016x}", clock.random_u64());
            let shared = Rc::new(SharedWatches::new(
                transport.clone(),
                Rc::new(bus),
                clock.clone(),
                tab,
            ));
            let read = shared.clone();
            (shared, Rc::new(move || read.shares()))
        }
        None => (transport.clone(), Rc::new(Vec::new)),
    };
    let client = RestClient::new(watches)
        .with_clock(clock.clone())
        .with_rate_limit(BROWSER_QPS, BROWSER_BURST);
    let reconnect = Reconnect::new();
    // Saved tables go where the preferences go: the launcher's folder for
    // the context (a fresh origin each run keeps nothing), else this origin.
    let saved: Rc<dyn SavedStore> = Rc::new(if served {
        Snapshots::launcher(&base)
    } else {
        Snapshots::Browser
    });
    let kube = Kube::new(
        client,
        clock,
        reconnect.clone(),
        Host::browser(transport, storage, Some(saved), shares),
        &scope,
        protected,
    );
    Started { kube, reconnect }
}
