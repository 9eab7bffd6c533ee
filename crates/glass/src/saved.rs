//! The app's saved tables for a context (each table's rows with the
//! version they are complete up to, so the next visit draws at once and
//! resumes with a watch), kept by the launcher beside the context's store.
//!
//! Each run's page has an origin nobody has visited (see `main`'s random
//! host name: a Service Worker or storage planted on an origin the page
//! used before could read the next run's token), so nothing the browser
//! keeps is found by the next run. The launcher keeps them instead, in
//! `<state>/kubeglass/contexts/<hash of the context>.saved/`, a 0700
//! folder of 0600 files, one per table, each replaced whole. The page
//! reads one when its table opens (`GET /<token>/glass/saved/<key>`; 204
//! and no body when there is none),
//! writes one as it changes (`PUT`), lists them (`GET /<token>/glass/saved`)
//! and forgets them all (`DELETE /<token>/glass/saved`). Bounded: a table
//! at most [`MAX_TABLE`], all of a context's at most [`MAX_ALL`], the
//! least recently written going first. The app never sends a Secret's.

use std::collections::BTreeMap;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crate::store::{StoreError, key_is_valid};

/// The largest saved table accepted.
pub const MAX_TABLE: usize = 64 << 20;
/// The most a context's saved tables may hold together.
pub const MAX_ALL: u64 = 256 << 20;

/// One context's saved tables: in a folder, or in memory for this run.
#[derive(Debug)]
pub struct Saved {
    folder: Option<PathBuf>,
    memory: Mutex<BTreeMap<String, Vec<u8>>>,
}

impl Saved {
    /// Saved tables that last this run only.
    pub fn in_memory() -> Self {
        Self {
            folder: None,
            memory: Mutex::default(),
        }
    }

    /// `context`'s saved tables of the cluster at `server`, beside its
    /// store in the user's state folder (for this run only when the store
    /// has no file).
    pub fn open_for(context: &str, server: &str, on_disk: bool) -> Self {
        match crate::store::state_home() {
            Some(state) if on_disk => Self::open(&crate::store::folder(&state), context, server),
            _ => Self::in_memory(),
        }
    }

    /// `context`'s saved tables of the cluster at `server`, in a folder
    /// beside its store in `folder` (made 0700 when first written). The
    /// folder is named by both: a context pointed at another server starts
    /// with nothing saved, never from the other cluster's tables and
    /// versions.
    pub fn open(folder: &Path, context: &str, server: &str) -> Self {
        let name = crate::store::file_name(&format!("{context}\0{server}"));
        let stem = name.trim_end_matches(".json");
        Self {
            folder: Some(folder.join(format!("{stem}.saved"))),
            memory: Mutex::default(),
        }
    }

    /// The folder, if they are kept in one.
    pub fn folder(&self) -> Option<&Path> {
        self.folder.as_deref()
    }

    fn memory(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<u8>>> {
        self.memory
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The saved table under `key`, if any.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        if !key_is_valid(key) {
            return Err(StoreError::BadKey);
        }
        let Some(folder) = &self.folder else {
            return Ok(self.memory().get(key).cloned());
        };
        match std::fs::read(folder.join(key)) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::Io(e.to_string())),
        }
    }

    /// The keys saved, sorted.
    pub fn keys(&self) -> Vec<String> {
        let Some(folder) = &self.folder else {
            return self.memory().keys().cloned().collect();
        };
        let mut keys: Vec<String> = entries(folder).into_iter().map(|e| e.0).collect();
        keys.sort();
        keys
    }

    /// Keeps `bytes` under `key`; then, while all of them are over
    /// [`MAX_ALL`], forgets the least recently written others.
    pub fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        if !key_is_valid(key) {
            return Err(StoreError::BadKey);
        }
        if bytes.len() > MAX_TABLE {
            return Err(StoreError::TooLarge);
        }
        let Some(folder) = &self.folder else {
            let mut m = self.memory();
            m.insert(key.to_string(), bytes.to_vec());
            while m.values().map(|v| v.len() as u64).sum::<u64>() > MAX_ALL {
                let Some(other) = m.keys().find(|k| k.as_str() != key).cloned() else {
                    break;
                };
                m.remove(&other);
            }
            return Ok(());
        };
        let io = |e: std::io::Error| StoreError::Io(format!("{}: {e}", folder.display()));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(folder)
            .map_err(io)?;
        crate::store::write_whole(&folder.join(key), bytes).map_err(io)?;
        let mut all = entries(folder);
        all.sort_by_key(|e| e.2);
        let mut total: u64 = all.iter().map(|e| e.1).sum();
        for (name, size, _) in all {
            if total <= MAX_ALL {
                break;
            }
            if name != key && std::fs::remove_file(folder.join(&name)).is_ok() {
                total -= size;
            }
        }
        Ok(())
    }

    /// Forgets every saved table.
    pub fn clear(&self) -> Result<(), StoreError> {
        self.memory().clear();
        let Some(folder) = &self.folder else {
            return Ok(());
        };
        match std::fs::remove_dir_all(folder) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::Io(format!("{}: {e}", folder.display()))),
        }
    }
}

/// The saved tables in `folder`: name, size, when last written (files
/// being written, whose names are not keys, are left out).
fn entries(folder: &Path) -> Vec<(String, u64, SystemTime)> {
    let Ok(dir) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let meta = e.metadata().ok()?;
            (key_is_valid(&name) && !name.ends_with(".tmp") && meta.is_file()).then(|| {
                (
                    name,
                    meta.len(),
                    meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                )
            })
        })
        .collect()
}

/// The door's side: the page's requests for its saved tables.
mod http {
    use bytes::Bytes;
    use http_body_util::{BodyExt, Full};
    use hyper::body::Incoming;
    use hyper::header::{self, HeaderValue};
    use hyper::{Request, Response, StatusCode};

    use crate::serve::{Body, Door, json, text};

    /// `GET` (the keys, as a JSON array) or `DELETE` (all of them) of the
    /// saved tables.
    pub(crate) fn serve_all(door: &Door, req: &Request<Incoming>) -> Response<Body> {
        if req.method() == hyper::Method::DELETE {
            return match door.saved.clear() {
                Ok(()) => text(StatusCode::NO_CONTENT, ""),
                Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
            };
        }
        let keys = serde_json::to_string(&door.saved.keys()).unwrap_or_else(|_| "[]".into());
        json(StatusCode::OK, keys)
    }

    /// `GET` (204, empty, when there is none) or `PUT` (the body) of one saved table.
    pub(crate) async fn serve_one(
        door: &Door,
        req: Request<Incoming>,
        key: &str,
    ) -> Response<Body> {
        use crate::store::StoreError;
        if req.method() == hyper::Method::GET {
            return match door.saved.get(key) {
                Ok(Some(bytes)) => {
                    let mut r = Response::new(
                        Full::new(Bytes::from(bytes))
                            .map_err(|never| match never {})
                            .boxed(),
                    );
                    r.headers_mut().insert(
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("text/plain; charset=utf-8"),
                    );
                    r
                }
                // Not an error: most tables have never been saved, and a 404
                // would be an error line in the browser's console for each.
                Ok(None) => text(StatusCode::NO_CONTENT, ""),
                Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
            };
        }
        let limited = http_body_util::Limited::new(req.into_body(), crate::saved::MAX_TABLE);
        let Ok(body) = limited.collect().await else {
            return text(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                    "a saved table may be at most {} bytes",
                    crate::saved::MAX_TABLE
                ),
            );
        };
        match door.saved.put(key, &body.to_bytes()) {
            Ok(()) => text(StatusCode::NO_CONTENT, ""),
            Err(e @ StoreError::Io(_)) => text(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
            Err(e) => text(StatusCode::PAYLOAD_TOO_LARGE, &e.to_string()),
        }
    }
}

pub(crate) use http::{serve_all, serve_one};

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn saved_tables_outlive_the_run_in_a_folder_only_this_user_reads() {
        let dir = tempfile::tempdir().expect("dir");
        let folder = crate::store::folder(dir.path());
        let saved = Saved::open(&folder, "prod/east", "https://east:6443");
        assert_eq!(saved.get("table.pods").expect("get"), None);
        saved.put("table.pods", b"rows").expect("put");
        let again = Saved::open(&folder, "prod/east", "https://east:6443");
        assert_eq!(
            again.get("table.pods").expect("get").as_deref(),
            Some(&b"rows"[..])
        );
        assert_eq!(again.keys(), ["table.pods"]);
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        let f = again.folder().expect("a folder");
        assert_eq!(mode(f), 0o700);
        assert_eq!(mode(&f.join("table.pods")), 0o600);
        // Another context has its own, and so has the same context
        // pointed at another cluster.
        assert_eq!(
            Saved::open(&folder, "prod/west", "https://east:6443").keys(),
            Vec::<String>::new()
        );
        assert_eq!(
            Saved::open(&folder, "prod/east", "https://new-east:6443").keys(),
            Vec::<String>::new()
        );
        again.clear().expect("clear");
        assert_eq!(saved.get("table.pods").expect("get"), None);
        assert!(!f.exists());
    }

    #[test]
    fn bad_keys_and_large_tables_are_refused_and_the_oldest_go_first() {
        let saved = Saved::in_memory();
        for bad in ["", "../x", "a/b", ".hidden"] {
            assert_eq!(saved.put(bad, b"x"), Err(StoreError::BadKey), "{bad:?}");
            assert_eq!(saved.get(bad), Err(StoreError::BadKey), "{bad:?}");
        }
        let big = vec![b'x'; MAX_TABLE + 1];
        assert_eq!(saved.put("big", &big), Err(StoreError::TooLarge));
        let dir = tempfile::tempdir().expect("dir");
        let saved = Saved::open(dir.path(), "dev", "");
        let most = vec![b'x'; MAX_TABLE];
        for i in 0..4 {
            saved.put(&format!("t{i}"), &most).expect("fits");
            // Written in order, a second apart in the file times' eyes.
            let f = std::fs::File::options()
                .write(true)
                .open(saved.folder().expect("folder").join(format!("t{i}")))
                .expect("open");
            f.set_modified(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000 + i))
                .expect("mtime");
        }
        saved.put("t4", &most).expect("fits");
        assert_eq!(saved.keys(), ["t1", "t2", "t3", "t4"]);
    }
}
