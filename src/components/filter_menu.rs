//! One filter menu, the event stream's and the changes page's: "All …" and the values the rows hold now, a chosen value kept listed when its rows have gone.

use leptos::prelude::*;

/// A `<select>` labelled `label` (and `data-testid` `testid`): first "All
/// <label in lower case>" (the empty value, no filter), then `options`;
/// `current` is the value chosen, listed even when no row holds it any
/// more, and `on_pick` hears a new choice.
#[component]
pub fn FilterMenu(
    label: &'static str,
    testid: &'static str,
    #[prop(into)] current: Signal<String>,
    #[prop(into)] options: Signal<Vec<String>>,
    #[prop(into)] on_pick: Callback<String>,
) -> impl IntoView {
    view! {
        <select aria-label=label data-testid=testid
            prop:value=move || current.get()
            on:change=move |ev| on_pick.run(event_target_value(&ev))>
            <option value="">{format!("All {}", label.to_lowercase())}</option>
            {move || {
                let current = current.get();
                let mut options = options.get();
                // Keep a chosen value listed even when its rows have gone.
                if !current.is_empty() && !options.contains(&current) {
                    options.push(current.clone());
                }
                options.into_iter().map(|o| {
                    let selected = o == current;
                    view! { <option value=o.clone() selected=selected>{o.clone()}</option> }
                }).collect_view()
            }}
        </select>
    }
}
