//! This browser's localStorage for the few preferences the app remembers, through the one wrapper the discovery cache uses too (`kubeglass_web::LocalStorage`); off (private mode, a full quota) means nothing is remembered and nothing fails.

use kubeglass_client::discovery::KeyValueStore;
use kubeglass_web::LocalStorage;

/// The value remembered under `key`, if any (None when storage is off).
pub fn get(key: &str) -> Option<String> {
    LocalStorage.load(key)
}

/// Remembers `value` under `key` (nothing happens when storage is off).
pub fn set(key: &str, value: &str) {
    LocalStorage.save(key, value);
}
