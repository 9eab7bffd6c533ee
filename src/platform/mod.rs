//! The browser's glue, in one room: spawning, the clipboard, downloads, storage, the local clock's words, regular expressions, element reads, foreign Service Workers and the page's own counters.
//!
//! Nothing else in `src/` names `web_sys`, `js_sys` or `wasm_bindgen`
//! (the kube room reaches the browser through `kubeglass_web`, the client's
//! browser side). What is here is small on purpose: each function does one
//! browser call and says what happens when the browser refuses.
//!
//! # The glue
//!
//! The browser's glue in one room: `spawn`, the clipboard
//! (`copy_text`), a file download (`download_text`), the local time of day,
//! the key and scroll targets, the framing check, foreign Service Workers
//! (`workers`: removed, and the launcher asked to stop), the store (`storage`: the launcher's `ServedStorage` when it serves one, else `LocalStorage`, chosen once before the app mounts and shared with the discovery cache)
//! and the browser's `RegExp` (`regexp`: a test, or every match as byte
//! ranges). Nothing else in `src/` names `web_sys`, `js_sys` or
//! `wasm_bindgen`; the kube room reaches the browser through `kubeglass_web`.
//! `make test` greps for both rules.

mod regexp;
pub mod storage;
mod terminal;
mod text_area;
mod workers;

pub use kubeglass_web::{frame_queue_stats, spawn, wasm_memory_bytes};
pub use regexp::{finder, regex};
pub use terminal::{cells_fit, page_selection, pasted};
pub use text_area::{
    focus_area, focus_by_id, reveal, scroll_to, scrolled_box, select_range, selected_text,
};
pub use workers::{ask_launcher_to_stop, remove_service_workers};

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// An element of the page, as the browser hands it to event handlers.
pub type Element = web_sys::HtmlElement;

/// Adds one line of `text` (an alert, test id `test_id`) at the top of
/// the page, outside the app; nothing happens where the browser refuses.
pub fn alert_line(test_id: &str, text: &str) {
    let Ok(p) = document().create_element("p") else {
        return;
    };
    let _ = p.set_attribute("role", "alert");
    let _ = p.set_attribute("class", test_id);
    let _ = p.set_attribute("data-testid", test_id);
    p.set_text_content(Some(text));
    if let Some(body) = document().body() {
        let _ = body.prepend_with_node_1(&p);
    }
}

/// Puts `text` on the clipboard; a browser that refuses (no permission, an
/// insecure context) leaves the clipboard as it was.
pub fn copy_text(text: &str) {
    let _ = window().navigator().clipboard().write_text(text);
}

/// Saves `text` as the file `name` (UTF-8 plain text) through a temporary
/// object URL, revoked at once; nothing happens where the browser refuses.
pub fn download_text(name: &str, text: &str) {
    let parts = js_sys::Array::of1(&text.into());
    let bag = web_sys::BlobPropertyBag::new();
    bag.set_type("text/plain;charset=utf-8");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &bag) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Some(a) = document()
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Runs `f` once the next frame has been painted: in a task of its own
/// queued from that frame's `requestAnimationFrame`, so what was drawn
/// before it is on screen first. A hidden tab draws no frames, so there
/// `f` runs in the next task instead of waiting for the tab to be shown.
pub fn after_paint(f: impl FnOnce() + 'static) {
    if document().hidden() {
        set_timeout(f, std::time::Duration::ZERO);
    } else {
        request_animation_frame(move || set_timeout(f, std::time::Duration::ZERO));
    }
}

/// Calls `f(true)` each time the tab is hidden (another tab in front, the
/// window minimised, the page being left) and `f(false)` each time it is
/// shown again, for the app's life.
pub fn on_visibility(f: impl Fn(bool) + 'static) {
    let listener = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
        f(document().hidden());
    });
    let _ = document().add_event_listener_with_callback(
        "visibilitychange",
        wasm_bindgen::JsCast::unchecked_ref(listener.as_ref()),
    );
    // The app's life: the listener is never removed.
    listener.forget();
}

/// Closes the `<details>` menu an event was heard on (its
/// `current_target`): on Escape, or when `focusout` moved the focus out of
/// it (a click elsewhere, Tab past its last link), as a menu does.
pub fn close_menu(ev: &leptos::ev::Event, focus_out: Option<&leptos::ev::FocusEvent>) {
    use wasm_bindgen::JsCast;
    let Some(menu) = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    if let Some(f) = focus_out {
        let to = f
            .related_target()
            .and_then(|t| t.dyn_into::<web_sys::Node>().ok());
        if to.is_some() && menu.contains(to.as_ref()) {
            return;
        }
    }
    let _ = menu.remove_attribute("open");
}

/// Sets the page's title (the tab's name).
pub fn set_title(title: &str) {
    document().set_title(title);
}

/// `secs` since the epoch as this browser's local time of day (`14:03:07`).
pub fn local_time(secs: f64) -> String {
    js_sys::Date::new(&(secs * 1000.0).into())
        .to_locale_time_string("en-GB")
        .into()
}

/// True when `ev` went to a text field or a menu (INPUT, SELECT, TEXTAREA).
pub fn to_text_field(ev: &leptos::ev::KeyboardEvent) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
}

/// The scrolled element's top and visible height, from its `scroll` event.
pub fn scrolled(ev: &leptos::ev::Event) -> (f64, f64) {
    let el = event_target::<Element>(ev);
    (f64::from(el.scroll_top()), f64::from(el.client_height()))
}

/// True when the page is not the top-level document: another page frames
/// it (and could trick a click on Delete). A cross-origin `top` that cannot
/// be read counts as framed.
pub fn framed() -> bool {
    let Some(w) = web_sys::window() else {
        return false;
    };
    match w.top() {
        Ok(Some(top)) => wasm_bindgen::JsValue::from(top) != wasm_bindgen::JsValue::from(w),
        _ => true,
    }
}

/// Tab in a text area indents: two spaces go in at the cursor (replacing a
/// selection) instead of the focus moving on. Returns the area's new text,
/// or None when the key was not a plain Tab or the target not a text area.
pub fn indent_on_tab(ev: &leptos::ev::KeyboardEvent) -> Option<String> {
    if ev.key() != "Tab" || ev.shift_key() || ev.ctrl_key() || ev.alt_key() || ev.meta_key() {
        return None;
    }
    let area = ev
        .target()?
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .ok()?;
    ev.prevent_default();
    let start = area.selection_start().ok().flatten()?;
    let end = area.selection_end().ok().flatten()?;
    area.set_range_text_with_start_and_end_and_mode("  ", start, end, "end")
        .ok()?;
    Some(area.value())
}

/// The text of the files dropped by `ev` (its default, opening them, is
/// prevented), joined as YAML documents, handed to `done` once read; a file
/// that cannot be read as text is named instead.
pub fn dropped_text(
    ev: &leptos::ev::DragEvent,
    done: impl FnOnce(Result<String, String>) + 'static,
) {
    ev.prevent_default();
    let Some(files) = ev.data_transfer().and_then(|d| d.files()) else {
        return;
    };
    let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
    if files.is_empty() {
        return;
    }
    spawn(async move {
        let mut texts = Vec::new();
        for f in files {
            match wasm_bindgen_futures::JsFuture::from(f.text()).await {
                Ok(t) => texts.push(t.as_string().unwrap_or_default()),
                Err(_) => return done(Err(format!("{} could not be read as text", f.name()))),
            }
        }
        done(Ok(texts.join("\n---\n")));
    });
}
