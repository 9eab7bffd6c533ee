//! This browser's localStorage, for the few preferences the app remembers; off (private mode, a full quota) means nothing is remembered and nothing fails.

use leptos::prelude::window;

fn local() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// The value remembered under `key`, if any (None when storage is off).
pub fn get(key: &str) -> Option<String> {
    local()?.get_item(key).ok().flatten()
}

/// Remembers `value` under `key` (nothing happens when storage is off).
pub fn set(key: &str, value: &str) {
    if let Some(s) = local() {
        let _ = s.set_item(key, value);
    }
}
