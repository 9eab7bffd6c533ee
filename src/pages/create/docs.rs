//! The review of each document: what the server would store (its own fields marked), or why it cannot be created (the fields it named, with their line); after Create, what became of each.

use leptos::prelude::*;

use super::state::{CreateState, DocReview, Found};
use crate::components::diff::ReviewTable;

/// Each document's review, or why the text does not read.
#[component]
pub fn DocList(create: CreateState) -> impl IntoView {
    move || {
        create.review.with(|r| match r {
            None => view! { <p class="muted small">"Review shows what each object would be."</p> }.into_any(),
            Some((_, Err(e))) => view! {
                <p class="error-box" data-testid="create-unreadable" role="alert">{format!("The text does not read: {e}")}</p>
            }
            .into_any(),
            Some((text, Ok(docs))) => {
                let stale = create.text.with(|t| t != text);
                view! {
                    {stale.then(|| view! { <p class="muted small" data-testid="create-stale">"The text changed since this review: review again to create."</p> })}
                    <Outcomes create/>
                    <ol class="create-docs">
                        {docs.iter().cloned().map(|d| view! { <DocCard d/> }).collect_view()}
                    </ol>
                }
                .into_any()
            }
        })
    }
}

/// One document: what the server would store, or why not.
#[component]
fn DocCard(d: DocReview) -> impl IntoView {
    let (state, body) = match d.found {
        Found::Asking => ("asking", view! { <p class="muted small">"Asking the server…"</p> }.into_any()),
        Found::WouldCreate(rows) => ("ok", view! {
            <p class="muted small">"Would be created. Fields marked " <span class="badge">"server"</span> " are the server's (defaults, LimitRange, admission)."</p>
            <ReviewTable rows testid="create-fields"/>
        }.into_any()),
        Found::Refused(why, causes) => ("refused", view! {
            <p class="error-box" data-testid="create-refused">{why}</p>
            <ul>
                {causes.into_iter().map(|(field, message, line)| {
                    let at = line.map(|l| format!("line {l}: ")).unwrap_or_default();
                    view! { <li data-testid="create-cause">{format!("{at}{field}: {message}")}</li> }
                }).collect_view()}
            </ul>
        }.into_any()),
        Found::Unreadable(why) => ("unreadable", view! { <p class="error-box" data-testid="create-refused">{why}</p> }.into_any()),
    };
    view! {
        <li data-testid="create-doc" data-state=state>
            <h4>{d.label}</h4>
            {body}
        </li>
    }
}

/// What Create did with each document sent: creating while the page waits
/// for the answers it holds, then created, or why not.
#[component]
fn Outcomes(create: CreateState) -> impl IntoView {
    move || {
        let sent = create.sent.get();
        (!sent.is_empty()).then(|| {
            let waiting = create.creating.pending().get();
            let answers = if waiting { None } else { create.creating.value().get() };
            let rows: Vec<(&'static str, String)> = match answers {
                None => sent.iter().map(|label| ("sending", format!("{label}: creating…"))).collect(),
                Some(answers) => answers
                    .into_iter()
                    .map(|(label, answer)| match answer {
                        Ok(()) => ("created", format!("{label}: created")),
                        Err(r) => ("failed", format!("{label}: {}", r.problem.explain("create it"))),
                    })
                    .collect(),
            };
            view! {
                <ul class="create-outcomes">
                    {rows.into_iter().map(|(state, text)| {
                        view! { <li data-testid="create-outcome" data-state=state>{text}</li> }
                    }).collect_view()}
                </ul>
            }
        })
    }
}
