//! Opening the browser at the app without putting the token in a command
//! line: a redirect page only this user can read, which the door removes
//! once the app has been fetched.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// A page that sends the browser to `url`, readable by this user only; the
/// door removes it once the app has been fetched.
pub fn write_redirect(file: &Path, url: &str) -> std::io::Result<()> {
    let href = url.replace('&', "&amp;").replace('"', "&quot;");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(file)?;
    writeln!(
        f,
        "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\"><meta http-equiv=\"refresh\" content=\"0;url={href}\"><title>Kubeglass</title><a href=\"{href}\">Open Kubeglass</a>"
    )
}

/// True when there is a display to open a browser on.
pub fn has_display() -> bool {
    if cfg!(target_os = "macos") || cfg!(windows) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
}
