//! Service Workers on the app's origin. Kubeglass never registers one (its
//! CSP says `worker-src 'none'`), so one that is registered was put there by
//! a page someone else served on this address while Kubeglass was not
//! running, and it sees every request of this page, the token's among them.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Unregisters every Service Worker registered for this origin and says how
/// many there were. A browser that offers none here (an insecure context)
/// or refuses to list them counts as none.
pub async fn remove_service_workers() -> usize {
    let Some(w) = web_sys::window() else {
        return 0;
    };
    let container = js_sys::Reflect::get(&w.navigator(), &"serviceWorker".into())
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_null());
    let Some(container) = container else {
        return 0;
    };
    let container: web_sys::ServiceWorkerContainer = container.unchecked_into();
    let Ok(list) = JsFuture::from(container.get_registrations()).await else {
        return 0;
    };
    let list: js_sys::Array = list.unchecked_into();
    for r in list.iter() {
        let r: web_sys::ServiceWorkerRegistration = r.unchecked_into();
        if let Ok(p) = r.unregister() {
            let _ = JsFuture::from(p).await;
        }
    }
    list.length() as usize
}

/// Asks the launcher that served the page to stop (`POST ../glass/stop`,
/// beside `ui/`), so the token a worker may have seen ends now; false when
/// the browser would not send it. Under plain kubectl proxy nothing there
/// answers, and the page's own refusal is what remains.
pub fn ask_launcher_to_stop() -> bool {
    web_sys::window()
        .and_then(|w| w.navigator().send_beacon("../glass/stop").ok())
        .unwrap_or(false)
}
