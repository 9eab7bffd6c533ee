//! `localStorage` as the client's key-value store (the discovery cache lives there).

use kubeglass_client::discovery::KeyValueStore;

/// The page's `localStorage`; every call is best effort (private windows and
/// full quotas fail quietly, and the cache simply refetches).
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalStorage;

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

impl KeyValueStore for LocalStorage {
    fn load(&self, key: &str) -> Option<String> {
        storage()?.get_item(key).ok()?
    }

    fn save(&self, key: &str, value: &str) {
        if let Some(s) = storage() {
            let _ = s.set_item(key, value);
        }
    }

    fn remove(&self, key: &str) {
        if let Some(s) = storage() {
            let _ = s.remove_item(key);
        }
    }

    fn keys(&self) -> Vec<String> {
        let Some(s) = storage() else {
            return Vec::new();
        };
        let n = s.length().unwrap_or(0);
        (0..n).filter_map(|i| s.key(i).ok().flatten()).collect()
    }
}
