//! The root component: creates the cluster state once and provides it as context.

use leptos::prelude::*;

use crate::components::banner::ConnectionBanner;
use crate::pages::overview::Overview;
use crate::state::ClusterState;

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    let cluster = ClusterState::start();
    provide_context(cluster);
    view! {
        <header class="topbar">
            <a class="brand" href="/ui/">
                <span class="brand-mark">"◈"</span>
                " Kubeglass"
            </a>
            <span class="topbar-sub">"live view of your cluster through kubectl proxy"</span>
        </header>
        <ConnectionBanner/>
        <main class="content">
            <Overview/>
        </main>
    }
}
