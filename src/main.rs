//! Kubeglass, a Kubernetes dashboard that is only a web page: this file mounts the app, or inside another page's frame one line saying why not.
//!
//! The layers: `pages` → `components` → `actions` → `kube` → `model`
//! (`route` and `prefs` at the bottom); nothing imports back up.

mod actions;
mod app;
mod components;
mod kube;
mod model;
mod pages;
mod platform;
mod prefs;
mod route;

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

fn main() {
    console_error_panic_hook::set_once();
    if platform::framed() {
        leptos::mount::mount_to_body(Framed);
    } else {
        leptos::mount::mount_to_body(app::App);
    }
}
