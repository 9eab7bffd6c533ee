//! Where informers' saved states are kept, so a table draws at once on the
//! next visit: under `kubectl glass`, the launcher's per-context folder
//! (each run's page has an origin of its own, so nothing the browser keeps
//! would be found again); under a plain `kubectl proxy`, the origin's
//! Cache Storage (kept across reloads, browser restarts and proxy
//! restarts on the same address). Each saved state is one text, read when
//! its informer starts and replaced whole.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::js_message;

/// The Cache Storage cache the browser keeps saved states in.
const CACHE: &str = "kubeglass-snapshots";

/// Where saved states go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Snapshots {
    /// The launcher's folder for this context: `<base>/glass/saved`.
    Launcher(String),
    /// This origin's Cache Storage.
    Browser,
}

impl Snapshots {
    /// The launcher's, for the API under `base` (`/<token>`).
    pub fn launcher(base: &str) -> Self {
        Self::Launcher(format!("{base}/glass/saved"))
    }

    /// The saved state under `key`, if any. `key` is the app's own
    /// (letters, digits, '.', '-', '_').
    pub async fn load(&self, key: &str) -> Result<Option<String>, String> {
        match self {
            // The launcher answers 204, empty, for a table never saved.
            Self::Launcher(url) => Ok(crate::storage::send(&format!("{url}/{key}"), "GET", None)
                .await?
                .filter(|text| !text.is_empty())),
            Self::Browser => {
                let cache = open().await?;
                let found = JsFuture::from(cache.match_with_str(&entry(key)))
                    .await
                    .map_err(|e| js_message(&e))?;
                let Ok(resp) = found.dyn_into::<web_sys::Response>() else {
                    return Ok(None);
                };
                let text = JsFuture::from(resp.text().map_err(|e| js_message(&e))?)
                    .await
                    .map_err(|e| js_message(&e))?;
                Ok(text.as_string())
            }
        }
    }

    /// Keeps `text` under `key`, replacing what was there.
    pub async fn save(&self, key: &str, text: &str) -> Result<(), String> {
        match self {
            Self::Launcher(url) => crate::storage::send(&format!("{url}/{key}"), "PUT", Some(text))
                .await
                .map(drop),
            Self::Browser => {
                let cache = open().await?;
                let resp =
                    web_sys::Response::new_with_opt_str(Some(text)).map_err(|e| js_message(&e))?;
                JsFuture::from(cache.put_with_str(&entry(key), &resp))
                    .await
                    .map(drop)
                    .map_err(|e| format!("the browser kept no copy: {}", js_message(&e)))
            }
        }
    }

    /// Forgets every saved state of this cluster.
    pub async fn forget(&self) -> Result<(), String> {
        match self {
            Self::Launcher(url) => crate::storage::send(url, "DELETE", None).await.map(drop),
            Self::Browser => {
                let caches = caches()?;
                JsFuture::from(caches.delete(CACHE))
                    .await
                    .map(drop)
                    .map_err(|e| js_message(&e))
            }
        }
    }
}

/// The entry's URL: on this origin, outside the token's path (nothing is
/// ever fetched from it; Cache Storage names entries by URL).
fn entry(key: &str) -> String {
    format!("/kubeglass-snapshots/{key}")
}

fn caches() -> Result<web_sys::CacheStorage, String> {
    let w = web_sys::window().ok_or("no window")?;
    w.caches().map_err(|_| {
        "the browser keeps no saved data for this address (Cache Storage needs https or localhost)"
            .to_string()
    })
}

async fn open() -> Result<web_sys::Cache, String> {
    let opened = JsFuture::from(caches()?.open(CACHE))
        .await
        .map_err(|e| js_message(&e))?;
    opened
        .dyn_into::<web_sys::Cache>()
        .map_err(|_| "caches.open returned no Cache".to_string())
}
