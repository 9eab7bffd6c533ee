//! Where informers' saved states are kept, so a table draws at once on the
//! next visit: under `kubectl glass`, the launcher's per-context folder
//! (each run's page has an origin of its own, so nothing the browser keeps
//! would be found again); under a plain `kubectl proxy`, the origin's
//! Cache Storage (kept across reloads, browser restarts and proxy
//! restarts on the same address). Each saved state is one text, read when
//! its informer starts and replaced whole. Both are bounded: the launcher
//! bounds its folder, and the browser's copies are held to
//! [`BROWSER_MAX_BYTES`] in all, the least recently saved going first.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::js_message;

/// The Cache Storage cache the browser keeps saved states in.
const CACHE: &str = "kubeglass-snapshots";

/// The most the browser keeps for one origin, every saved state together
/// (as the launcher keeps per context): past it, the least recently saved
/// go first.
pub const BROWSER_MAX_BYTES: usize = 256 << 20;

/// The headers each entry carries: when it was saved (ms since the epoch)
/// and how many bytes it holds, so bounding the cache reads no body.
const SAVED_AT: &str = "x-kubeglass-saved-at";
const BYTES: &str = "x-kubeglass-bytes";

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

    /// Keeps `text` under `key`, replacing what was there (in the
    /// browser, within [`BROWSER_MAX_BYTES`] in all).
    pub async fn save(&self, key: &str, text: &str) -> Result<(), String> {
        self.save_within(key, text, BROWSER_MAX_BYTES).await
    }

    /// [`Snapshots::save`], the browser's copies held to `max_bytes` in
    /// all: the least recently saved others go first (the launcher bounds
    /// its folder itself).
    pub async fn save_within(&self, key: &str, text: &str, max_bytes: usize) -> Result<(), String> {
        match self {
            Self::Launcher(url) => crate::storage::send(&format!("{url}/{key}"), "PUT", Some(text))
                .await
                .map(drop),
            Self::Browser => {
                let cache = open().await?;
                let headers = web_sys::Headers::new().map_err(|e| js_message(&e))?;
                // Whole milliseconds: an integer parses without the float
                // parser, which would grow the first page's wasm.
                let now = (js_sys::Date::now() as u64).to_string();
                headers.set(SAVED_AT, &now).map_err(|e| js_message(&e))?;
                headers
                    .set(BYTES, &text.len().to_string())
                    .map_err(|e| js_message(&e))?;
                let init = web_sys::ResponseInit::new();
                init.set_headers(&headers);
                let resp = web_sys::Response::new_with_opt_str_and_init(Some(text), &init)
                    .map_err(|e| js_message(&e))?;
                JsFuture::from(cache.put_with_str(&entry(key), &resp))
                    .await
                    .map_err(|e| format!("the browser kept no copy: {}", js_message(&e)))?;
                keep_within(&cache, &entry(key), max_bytes).await
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

/// Deletes the least recently saved entries, never `kept` (the one just
/// saved), until the rest hold at most `max_bytes`. An entry without the
/// headers (saved by an older build) counts as the oldest, of no size.
async fn keep_within(cache: &web_sys::Cache, kept: &str, max_bytes: usize) -> Result<(), String> {
    let keys = JsFuture::from(cache.keys())
        .await
        .map_err(|e| js_message(&e))?;
    let mut entries = Vec::new();
    for request in js_sys::Array::from(&keys).iter() {
        let Ok(request) = request.dyn_into::<web_sys::Request>() else {
            continue;
        };
        let found = JsFuture::from(cache.match_with_request(&request))
            .await
            .map_err(|e| js_message(&e))?;
        let Ok(resp) = found.dyn_into::<web_sys::Response>() else {
            continue;
        };
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .ok()
                .flatten()
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0)
        };
        entries.push((header(SAVED_AT), header(BYTES), request));
    }
    let mut total: usize = entries.iter().map(|e| e.1).sum();
    entries.sort_by_key(|e| e.0);
    for (_, bytes, request) in entries {
        if total <= max_bytes {
            break;
        }
        // The request's URL is whole (origin and all); the entry's is its path.
        if request.url().ends_with(kept) {
            continue;
        }
        JsFuture::from(cache.delete_with_request(&request))
            .await
            .map_err(|e| js_message(&e))?;
        total -= bytes;
    }
    Ok(())
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
