//! The client's key-value store (preferences, the discovery cache): the launcher's per-context store when `kubectl glass` serves the page, else `localStorage`.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use kubeglass_client::discovery::KeyValueStore;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{RequestCache, RequestInit};

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

/// The launcher's store for this context (`kubectl glass` keeps it in a
/// 0600 file and serves it under the token), standing in for localStorage:
/// each run's page has an origin of its own, so the browser's storage
/// would start empty every time, and nothing is left in the browser.
///
/// Read whole once ([`ServedStorage::open`]) and then answered from
/// memory, so reads stay synchronous; each change is sent back in the
/// background, one request at a time and in the order made (a later
/// change of a key is never overtaken by an earlier one). A change the
/// launcher did not take (it has stopped) is kept for this page only, as
/// a full localStorage would be.
#[derive(Clone)]
pub struct ServedStorage {
    inner: Rc<Served>,
}

struct Served {
    /// `<base>/glass/storage`.
    url: String,
    map: RefCell<BTreeMap<String, String>>,
    /// Keys changed and not yet sent, oldest first.
    unsent: RefCell<Vec<String>>,
    sending: Cell<bool>,
}

impl ServedStorage {
    /// The store under `base` (`/<token>`): `Ok(None)` where nothing serves
    /// one (a plain `kubectl proxy`), an error for a store that does not
    /// read.
    pub async fn open(base: &str) -> Result<Option<Self>, String> {
        let url = format!("{base}/glass/storage");
        let Some(text) = send(&url, "GET", None).await? else {
            return Ok(None);
        };
        let map: BTreeMap<String, String> =
            serde_json::from_str(&text).map_err(|e| format!("{url}: {e}"))?;
        Ok(Some(Self {
            inner: Rc::new(Served {
                url,
                map: RefCell::new(map),
                unsent: RefCell::default(),
                sending: Cell::new(false),
            }),
        }))
    }

    /// Marks `key` changed and sends the changes unless they are being sent.
    fn changed(&self, key: &str) {
        let mut unsent = self.inner.unsent.borrow_mut();
        unsent.retain(|k| k != key);
        unsent.push(key.to_string());
        drop(unsent);
        if self.inner.sending.replace(true) {
            return;
        }
        let me = self.clone();
        crate::spawn(async move {
            loop {
                let next = {
                    let mut unsent = me.inner.unsent.borrow_mut();
                    (!unsent.is_empty()).then(|| unsent.remove(0))
                };
                let Some(key) = next else { break };
                let value = me.inner.map.borrow().get(&key).cloned();
                let url = format!("{}/{}", me.inner.url, js_sys::encode_uri_component(&key));
                let method = if value.is_some() { "PUT" } else { "DELETE" };
                if let Err(e) = send(&url, method, value.as_deref()).await {
                    web_sys::console::warn_1(&format!("Kubeglass: not remembered: {e}").into());
                }
            }
            me.inner.sending.set(false);
        });
    }
}

/// The largest body sent with `keepalive` (the browser's budget is 64 KiB
/// for every such request in flight).
const KEEPALIVE_MAX: usize = 48 << 10;

/// One request to the store: the body of a 2xx, `None` for a 404.
pub(crate) async fn send(
    url: &str,
    method: &str,
    body: Option<&str>,
) -> Result<Option<String>, String> {
    let w = web_sys::window().ok_or("no window")?;
    let init = RequestInit::new();
    init.set_method(method);
    init.set_cache(RequestCache::NoStore);
    if let Some(b) = body {
        init.set_body(&b.into());
    }
    // A change made just before the page goes (a reload, a link) still
    // reaches the launcher: the browser finishes a keepalive request after
    // the page unloads. It allows 64 KiB in flight for all of them, so a
    // larger value (the discovery cache) is sent as a plain request.
    if method != "GET" && body.is_none_or(|b| b.len() < KEEPALIVE_MAX) {
        let _ = js_sys::Reflect::set(&init, &"keepalive".into(), &true.into());
    }
    let resp = JsFuture::from(w.fetch_with_str_and_init(url, &init))
        .await
        .map_err(|e| format!("{method} {url}: {}", crate::js_message(&e)))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| "fetch returned no Response")?;
    if resp.status() == 404 {
        return Ok(None);
    }
    let text = JsFuture::from(resp.text().map_err(|e| crate::js_message(&e))?)
        .await
        .map_err(|e| crate::js_message(&e))?
        .as_string()
        .unwrap_or_default();
    if !resp.ok() {
        return Err(format!("{method} {url}: HTTP {}: {text}", resp.status()));
    }
    Ok(Some(text))
}

impl KeyValueStore for ServedStorage {
    fn load(&self, key: &str) -> Option<String> {
        self.inner.map.borrow().get(key).cloned()
    }

    fn save(&self, key: &str, value: &str) {
        let old = self
            .inner
            .map
            .borrow_mut()
            .insert(key.to_string(), value.to_string());
        if old.as_deref() != Some(value) {
            self.changed(key);
        }
    }

    fn remove(&self, key: &str) {
        if self.inner.map.borrow_mut().remove(key).is_some() {
            self.changed(key);
        }
    }

    fn keys(&self) -> Vec<String> {
        self.inner.map.borrow().keys().cloned().collect()
    }
}
