//! Kubeglass: a Kubernetes dashboard that is only a web page.
//!
//! This file only mounts the app; see `app.rs`.

mod app;
mod components;
mod pages;
mod route;
mod state;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
