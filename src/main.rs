//! Kubeglass, a Kubernetes dashboard that is only a web page: this file mounts the app, or inside another page's frame one line saying why not, or, when a foreign Service Worker holds the origin, why it stopped.
//!
//! The layers: `pages` → `components` → `actions` → `kube` → `rules`
//! (`route` and `prefs` at the bottom); nothing imports back up.

mod actions;
mod app;
mod components;
mod kube;
mod pages;
mod platform;
mod prefs;
mod route;
mod rules;

use leptos::prelude::*;

/// What a framed page shows instead of the app: no controls, one line.
#[component]
fn Framed() -> impl IntoView {
    view! {
        <p class="framed" data-testid="framed" role="alert">
            "Kubeglass does not run inside a frame of another page, so that page cannot trick you into clicking its buttons. Open it in its own tab."
        </p>
    }
}

/// What the page shows instead of the app when a Service Worker was
/// registered for its address: something else served a page here before,
/// and its worker may have seen this run's token.
#[component]
fn Haunted(found: usize, launcher_told: bool) -> impl IntoView {
    let workers = if found == 1 {
        "A Service Worker was".to_string()
    } else {
        format!("{found} Service Workers were")
    };
    let stopped = if launcher_told {
        "kubectl glass has been asked to stop, so the token ends with this run."
    } else {
        "Stop kubectl glass (or the proxy), so the token ends with this run."
    };
    view! {
        <div class="haunted" data-testid="haunted" role="alert">
            <h2>"Kubeglass stopped before it started"</h2>
            <p>{format!("{workers} registered for this address. Kubeglass never registers one, so another program served a page on this port while Kubeglass was not running, and its worker could see this page's requests and the token in them.")}</p>
            <p>{format!("The page removed it. {stopped} Then start it again: the next run gets a new token.")}</p>
        </div>
    }
}

fn main() {
    console_error_panic_hook::set_once();
    if platform::framed() {
        leptos::mount::mount_to_body(Framed);
        return;
    }
    // Nothing asks the cluster anything until the origin is known clean.
    platform::spawn(async {
        match platform::remove_service_workers().await {
            0 => {
                // Preferences come from the launcher's store when it keeps one.
                let path = window().location().pathname().unwrap_or_default();
                let unread = platform::storage::choose(&route::api_base_from(&path)).await;
                if let Err(e) = unread {
                    // One line above the app, drawn without a component of its own.
                    platform::alert_line(
                        "store-unread",
                        &format!(
                            "The preferences kubectl glass keeps for this context did not read ({e}); this tab remembers them in the browser instead."
                        ),
                    );
                }
                leptos::mount::mount_to_body(app::App);
            }
            found => {
                let launcher_told = platform::ask_launcher_to_stop();
                leptos::mount::mount_to_body(move || view! { <Haunted found launcher_told/> });
            }
        }
    });
}
