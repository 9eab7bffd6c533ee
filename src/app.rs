//! The root component: starts the app-wide state once, provides it as context, and shows the view the URL fragment names.

use leptos::prelude::*;

use crate::actions::Actions;
use crate::components::banner::{ConnectionBanner, UnprotectedBanner};
use crate::components::contexts::ContextMenu;
use crate::components::namespace::NamespacePicker;
use crate::components::palette::Palette;
use crate::components::theme::ThemeToggle;
use crate::kube::start::start;
use crate::kube::stores::cluster::ClusterState;
use crate::kube::stores::session::SessionState;
use crate::kube::{provide_kube, use_kube};
use crate::pages::overview::Overview;
use crate::pages::parts::Parts;
use crate::pages::{self, Guard, NAV, NavEntry, Part};
use crate::prefs;
use crate::route::{Route, use_route};
use crate::rules::namespaces::initial_namespace;

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    let started = start(prefs::store(), prefs::served());
    let kube = started.kube.clone();
    // A tab hidden (or being left) saves its tables now, for a next visit
    // that may be a reload or a browser restart; hidden a while, it stops
    // watching (kube::quiet).
    let on_tab = kube.clone();
    crate::platform::on_visibility(move |hidden| {
        if hidden {
            on_tab.tab_hidden(prefs::quiet_after());
        } else {
            on_tab.tab_shown();
        }
    });
    provide_kube(started.kube);
    let remembered = prefs::get(prefs::NAMESPACE);
    let cluster = ClusterState::start(
        &kube,
        started.reconnect,
        initial_namespace(remembered.as_deref(), None),
    );
    provide_context(cluster);
    // The launcher's context namespace, unless the person chose one before:
    // decided when the session file is read, before any page is drawn.
    let session = kube.read_session(move |s| {
        let context = s.and_then(|s| s.namespace.as_deref());
        let ns = initial_namespace(remembered.as_deref(), context);
        if cluster.namespace.get_untracked() != ns {
            cluster.namespace.set(ns);
        }
    });
    provide_context(session);
    // Two tabs of two clusters are never confused, in the tab strip either.
    Effect::new(move || {
        crate::platform::set_title(
            &session
                .session
                .with(|s| crate::rules::session::title(s.as_ref())),
        );
    });
    provide_context(Actions::start(&kube));
    provide_context(crate::kube::stores::versions::VersionStore::new());
    provide_context(crate::kube::stores::changes::ChangeStore::new());
    let route = use_route();
    provide_context(Parts::new());
    view! {
        <TopBar cluster session route/>
        <UnprotectedBanner/>
        <ConnectionBanner/>
        <Palette/>
        <main class="content">
            <Page session route/>
        </main>
    }
}

/// One link of the top bar: its route in the chosen namespace, marked
/// active while the route is the same kind of page (the same resource).
#[component]
fn NavLink(
    cluster: ClusterState,
    route: ReadSignal<Route>,
    target: fn(Option<&str>) -> Route,
    label: &'static str,
    testid: &'static str,
) -> impl IntoView {
    let href = move || target(cluster.namespace.get().as_deref()).href();
    let active = move || {
        let (r, t) = (route.get(), target(None));
        match (&r, &t) {
            (Route::Resource { resource: a, .. }, Route::Resource { resource: b, .. }) => a == b,
            (Route::Page(a), Route::Page(b)) => a == b,
            _ => std::mem::discriminant(&r) == std::mem::discriminant(&t),
        }
    };
    view! { <a href=href class:active=active data-testid=testid>{label}</a> }
}

/// A page's link in the top bar, from its entry in the pages' table.
#[component]
fn PageLink(route: ReadSignal<Route>, entry: NavEntry) -> impl IntoView {
    let active = move || matches!(route.get(), Route::Page(n) if n == entry.name);
    view! {
        <a href=Route::page(entry.name).href() class:active=active data-testid=entry.testid>{entry.label}</a>
    }
}

/// A page's link shown only when the person may create something in the
/// namespace (a rules review, asked again when the namespace changes).
#[component]
fn CreateLink(cluster: ClusterState, route: ReadSignal<Route>, entry: NavEntry) -> impl IntoView {
    let kube = StoredValue::new_local(crate::kube::use_kube());
    let may = RwSignal::new(None);
    Effect::new(move |_| {
        let ns = cluster.namespace.get().unwrap_or_else(|| "default".into());
        let kube = kube.get_value();
        crate::platform::spawn(async move {
            let _ = may.try_set(Some(
                crate::kube::requests::access::may_create(&kube, &ns).await,
            ));
        });
    });
    move || match may.get() {
        Some(true) => view! { <PageLink route entry/> }.into_any(),
        // Asked, and no: a mark a test can wait for.
        Some(false) => view! { <span hidden data-testid="create-denied"></span> }.into_any(),
        None => ().into_any(),
    }
}

/// The top bar: the brand, the pages, the namespace, the session and the theme.
#[component]
fn TopBar(cluster: ClusterState, session: SessionState, route: ReadSignal<Route>) -> impl IntoView {
    view! {
        <header class="topbar">
            <a class="brand" href="#/">
                <span class="brand-mark">"◈"</span>
                " Kubeglass"
            </a>
            <nav class="nav">
                <NavLink cluster route target=|_| Route::Overview label="Overview" testid="nav-overview"/>
                <NavLink cluster route target=|ns| Route::resource("pods", ns) label="Pods" testid="nav-pods"/>
                <NavLink cluster route target=|ns| Route::resource("deployments", ns) label="Deployments" testid="nav-deployments"/>
                <NavLink cluster route target=|_| Route::resource("nodes", None) label="Nodes" testid="nav-nodes"/>
                <NavLink cluster route target=|_| Route::Map { focus: None, depth: crate::route::map::DEFAULT_DEPTH } label="Map" testid="nav-map"/>
                {NAV.iter().map(|entry| match entry.guard {
                    Guard::Always => view! { <PageLink route entry=*entry/> }.into_any(),
                    Guard::MayCreate => view! { <CreateLink cluster route entry=*entry/> }.into_any(),
                    Guard::Launcher => {
                        let entry = *entry;
                        (move || (session.loaded.get() && session.may_forward()).then(|| view! { <PageLink route entry/> })).into_any()
                    }
                }).collect_view()}
            </nav>
            <NamespacePicker/>
            <span class="topbar-sub">"type " <kbd>":"</kbd> " to jump · " <kbd>"/"</kbd> " to filter"</span>
            {move || session.session.get().map(|s| view! {
                {s.read_only.then(|| view! {
                    <span class="badge session-ro" data-testid="read-only-badge" title="The proxy refuses every write">"read-only"</span>
                })}
                <ContextMenu session=s route/>
            })}
            {move || session.error.get().map(|e| view! {
                <span class="badge status-bad" data-testid="session-error" title=e>"session file unreadable"</span>
            })}
            <ThemeToggle/>
        </header>
    }
}

/// The page the URL names, once the session file is read ("Starting…" before).
/// Every page but the overview is a part of the wasm of its own
/// (`pages::parts`): the route's part is asked for at once, while the session
/// file is still on its way, and the others once the server's version (the
/// first live data) is on screen and the page's informers have their first
/// lists in.
#[component]
fn Page(session: SessionState, route: ReadSignal<Route>) -> impl IntoView {
    // The page to draw: a log view's options change it in place.
    let page = Memo::new(move |_| route.get().drawn());
    let parts = expect_context::<Parts>();
    Effect::new(move || {
        if let Some(part) = Part::of(&page.get()) {
            parts.want(part);
        }
    });
    let cluster = expect_context::<ClusterState>();
    let kube = use_kube();
    Effect::new(move |started: Option<bool>| {
        if started == Some(true) {
            return true;
        }
        if !session.loaded.get() || cluster.version.get().is_none() {
            return false;
        }
        // Once the page in front has its first lists in (a deep link to
        // 15,000 events pages through them for seconds), so the parts do
        // not share the connections and the main thread with them.
        kube.when_settled(move || parts.fetch_rest());
        true
    });
    view! {
        {move || if !session.loaded.get() {
            view! { <p class="muted" data-testid="session-loading">"Starting…"</p> }.into_any()
        } else { match page.get() {
            Route::Overview => view! { <Overview/> }.into_any(),
            Route::Invalid { reason } => invalid(&reason),
            route => pages::show(parts, route.clone()).unwrap_or_else(|| {
                invalid(&format!("there is no page “{}”; the pages are {}", route.href(), pages::NAMED.join(", ")))
            }),
        }}}
    }
}

/// What a link that cannot be opened shows instead of a page.
fn invalid(reason: &str) -> AnyView {
    let reason = reason.to_string();
    view! {
        <section class="panel">
            <p class="error-box" data-testid="route-error" role="alert">
                "This link cannot be opened: " {reason} "."
            </p>
        </section>
    }
    .into_any()
}
