//! Preferences the app remembers (in the launcher's store for the context, else this browser's localStorage): the theme, kubectl's wide columns, the namespace.

/// localStorage key of the theme (`system`, `light`, `dark`).
pub const THEME: &str = "kubeglass.theme";
/// localStorage key: "1" when tables show kubectl's wide columns.
pub const WIDE: &str = "kubeglass.wide";
/// localStorage key: "0" when pod and node tables hide their CPU and memory columns.
pub const USAGE: &str = "kubeglass.usage-columns";
/// localStorage key of the namespace the app works in ("" for all).
pub const NAMESPACE: &str = "kubeglass.namespace";

/// localStorage key of a resource's own columns (kubectl's custom-columns
/// spec; "" for none), by its qualified name.
pub fn columns_key(resource: &str) -> String {
    format!("kubeglass.columns.{resource}")
}

/// Seconds a hidden tab waits before it stops watching ("0": never).
pub const QUIET_AFTER: &str = "kubeglass.quiet-after";
/// [`QUIET_AFTER`] until one is chosen: five minutes.
pub const QUIET_AFTER_DEFAULT: u64 = 300;

pub use crate::platform::storage::{get, served, set, store};

/// How long a hidden tab waits before it stops watching; None: never.
pub fn quiet_after() -> Option<std::time::Duration> {
    let secs = get(QUIET_AFTER)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(QUIET_AFTER_DEFAULT);
    (secs > 0).then(|| std::time::Duration::from_secs(secs))
}

/// A flag remembered as "1" or "0".
pub fn flag(key: &str) -> bool {
    get(key).is_some_and(|v| v == "1")
}

/// A flag remembered as "1" or "0", `default` until one is.
pub fn flag_or(key: &str, default: bool) -> bool {
    get(key).map_or(default, |v| v == "1")
}

/// Remembers a flag.
pub fn set_flag(key: &str, on: bool) {
    set(key, if on { "1" } else { "0" });
}
