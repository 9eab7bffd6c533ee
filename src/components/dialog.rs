//! The browser's own confirm and prompt dialogs: every action is confirmed.

/// Asks `message`; true when the person agrees.
pub fn confirm(message: &str) -> bool {
    leptos::prelude::window()
        .confirm_with_message(message)
        .unwrap_or(false)
}

/// Asks for a line of text; None when cancelled.
pub fn prompt(message: &str, default: &str) -> Option<String> {
    leptos::prelude::window()
        .prompt_with_message_and_default(message, default)
        .ok()
        .flatten()
}
