//! The banner that says what the last action came to.

use leptos::prelude::*;

use crate::actions::{Actions, Outcome};

/// "Scaled shop/web to 3"; or what could not be done, why in words of its
/// kind (`data-problem`: forbidden, not-found, unreachable, invalid, failed),
/// and the server's own message; or a mistake in what was typed.
#[component]
pub fn ActionOutcome() -> impl IntoView {
    let actions = expect_context::<Actions>();
    move || {
        actions.last.get().map(|r| {
            let text = r.text();
            match r {
                Outcome::Done(_) => view! {
                    <div class="action-ok" data-testid="action-result" role="status">{text}</div>
                }
                .into_any(),
                Outcome::Mistake(_) => view! {
                    <div class="action-err" data-testid="action-result" data-problem="mistake" role="alert">{text}</div>
                }
                .into_any(),
                Outcome::Failed { problem, .. } => view! {
                    <div class="action-err" data-testid="action-result" data-problem=problem.word() role="alert">
                        {text}
                        " "
                        <span class="muted small" data-testid="action-detail">{problem.detail().to_string()}</span>
                    </div>
                }
                .into_any(),
            }
        })
    }
}
