//! The banner that says what the last action came to.

use leptos::prelude::*;

use crate::actions::Actions;

/// "Scaled shop/web to 3", or the error, as text.
#[component]
pub fn ActionOutcome() -> impl IntoView {
    let actions = expect_context::<Actions>();
    move || {
        actions.last.get().map(|r| match r {
            Ok(m) => {
                view! { <div class="action-ok" data-testid="action-result" role="status">{m}</div> }
                    .into_any()
            }
            Err(e) => {
                view! { <div class="action-err" data-testid="action-result" role="alert">{e}</div> }
                    .into_any()
            }
        })
    }
}
