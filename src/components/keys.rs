//! Keyboard shortcuts: one window-wide listener per component, removed with it, and the "is the person typing" check they all share.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

/// True when the key went to a text field or menu (shortcuts then stay out
/// of the way).
pub fn typing(ev: &KeyboardEvent) -> bool {
    crate::platform::to_text_field(ev)
}

/// True when a modifier (Ctrl, Meta, Alt) is held: the browser's shortcut, not ours.
pub fn modified(ev: &KeyboardEvent) -> bool {
    ev.ctrl_key() || ev.meta_key() || ev.alt_key()
}

/// Calls `handler` for every key pressed in the window while the calling
/// component lives.
pub fn on_keys(handler: impl Fn(KeyboardEvent) + 'static) {
    let keys = window_event_listener(leptos::ev::keydown, handler);
    on_cleanup(move || keys.remove());
}
