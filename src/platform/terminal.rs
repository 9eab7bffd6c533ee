//! What the shell's terminal reads of the browser: how many character
//! cells fit, the text of a paste, the page's selection.

use leptos::html::{Div, Span};
use leptos::prelude::*;

/// The (rows, cols) of `cell`-sized cells that fit in `area`; None before
/// both are laid out.
pub fn cells_fit(area: NodeRef<Div>, cell: NodeRef<Span>) -> Option<(u16, u16)> {
    let area = area.get_untracked()?.get_bounding_client_rect();
    let cell = cell.get_untracked()?.get_bounding_client_rect();
    if cell.width() <= 0.0 || cell.height() <= 0.0 || area.width() <= 0.0 {
        return None;
    }
    let fit = |space: f64, size: f64| (space / size).floor().clamp(1.0, 1000.0) as u16;
    Some((
        fit(area.height(), cell.height()),
        fit(area.width(), cell.width()),
    ))
}

/// The plain text a paste carries.
pub fn pasted(ev: &leptos::ev::ClipboardEvent) -> Option<String> {
    ev.clipboard_data()?.get_data("text/plain").ok()
}

/// The text selected on the page (empty when none).
pub fn page_selection() -> String {
    window()
        .get_selection()
        .ok()
        .flatten()
        .and_then(|s| s.to_string().as_string())
        .unwrap_or_default()
}
