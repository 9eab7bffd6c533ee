//! The header's context: `context · cluster`, and, when the launcher
//! serves more than one, a menu of the kubeconfig's contexts. Picking one
//! follows the launcher's `/glass/open/<i>` (a redirect to that context's
//! app on its own origin, so this page never holds another context's
//! token); a modifier opens it in a new tab, as any link does. The page in
//! front goes along when it makes sense in another cluster (a table, the
//! overview, a named page), not an object that may not be there.

use leptos::prelude::*;

use crate::route::Route;
use crate::rules::session::{Session, SessionLabel, open_path};

/// The session's name in the header, a menu when there are others.
#[component]
pub fn ContextMenu(session: Session, route: ReadSignal<Route>) -> impl IntoView {
    let label = session.label();
    if session.contexts.len() < 2 {
        return view! {
            <span class="session" data-testid="session-context" title="kubeconfig context · cluster">{label}</span>
        }
        .into_any();
    }
    let items = session
        .contexts
        .iter()
        .enumerate()
        .map(|(i, peer)| {
            let name = peer.label();
            if peer.name == session.context {
                return view! {
                    <li class="context-current" aria-current="true" data-testid="context-current">{name}</li>
                }
                .into_any();
            }
            let href = move || {
                let carried = route.with(|r| across_clusters(r).map(Route::href));
                format!("{}{}", open_path(i), carried.unwrap_or_default())
            };
            view! { <li><a href=href data-testid="context-link">{name}</a></li> }.into_any()
        })
        .collect_view();
    view! {
        <details class="session-menu" data-testid="context-menu"
            on:keydown=move |ev| if ev.key() == "Escape" { crate::platform::close_menu(&ev, None) }
            on:focusout=move |ev| crate::platform::close_menu(&ev, Some(&ev))>
            <summary class="session" data-testid="session-context"
                title="kubeconfig context · cluster: open another (with Ctrl or ⌘, in a new tab)">{label}</summary>
            <ul class="session-list">{items}</ul>
        </details>
    }
    .into_any()
}

/// The page to open in another cluster when the person switches context: a
/// table, the overview or a named page go along; one object, its logs or a
/// shell may not be there, so none does.
fn across_clusters(route: &Route) -> Option<&Route> {
    match route {
        Route::Overview
        | Route::Resource { .. }
        | Route::Page(_)
        | Route::Map { focus: None, .. } => Some(route),
        Route::Map { .. }
        | Route::Object { .. }
        | Route::Logs { .. }
        | Route::Exec { .. }
        | Route::Invalid { .. } => None,
    }
}
