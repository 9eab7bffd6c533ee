//! A text area's selection, read and set, and bringing an element inside a scrolled box into view: what the editor's search needs of the browser.

use leptos::html::{Div, Textarea};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The text selected in `area`, if any.
pub fn selected_text(area: NodeRef<Textarea>) -> Option<String> {
    let el = area.get_untracked()?;
    let (start, end) = (el.selection_start().ok()??, el.selection_end().ok()??);
    let units: Vec<u16> = el.value().encode_utf16().collect();
    let (start, end) = (start as usize, (end as usize).min(units.len()));
    (start < end).then(|| String::from_utf16_lossy(&units[start..end]))
}

/// Focuses `area` with UTF-16 units `start..end` selected.
pub fn select_range(area: NodeRef<Textarea>, start: u32, end: u32) {
    if let Some(el) = area.get_untracked() {
        let _ = el.focus();
        let _ = el.set_selection_range(start, end);
    }
}

/// Focuses `area`.
pub fn focus_area(area: NodeRef<Textarea>) {
    if let Some(el) = area.get_untracked() {
        let _ = el.focus();
    }
}

/// Scrolls `scroller` so the first element inside it that matches
/// `selector` is in view, with a line's margin: as little as it takes up
/// or down; across, back to the left edge when the element fits there (the
/// line numbers stay in view), else with the element in the middle.
pub fn reveal(scroller: NodeRef<Div>, selector: &str) {
    let Some(boxed) = scroller.get_untracked() else {
        return;
    };
    let Some(found) = boxed.query_selector(selector).ok().flatten() else {
        return;
    };
    let (outer, inner) = (
        boxed.get_bounding_client_rect(),
        found.get_bounding_client_rect(),
    );
    let (top, left) = (
        f64::from(boxed.scroll_top()),
        f64::from(boxed.scroll_left()),
    );
    let (width, height) = (
        f64::from(boxed.client_width()),
        f64::from(boxed.client_height()),
    );
    // The element's place in the scrolled content.
    let y = inner.top() - outer.top() + top;
    let x = inner.left() - outer.left() + left;
    let margin = 2.0 * inner.height();
    if y < top + margin {
        boxed.set_scroll_top((y - margin).max(0.0) as i32);
    } else if y + inner.height() > top + height - margin {
        boxed.set_scroll_top((y + inner.height() - height + margin) as i32);
    }
    let across = if x + inner.width() < width - margin {
        0.0
    } else {
        x - width / 2.0
    };
    boxed.set_scroll_left(across.max(0.0) as i32);
}

/// Focuses the element whose HTML id is `id` (and so scrolls it into
/// view); false when there is none (or it is not an HTML element).
pub fn focus_by_id(id: &str) -> bool {
    match document()
        .get_element_by_id(id)
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
    {
        Some(el) => {
            let _ = el.focus();
            true
        }
        None => false,
    }
}

/// Scrolls `scroller` so its content's point (`left`, `top`) is at its
/// top left corner (as near as the content allows).
pub fn scroll_to(scroller: NodeRef<Div>, left: f64, top: f64) {
    if let Some(el) = scroller.get_untracked() {
        el.set_scroll_left(left.max(0.0) as i32);
        el.set_scroll_top(top.max(0.0) as i32);
    }
}

/// The scrolled box's left, top, width and height, from its `scroll` event.
pub fn scrolled_box(ev: &leptos::ev::Event) -> (f64, f64, f64, f64) {
    let el = event_target::<web_sys::HtmlElement>(ev);
    (
        f64::from(el.scroll_left()),
        f64::from(el.scroll_top()),
        f64::from(el.client_width()),
        f64::from(el.client_height()),
    )
}
