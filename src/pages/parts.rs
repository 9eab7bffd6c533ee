//! Which pages are parts of the wasm of their own, fetched the first time
//! one is opened (issue #30): the first page loads only the overview and
//! what every page shares.
//!
//! `hack/build-app.sh` links the app with relocations kept, and
//! `wasm-split` cuts each function marked here (and all the code only it
//! reaches) into its own `.wasm`, with a small JS module that fetches and
//! instantiates it against the main module's memory and table. Natively (the
//! tests) the marked functions are plain calls.
//!
//! A page of a part is drawn in three steps: its part is asked for
//! (`Parts::want`: by the route, at start before the session file is in),
//! the part arrives and flips its signal, and from then on the page is drawn
//! at once, because the loader's future is ready on its first poll. A part
//! that fails to load says so, with a Retry, and the rest of the app goes
//! on. Once the first page shows live data, the other parts are fetched one
//! after another in the background (`Parts::fetch_rest`), so that a page
//! opened later is drawn at once; none is fetched before.
// The split macro's loaders are statics built with `unsafe` (its contract is
// the JS loader's: one callback per call); nothing else here is unsafe.
#![allow(unsafe_code)]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use leptos::prelude::*;
use leptos::wasm_split::{SplitLoaderError, wasm_split};

use crate::route::Route;

/// A part of the wasm beside the main one, declared in `ALL`'s order (a
/// part's discriminant is its index there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Resource tables (`#/r/…`).
    Resource,
    /// Object pages, with the editor, history, drift and rollouts.
    Object,
    /// Logs.
    Logs,
    /// The API discovery tree.
    Api,
    /// The event stream.
    Events,
    /// The change timeline.
    Changes,
    /// Top and right-sizing.
    Top,
    /// Create from YAML.
    Create,
    /// X-ray.
    Xray,
}

const ALL: [Part; 9] = [
    Part::Resource,
    Part::Object,
    Part::Logs,
    Part::Api,
    Part::Events,
    Part::Changes,
    Part::Top,
    Part::Create,
    Part::Xray,
];

impl Part {
    /// The part a route's page is in, or none for the main module's pages.
    pub fn of(route: &Route) -> Option<Part> {
        Some(match route {
            Route::Overview | Route::Invalid { .. } => return None,
            Route::Resource { .. } => Part::Resource,
            Route::Object { .. } => Part::Object,
            Route::Logs { .. } => Part::Logs,
            Route::Api => Part::Api,
            Route::Events => Part::Events,
            Route::Changes => Part::Changes,
            Route::Top => Part::Top,
            Route::Create => Part::Create,
            Route::Xray => Part::Xray,
        })
    }

    fn index(self) -> usize {
        self as usize
    }

    /// Fetches the part's wasm, once; later calls are answered at once.
    async fn fetch(self) -> Result<(), SplitLoaderError> {
        match self {
            Part::Resource => preload_resource().await,
            Part::Object => preload_object().await,
            Part::Logs => preload_logs().await,
            Part::Api => preload_api().await,
            Part::Events => preload_events().await,
            Part::Changes => preload_changes().await,
            Part::Top => preload_top().await,
            Part::Create => preload_create().await,
            Part::Xray => preload_xray().await,
        }
    }
}

/// Where a part stands in this tab.
#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Absent,
    Fetching,
    Here,
    Failed(String),
}

/// Each part's state, one signal per part: a page waiting for its part
/// tracks only its own.
#[derive(Clone, Copy)]
pub struct Parts {
    states: [RwSignal<State>; ALL.len()],
}

impl Parts {
    pub fn new() -> Self {
        Parts {
            states: std::array::from_fn(|_| RwSignal::new(State::Absent)),
        }
    }

    /// Starts fetching `part` unless it is here or on its way.
    pub fn want(self, part: Part) {
        if matches!(
            self.states[part.index()].get_untracked(),
            State::Absent | State::Failed(_)
        ) {
            let load = self.load(part);
            crate::platform::spawn(async move {
                load.await;
            });
        }
    }

    /// Fetches every part not yet here or on its way, one after another,
    /// in the background; a part that fails is left for its page to retry.
    pub fn fetch_rest(self) {
        crate::platform::spawn(async move {
            for part in ALL {
                if self.states[part.index()].try_get_untracked() == Some(State::Absent)
                    && !self.load(part).await
                {
                    return;
                }
            }
        });
    }

    /// Marks `part` on its way at once, and returns the fetch that records
    /// how it ended: false if the app is gone (a test's owner), so nothing
    /// was recorded.
    fn load(self, part: Part) -> impl Future<Output = bool> {
        let state = self.states[part.index()];
        let _ = state.try_set(State::Fetching);
        async move {
            let done = match part.fetch().await {
                Ok(()) => State::Here,
                Err(e) => State::Failed(e.to_string()),
            };
            state.try_set(done).is_none()
        }
    }

    /// Draws a page of `part` with `open` (a marked function below) once the
    /// part is here; until then a line that says it is on its way, or why it
    /// did not come, with a Retry.
    pub fn show<F>(self, part: Part, open: impl FnOnce() -> F) -> AnyView
    where
        F: Future<Output = Result<AnyView, SplitLoaderError>>,
    {
        let state = self.states[part.index()];
        match state.get() {
            State::Here => match ready(open()) {
                Some(Ok(view)) => view,
                Some(Err(e)) => failed(self, part, e.to_string()),
                // A loaded part's loader answers on its first poll.
                None => failed(self, part, "its code is loaded but did not start".into()),
            },
            State::Failed(why) => failed(self, part, why),
            // The route's part is asked for by `Page`, not here: this runs
            // while rendering and must not write the state it reads.
            State::Absent | State::Fetching => {
                view! { <p class="muted" data-testid="part-loading">"Loading this page…"</p> }
                    .into_any()
            }
        }
    }
}

impl Default for Parts {
    fn default() -> Self {
        Self::new()
    }
}

/// The part did not load: say so, and offer to try again.
fn failed(parts: Parts, part: Part, why: String) -> AnyView {
    view! {
        <section class="panel">
            <p class="error-box" data-testid="part-error" role="alert">
                "This page's code did not load (" {why} "). The server may have stopped, or the app was rebuilt: "
                "retry, or reload the tab."
            </p>
            <button data-testid="part-retry" on:click=move |_| parts.want(part)>"Retry"</button>
        </section>
    }
    .into_any()
}

/// The future's output if it is ready on its first poll.
fn ready<F: Future>(fut: F) -> Option<F::Output> {
    let fut = pin!(fut);
    match fut.poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => Some(out),
        Poll::Pending => None,
    }
}

// The marked functions: each is cut, with what only it reaches, into the
// part of the same name.

#[wasm_split(resource, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_resource))]
pub fn resource(
    resource: String,
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
) -> Result<AnyView, SplitLoaderError> {
    use super::resource::ResourcePage;
    Ok(view! { <ResourcePage resource namespace labels fields/> }.into_any())
}

#[wasm_split(object, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_object))]
pub fn object(
    resource: String,
    namespace: Option<String>,
    name: String,
) -> Result<AnyView, SplitLoaderError> {
    use super::object::ObjectPage;
    Ok(view! { <ObjectPage resource namespace name/> }.into_any())
}

#[wasm_split(logs, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_logs))]
pub fn logs(
    namespace: String,
    target: crate::route::LogTarget,
) -> Result<AnyView, SplitLoaderError> {
    use super::logs::LogsPage;
    Ok(view! { <LogsPage namespace target/> }.into_any())
}

#[wasm_split(api, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_api))]
pub fn api() -> Result<AnyView, SplitLoaderError> {
    use super::api::ApiTree;
    Ok(view! { <ApiTree/> }.into_any())
}

#[wasm_split(events, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_events))]
pub fn events() -> Result<AnyView, SplitLoaderError> {
    use super::events::EventsPage;
    Ok(view! { <EventsPage/> }.into_any())
}

#[wasm_split(changes, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_changes))]
pub fn changes() -> Result<AnyView, SplitLoaderError> {
    use super::changes::ChangesPage;
    Ok(view! { <ChangesPage/> }.into_any())
}

#[wasm_split(top, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_top))]
pub fn top() -> Result<AnyView, SplitLoaderError> {
    use super::top::TopPage;
    Ok(view! { <TopPage/> }.into_any())
}

#[wasm_split(create, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_create))]
pub fn create() -> Result<AnyView, SplitLoaderError> {
    use super::create::CreatePage;
    Ok(view! { <CreatePage/> }.into_any())
}

#[wasm_split(xray, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_xray))]
pub fn xray() -> Result<AnyView, SplitLoaderError> {
    use super::xray::Xray;
    Ok(view! { <Xray/> }.into_any())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_its_place_in_all() {
        for (i, part) in ALL.iter().enumerate() {
            assert_eq!(part.index(), i, "{part:?} is declared out of ALL's order");
        }
    }
}
