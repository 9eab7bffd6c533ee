//! Where the app remembers its few preferences and the discovery cache:
//! under `kubectl glass`, the launcher's per-context store (each run's
//! page has an origin of its own, so the browser keeps nothing); under a
//! plain `kubectl proxy`, this browser's localStorage. Chosen once, before
//! the app mounts; every read and write goes through [`store`]. Off
//! (private mode, a full quota, a launcher that has stopped) means
//! nothing more is remembered and nothing fails.

use std::cell::RefCell;
use std::rc::Rc;

use kubeglass_client::discovery::KeyValueStore;
use kubeglass_kubectl::session::SESSION_FILE;
use kubeglass_web::{LocalStorage, ServedStorage};

thread_local! {
    static STORE: RefCell<Option<(Rc<dyn KeyValueStore>, bool)>> = const { RefCell::new(None) };
}

/// Chooses the store for the API under `base` (`/<token>` under a
/// capability URL): the launcher's when it serves one, else localStorage.
/// A store that is there and does not read is an error for the page to
/// show; the app then runs on localStorage.
pub async fn choose(base: &str) -> Result<(), String> {
    // Only `kubectl glass` keeps a store, and it serves a session file that
    // is not `null` (the build's own is): asking a plain `kubectl proxy`
    // would be a 404 in the console.
    let launcher = !base.is_empty()
        && matches!(
            kubeglass_web::fetch_beside_page(SESSION_FILE).await,
            Ok(Some(text)) if text.trim() != "null"
        );
    let served = if launcher {
        ServedStorage::open(base).await
    } else {
        Ok(None)
    };
    let (store, served, err): (Rc<dyn KeyValueStore>, _, _) = match served {
        Ok(Some(s)) => (Rc::new(s), true, None),
        Ok(None) => (Rc::new(LocalStorage), false, None),
        Err(e) => (Rc::new(LocalStorage), false, Some(e)),
    };
    STORE.with(|s| *s.borrow_mut() = Some((store, served)));
    err.map_or(Ok(()), Err)
}

/// True when the launcher keeps the store (it is then one per context,
/// whatever the page's address).
pub fn served() -> bool {
    STORE.with(|s| s.borrow().as_ref().is_some_and(|(_, served)| *served))
}

/// The chosen store (localStorage until [`choose`] has run).
pub fn store() -> Rc<dyn KeyValueStore> {
    STORE
        .with(|s| s.borrow().as_ref().map(|(st, _)| st.clone()))
        .unwrap_or_else(|| Rc::new(LocalStorage))
}

/// The value remembered under `key`, if any.
pub fn get(key: &str) -> Option<String> {
    store().load(key)
}

/// Remembers `value` under `key`.
pub fn set(key: &str, value: &str) {
    store().save(key, value);
}
