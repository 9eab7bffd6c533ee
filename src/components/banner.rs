//! The connection banner: says clearly when the proxy cannot be reached and that data may be stale.

use leptos::prelude::*;

use crate::kube::stores::cluster::ClusterState;
use crate::kube::use_kube;
use crate::rules::connection::Connection;

/// Shows nothing while connected; a warning strip otherwise.
#[component]
pub fn ConnectionBanner() -> impl IntoView {
    let cluster = expect_context::<ClusterState>();
    move || {
        match cluster.connection.get() {
        Connection::Connected => None,
        Connection::Connecting => Some(
            view! {
                <div class="banner banner-info" data-testid="connection-banner" role="status">
                    "Connecting to the Kubernetes API through kubectl proxy…"
                </div>
            }
            .into_any(),
        ),
        Connection::Denied { message } => Some(
            view! {
                <div class="banner banner-error" data-testid="connection-banner" data-problem="forbidden" role="alert">
                    <strong>"The Kubernetes API answers, but refuses what this page asked. "</strong>
                    "Your account may read less than this view needs: pick a namespace you may read, or ask for access. "
                    <span class="banner-detail">{message}</span>
                </div>
            }
            .into_any(),
        ),
        Connection::Unreachable { message, since } => {
            let since = crate::platform::local_time(since);
            Some(
                view! {
                    <div class="banner banner-error" data-testid="connection-banner" data-problem="unreachable" role="alert">
                        <strong>"Cannot reach the Kubernetes API. "</strong>
                        "Is "<code>"kubectl proxy"</code>" still running? Reconnecting since "
                        {since}
                        " — what you see may be stale. "
                        <span class="banner-detail">{message}</span>
                    </div>
                }
                .into_any(),
            )
        }
    }
    }
}

/// Says so when the page is served without a capability URL (a plain
/// `kubectl proxy --www`): then any other page open in this browser can
/// reach the cluster through the same proxy.
#[component]
pub fn UnprotectedBanner() -> impl IntoView {
    // Read once, where the app starts (kube/start), from the page's URL.
    (!use_kube().protected()).then(|| {
        view! {
            <div class="banner banner-error" data-testid="unprotected-banner" role="alert">
                <strong>"This proxy has no token. "</strong>
                "Any other page open in this browser can reach your cluster through it. Start Kubeglass with "
                <code>"make serve"</code>", which puts a random token in the URL."
            </div>
        }
    })
}
