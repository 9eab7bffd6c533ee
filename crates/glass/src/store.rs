//! What the app remembers for a context (its preferences, the discovery
//! cache), kept by the launcher in a file only this user can read, and
//! served to the page under the token.
//!
//! Each run's page has an origin nobody can have visited before (see
//! `port` and `main`'s random host name), so the browser's own storage
//! would start empty every run. Instead the page reads the whole store
//! once at start (`GET /<token>/glass/storage`) and writes each change
//! back (`PUT` or `DELETE /<token>/glass/storage/<key>`). The file is
//! `<state>/kubeglass/contexts/<sha-256 of the context name>.json`, mode
//! 0600 in a 0700 folder, replaced whole (written beside, then renamed) on
//! each change, so a crash leaves the old or the new file, never half of
//! one. It never holds the token: the app's keys are its own constants.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

/// The longest key accepted.
pub const MAX_KEY: usize = 128;
/// The largest value accepted (the discovery cache of a large cluster is
/// a few hundred kilobytes).
pub const MAX_VALUE: usize = 4 << 20;
/// The largest store accepted, all values together.
pub const MAX_TOTAL: usize = 16 << 20;

/// Why a write was refused or failed, in words for the page.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StoreError {
    /// A key outside `[A-Za-z0-9][A-Za-z0-9._ -]{0,127}`.
    #[error(
        "a storage key is 1 to {MAX_KEY} letters, digits, '.', '_', '-' or spaces, starting with a letter or digit"
    )]
    BadKey,
    /// A value over [`MAX_VALUE`].
    #[error("a stored value may be at most {MAX_VALUE} bytes")]
    TooLarge,
    /// The store would be over [`MAX_TOTAL`].
    #[error("the store may hold at most {MAX_TOTAL} bytes")]
    Full,
    /// The file could not be written (the change is kept for this run).
    #[error("{0}")]
    Io(String),
}

/// One context's store: in memory, and in its file when there is one.
#[derive(Debug)]
pub struct Store {
    /// The file; `None` keeps the store for this run only.
    file: Option<PathBuf>,
    map: Mutex<BTreeMap<String, String>>,
}

/// True for a key the store accepts.
pub fn key_is_valid(key: &str) -> bool {
    key.len() <= MAX_KEY
        && key
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b' '))
}

/// The folder of every context's store under `state` (the user's state
/// folder: `$XDG_STATE_HOME`, else `~/.local/state`).
pub fn folder(state: &Path) -> PathBuf {
    state.join("kubeglass").join("contexts")
}

/// The user's state folder, or `None` when neither `XDG_STATE_HOME` nor
/// `HOME` is set (the store then lasts one run).
pub fn state_home() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    std::env::var_os("XDG_STATE_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".local/state"))
        })
}

/// The file name of `context`'s store: a hash, so any name (with slashes,
/// dots or control characters) is a plain file name.
pub fn file_name(context: &str) -> String {
    let digest = Sha256::new()
        .chain_update(b"kubeglass context store\0")
        .chain_update(context.as_bytes())
        .finalize();
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("{hex}.json")
}

impl Store {
    /// A store that lasts this run only.
    pub fn in_memory() -> Self {
        Self {
            file: None,
            map: Mutex::new(BTreeMap::new()),
        }
    }

    /// `context`'s store in `folder` (made 0700 if missing). A file that is
    /// not a JSON object of strings is set aside (renamed `.bad`) and the
    /// store starts empty; the returned note says so, for the terminal.
    pub fn open(folder: &Path, context: &str) -> std::io::Result<(Self, Option<String>)> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(folder)?;
        let file = folder.join(file_name(context));
        let mut note = None;
        let map = match std::fs::read(&file) {
            Ok(bytes) => match serde_json::from_slice::<BTreeMap<String, String>>(&bytes) {
                Ok(m) => m.into_iter().filter(|(k, _)| key_is_valid(k)).collect(),
                Err(e) => {
                    let bad = file.with_extension("json.bad");
                    let _ = std::fs::rename(&file, &bad);
                    note = Some(format!(
                        "{} did not read ({e}); set aside as {}, starting empty",
                        file.display(),
                        bad.display()
                    ));
                    BTreeMap::new()
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(e),
        };
        Ok((
            Self {
                file: Some(file),
                map: Mutex::new(map),
            },
            note,
        ))
    }

    /// The file, if the store has one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The whole store as a JSON object of strings.
    pub fn json(&self) -> String {
        let map = self
            .map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        serde_json::to_string(&*map).unwrap_or_else(|_| "{}".into())
    }

    /// Sets `key` to `value` (or removes it, for `None`) and writes the file.
    pub fn set(&self, key: &str, value: Option<&str>) -> Result<(), StoreError> {
        if !key_is_valid(key) {
            return Err(StoreError::BadKey);
        }
        let mut map = self
            .map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match value {
            Some(v) => {
                if v.len() > MAX_VALUE {
                    return Err(StoreError::TooLarge);
                }
                let others: usize = map
                    .iter()
                    .filter(|(k, _)| k.as_str() != key)
                    .map(|(k, v)| k.len() + v.len())
                    .sum();
                if others + key.len() + v.len() > MAX_TOTAL {
                    return Err(StoreError::Full);
                }
                map.insert(key.to_string(), v.to_string());
            }
            None => {
                map.remove(key);
            }
        }
        let Some(file) = &self.file else {
            return Ok(());
        };
        let text = serde_json::to_string(&*map).map_err(|e| StoreError::Io(e.to_string()))?;
        write_whole(file, text.as_bytes())
            .map_err(|e| StoreError::Io(format!("{}: {e}", file.display())))
    }
}

/// Replaces `file` with `bytes`: written to a new 0600 file beside it,
/// then renamed over it.
pub(crate) fn write_whole(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = file.with_extension(format!("json.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, file)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// `context`'s store in the user's state folder; for this run only (and
/// said so on the terminal) when there is none or it cannot be made.
pub fn open_for(context: &str) -> Store {
    let Some(state) = state_home() else {
        eprintln!(
            "kubectl-glass: neither XDG_STATE_HOME nor HOME is set; the app's preferences last this run only"
        );
        return Store::in_memory();
    };
    match Store::open(&folder(&state), context) {
        Ok((s, note)) => {
            if let Some(n) = note {
                eprintln!("kubectl-glass: {n}");
            }
            s
        }
        Err(e) => {
            eprintln!(
                "kubectl-glass: {}: {e}; the app's preferences last this run only",
                folder(&state).display()
            );
            Store::in_memory()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_store_outlives_its_run_in_a_file_only_this_user_reads() {
        let dir = tempfile::tempdir().expect("dir");
        let folder = folder(dir.path());
        let (store, note) = Store::open(&folder, "prod/east").expect("open");
        assert_eq!(note, None);
        assert_eq!(store.json(), "{}");
        store.set("kubeglass.theme", Some("dark")).expect("set");
        store.set("kubeglass.wide", Some("1")).expect("set");
        store.set("kubeglass.wide", None).expect("remove");
        let file = store.file().expect("a file").to_path_buf();
        assert_eq!(file.parent(), Some(folder.as_path()));
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(&folder), 0o700);
        drop(store);
        let (again, _) = Store::open(&folder, "prod/east").expect("open");
        assert_eq!(again.json(), r#"{"kubeglass.theme":"dark"}"#);
        // Another context has a store of its own.
        let (other, _) = Store::open(&folder, "prod/west").expect("open");
        assert_eq!(other.json(), "{}");
        // Nothing but the store's file is left beside it.
        let names: Vec<_> = std::fs::read_dir(&folder)
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn bad_keys_large_values_and_a_full_store_are_refused() {
        let store = Store::in_memory();
        for bad in [
            "",
            "a/b",
            "../x",
            "..",
            ".hidden",
            " a",
            "a%20b",
            "ключ",
            &"k".repeat(MAX_KEY + 1),
        ] {
            assert_eq!(
                store.set(bad, Some("v")),
                Err(StoreError::BadKey),
                "{bad:?}"
            );
        }
        assert!(store.set(&"k".repeat(MAX_KEY), Some("v")).is_ok());
        assert!(store.set("kubeglass.discovery.v2 0af3", Some("v")).is_ok());
        let big = "x".repeat(MAX_VALUE + 1);
        assert_eq!(store.set("big", Some(&big)), Err(StoreError::TooLarge));
        let most = "x".repeat(MAX_VALUE);
        for i in 0..3 {
            store.set(&format!("part-{i}"), Some(&most)).expect("fits");
        }
        assert_eq!(store.set("part-3", Some(&most)), Err(StoreError::Full));
        // Replacing a value counts its new size, not both.
        assert!(store.set("part-2", Some(&most)).is_ok());
        assert!(!store.json().contains("big"));
    }

    #[test]
    fn a_file_that_does_not_read_is_set_aside_and_the_store_starts_empty() {
        let dir = tempfile::tempdir().expect("dir");
        let folder = folder(dir.path());
        std::fs::DirBuilder::new()
            .recursive(true)
            .create(&folder)
            .expect("mkdir");
        let file = folder.join(file_name("dev"));
        std::fs::write(&file, b"{\"kubeglass.theme\": 3}").expect("write");
        let (store, note) = Store::open(&folder, "dev").expect("open");
        assert_eq!(store.json(), "{}");
        assert!(note.expect("a note").contains("set aside"));
        assert!(file.with_extension("json.bad").exists());
    }

    #[test]
    fn context_names_become_plain_file_names() {
        let a = file_name("../../etc/passwd");
        assert!(a.ends_with(".json") && a.len() == 37, "{a}");
        assert!(!a.contains('/'));
        assert_ne!(file_name("a"), file_name("b"));
        assert_eq!(file_name("a"), file_name("a"));
    }
}
