//! The theme switch: system, light or dark, remembered.

use leptos::prelude::*;

use crate::prefs;

fn apply_theme(theme: &str) {
    if let Some(root) = document().document_element() {
        let _ = match theme {
            "light" | "dark" => root.set_attribute("data-theme", theme),
            _ => root.remove_attribute("data-theme"),
        };
    }
}

/// System, light or dark; remembered in localStorage.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let saved = prefs::get(prefs::THEME).unwrap_or_else(|| "system".into());
    apply_theme(&saved);
    let theme = RwSignal::new(saved);
    let next = move |_| {
        let t = match theme.get_untracked().as_str() {
            "system" => "light",
            "light" => "dark",
            _ => "system",
        };
        apply_theme(t);
        prefs::set(prefs::THEME, t);
        theme.set(t.to_string());
    };
    view! {
        <button class="theme-toggle" on:click=next data-testid="theme-toggle" title="Theme: system, light or dark">
            {move || match theme.get().as_str() {
                "light" => "☀ light",
                "dark" => "☾ dark",
                _ => "◐ system",
            }}
        </button>
    }
}
