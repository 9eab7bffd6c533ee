//! The X-ray page's parts about what outlives the tab: how long a hidden
//! tab keeps watching, and the tables saved for the next visit.

use leptos::prelude::*;

use super::KubeValue;
use crate::rules::time::{Seconds, short_age};

/// How long a hidden tab waits before it stops watching (kube::quiet),
/// set here and remembered with the preferences.
#[component]
pub(super) fn XrayQuiet() -> impl IntoView {
    let quiet_after = RwSignal::new(
        crate::prefs::get(crate::prefs::QUIET_AFTER)
            .unwrap_or_else(|| crate::prefs::QUIET_AFTER_DEFAULT.to_string()),
    );
    let quiet_error = RwSignal::new(None::<String>);
    let set_quiet = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        match value.trim().parse::<u64>() {
            Ok(secs) => {
                crate::prefs::set(crate::prefs::QUIET_AFTER, &secs.to_string());
                quiet_after.set(secs.to_string());
                quiet_error.set(None);
            }
            Err(_) => quiet_error.set(Some(format!(
                "{value:?} is not a number of seconds; still {}",
                quiet_after.get_untracked()
            ))),
        }
    };
    view! {
        <h3>"Hidden tab"</h3>
        <p class="small">
            <label>
                "Stop watching when the tab has been hidden for "
                <input type="number" min="0" class="narrow" data-testid="xray-quiet-after"
                    prop:value=move || quiet_after.get() on:change=set_quiet/>
                " s (0: never). Shown again, each watch resumes from the version it holds."
            </label>
        </p>
        {move || quiet_error.get().map(|e| view! { <p class="error-text small" role="alert">{e}</p> })}
    }
}

/// The tables saved for the next visit: where, which, when, the last
/// failure, and the button that forgets them all.
#[component]
pub(super) fn XraySaved(kube: KubeValue, now: RwSignal<Seconds>) -> impl IntoView {
    let stats = kube.with_value(|k| k.saved().stats());
    let forgot = RwSignal::new(None::<Result<(), String>>);
    let summary = move || {
        stats.with(|s| match s.place {
            None => "Nothing is saved in this tab.".to_string(),
            Some(place) => format!(
                "Kept in {place}. This visit: {} drawn from a saved table, {} saved (last {:.1} MiB). Secrets are never saved.",
                s.restored,
                s.saves,
                s.last_bytes as f64 / 1_048_576.0
            ),
        })
    };
    let rows = move || {
        now.track();
        let at = now.get_untracked();
        stats.with(|s| {
            s.kept
                .iter()
                .map(|(key, (path, saved))| {
                    let when = saved.map_or("not yet".to_string(), |t| {
                        format!("{} ago", short_age(at - t))
                    });
                    view! {
                        <tr data-testid="xray-saved-table" data-key=key.clone()>
                            <td><code>{path.clone()}</code></td><td>{when}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let error = move || {
        stats.with(|s| s.last_error.clone()).map(|e| view! {
            <p class="error-text small" data-testid="xray-saved-error" role="alert">{e}</p>
        })
    };
    let forget = move |_| {
        let saved = kube.with_value(|k| k.saved().clone());
        crate::platform::spawn(async move {
            let _ = forgot.try_set(Some(saved.forget().await));
        });
    };
    let outcome = move || {
        forgot.get().map(|r| match r {
            Ok(()) => view! { <p class="small" data-testid="xray-forgot" role="status">"Forgotten: every table starts with a list next time (those open now are saved again as they change)."</p> }.into_any(),
            Err(e) => view! { <p class="error-text small" data-testid="xray-forgot" role="alert">{format!("Not forgotten: {e}")}</p> }.into_any(),
        })
    };
    view! {
        <h3>"Saved tables"</h3>
        <p data-testid="xray-saved">{summary}</p>
        {error}
        <table class="grid compact"><tbody>{rows}</tbody></table>
        <button type="button" data-testid="xray-forget" disabled=move || stats.with(|s| s.place.is_none()) on:click=forget>
            "Forget this cluster's data"
        </button>
        {outcome}
    }
}

