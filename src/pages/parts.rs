//! Which pages are parts of the wasm of their own, fetched the first time
//! one is opened (issue #30): the first page loads only the overview and
//! what every page shares.
//!
//! `hack/build-app.sh` links the app with relocations kept, and
//! `wasm-split` cuts each split point (one per page, made by the table in
//! `pages/mod.rs`) and all the code only it reaches into its own `.wasm`,
//! with a small JS module that fetches and instantiates it against the main
//! module's memory and table. Natively (the tests) they are plain calls.
//!
//! A page of a part is drawn in three steps: its part is asked for
//! (`Parts::want`: by the route, at start before the session file is in),
//! the part arrives and flips its signal, and from then on the page is drawn
//! at once, because the loader's future is ready on its first poll. A part
//! that fails to load says so, with a Retry, and the rest of the app goes
//! on. Once the first page shows live data, the other parts are fetched one
//! after another in the background (`Parts::fetch_rest`), so that a page
//! opened later is drawn at once; none is fetched before.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;

use super::{ALL, Part};

impl Part {
    fn index(self) -> usize {
        self as usize
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
            for &part in ALL {
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

    /// Draws a page of `part` with `open` (its split point) once the
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::Route;

    #[test]
    fn a_part_is_its_place_in_all() {
        for (i, part) in ALL.iter().enumerate() {
            assert_eq!(part.index(), i, "{part:?} is declared out of ALL's order");
        }
    }

    #[test]
    fn every_named_page_is_its_own_route_and_part() {
        assert_eq!(
            super::super::NAMED.len() + super::super::ROUTED.len(),
            ALL.len()
        );
        for name in super::super::NAMED {
            let route = Route::parse(&Route::page(name).href());
            assert_eq!(route, Route::page(name));
            let part = Part::of(&route).expect("a part");
            assert_eq!(
                ALL.iter().filter(|p| Part::of(&route) == Some(**p)).count(),
                1,
                "{part:?}"
            );
        }
        assert_eq!(Part::of(&Route::page("no-such-page")), None);
        assert_eq!(Part::of(&Route::Overview), None);
    }
}
