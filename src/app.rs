//! The root component: starts the state once, provides it as context, and
//! shows the view the URL fragment names.

use std::time::Duration;

use kubeglass_client::clock::PassiveClock;
use kubeglass_web::WebClock;
use leptos::prelude::*;

use crate::components::banner::{ConnectionBanner, UnprotectedBanner};
use crate::components::palette::Palette;
use crate::pages::api::ApiTree;
use crate::pages::object::ObjectPage;
use crate::pages::overview::Overview;
use crate::pages::resource::ResourcePage;
use crate::pages::workloads::EventStream;
use crate::pages::xray::Xray;
use crate::route::{Route, use_route};
use crate::state::session::SessionState;
use crate::state::{ClusterState, Now, provide_kube};

const THEME_KEY: &str = "kubeglass.theme";

fn apply_theme(theme: &str) {
    if let Some(root) = document().document_element() {
        let _ = match theme {
            "light" | "dark" => root.set_attribute("data-theme", theme),
            _ => root.remove_attribute("data-theme"),
        };
    }
}

/// System, light or dark; remembered in localStorage.
#[component]
fn ThemeToggle() -> impl IntoView {
    let storage = window().local_storage().ok().flatten();
    let saved = storage
        .as_ref()
        .and_then(|s| s.get_item(THEME_KEY).ok().flatten())
        .unwrap_or_else(|| "system".into());
    apply_theme(&saved);
    let theme = RwSignal::new(saved);
    let next = move |_| {
        let t = match theme.get_untracked().as_str() {
            "system" => "light",
            "light" => "dark",
            _ => "system",
        };
        apply_theme(t);
        if let Some(s) = window().local_storage().ok().flatten() {
            let _ = s.set_item(THEME_KEY, t);
        }
        theme.set(t.to_string());
    };
    view! {
        <button class="theme-toggle" on:click=next data-testid="theme-toggle" title="Theme: system, light or dark">
            {move || match theme.get().as_str() {
                "light" => "☀ light",
                "dark" => "☾ dark",
                _ => "◐ system",
            }}
        </button>
    }
}

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    let started = ClusterState::start();
    provide_context(started.cluster);
    provide_kube(started.kube);
    let session = SessionState::start();
    provide_context(session);
    let now = RwSignal::new(WebClock.now().as_secs_f64());
    set_interval(
        move || now.set(WebClock.now().as_secs_f64()),
        Duration::from_secs(1),
    );
    provide_context(Now(now));
    let route = use_route();
    let nav = move |target: Route, label: &'static str, testid: &'static str| {
        let href = target.href();
        let active = move || {
            let r = route.get();
            std::mem::discriminant(&r) == std::mem::discriminant(&target)
                && (!matches!(r, Route::Resource { .. }) || r == target)
        };
        view! {
            <a href=href class:active=active data-testid=testid>{label}</a>
        }
    };
    view! {
        <header class="topbar">
            <a class="brand" href="#/">
                <span class="brand-mark">"◈"</span>
                " Kubeglass"
            </a>
            <nav class="nav">
                {nav(Route::Overview, "Overview", "nav-overview")}
                {nav(Route::resource("pods", None), "Pods", "nav-pods")}
                {nav(Route::resource("deployments", None), "Deployments", "nav-deployments")}
                {nav(Route::resource("nodes", None), "Nodes", "nav-nodes")}
                {nav(Route::Events, "Events", "nav-events")}
                {nav(Route::Api, "API", "nav-api")}
                {nav(Route::Xray, "X-ray", "nav-xray")}
            </nav>
            <span class="topbar-sub">"type " <kbd>":"</kbd> " to jump · " <kbd>"/"</kbd> " to filter"</span>
            {move || session.session.get().map(|s| view! {
                <span class="session" data-testid="session-context" title="kubeconfig context · cluster">{s.label()}</span>
                {s.read_only.then(|| view! {
                    <span class="badge session-ro" data-testid="read-only-badge" title="The proxy refuses every write">"read-only"</span>
                })}
            })}
            {move || session.error.get().map(|e| view! {
                <span class="badge status-bad" data-testid="session-error" title=e>"session file unreadable"</span>
            })}
            <ThemeToggle/>
        </header>
        <UnprotectedBanner/>
        <ConnectionBanner/>
        <Palette/>
        <main class="content">
            {move || if !session.loaded.get() {
                view! { <p class="muted" data-testid="session-loading">"Starting…"</p> }.into_any()
            } else { match route.get() {
                Route::Overview => view! { <Overview/> }.into_any(),
                Route::Resource { resource, namespace, labels, fields } => view! {
                    <ResourcePage resource namespace labels fields/>
                }
                .into_any(),
                Route::Object { resource, namespace, name } => view! {
                    <ObjectPage resource namespace name/>
                }
                .into_any(),
                Route::Api => view! { <ApiTree/> }.into_any(),
                Route::Events => view! { <EventStream/> }.into_any(),
                Route::Xray => view! { <Xray/> }.into_any(),
                Route::Invalid { reason } => view! {
                    <section class="panel">
                        <p class="error-box" data-testid="route-error" role="alert">
                            "This link cannot be opened: " {reason} "."
                        </p>
                    </section>
                }
                .into_any(),
            }}}
        </main>
    }
}
