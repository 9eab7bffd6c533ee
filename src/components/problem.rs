//! A failure shown in words: what could not be done and why, with the server's own text beside it.

use leptos::prelude::*;

use crate::rules::problem::Problem;

/// `doing` (`list nodes cluster-wide`) failed with `problem`.
#[component]
pub fn ProblemBox(
    problem: Problem,
    doing: String,
    #[prop(default = "problem")] testid: &'static str,
) -> impl IntoView {
    view! {
        <div class="error-box" data-testid=testid data-problem=problem.word() role="alert">
            {problem.explain(&doing)}
            <span class="banner-detail">{problem.detail().to_string()}</span>
        </div>
    }
}
