//! The app inside the binary, written out to a private folder for `kubectl proxy --www`.

use std::fs;
use std::io;
use std::path::Path;

use rust_embed::RustEmbed;

/// `dist/` as `make app` built it when this binary was compiled.
#[derive(RustEmbed)]
#[folder = "../../dist"]
#[allow_missing = true]
struct Dist;

pub use kubeglass_client::session::SESSION_FILE;

/// True when this binary was built with the app inside.
pub fn embedded() -> bool {
    Dist::get("index.html").is_some()
}

/// Writes every embedded file under `dir`, and `session` as [`SESSION_FILE`].
pub fn write_to(dir: &Path, session: &str) -> io::Result<usize> {
    if !embedded() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "this kubectl-glass was built without the app (dist/ was empty): build it with `make install`",
        ));
    }
    let mut n = 0;
    for name in Dist::iter() {
        let Some(file) = Dist::get(&name) else {
            continue;
        };
        // Names come from our own dist/ at build time; refuse anything odd anyway.
        if name
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..")
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("bad embedded name {name}"),
            ));
        }
        let path = dir.join(name.as_ref());
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&path, file.data.as_ref())?;
        n += 1;
    }
    fs::write(dir.join(SESSION_FILE), session)?;
    Ok(n + 1)
}
