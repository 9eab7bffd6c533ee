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

/// Asks which labels to change on `target` (`key=value` sets, `key-`
/// removes): None when cancelled, an error naming `target` when the text
/// does not parse.
pub fn ask_label_changes(
    target: &str,
) -> Option<Result<kubeglass_kubectl::actions::ActionKind, String>> {
    let text = prompt(
        &format!("Labels for {target} (key=value to set, key- to remove):"),
        "",
    )?;
    Some(
        crate::rules::labels::parse_label_changes(&text)
            .map(kubeglass_kubectl::actions::ActionKind::Labels)
            .map_err(|e| format!("{target}: {e}")),
    )
}
