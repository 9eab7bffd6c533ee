//! A simulated API server for model-based tests: one namespaced collection
//! of ConfigMaps with real list/watch semantics and injectable faults.
//!
//! Unlike [`super::FakeApiServer`], which answers a script, this one keeps
//! state: objects, a resourceVersion counter, the event history (watches
//! from a version replay what came after it), compaction (watches and exact
//! lists from before it get 410 Gone), streaming lists, bookmarks, dropped
//! connections and an unreachable spell. It is a fake: integration tests use
//! the real apiserver.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::FutureExt;
use futures::StreamExt;
use futures::channel::mpsc;
use futures::future::LocalBoxFuture;
use serde_json::{Value, json};

use super::{decode, into_response};
use kubeglass_client::transport::{ByteStream, Request, Transport, TransportError};

type Feed = mpsc::UnboundedSender<Result<Vec<u8>, TransportError>>;

/// The simulated server; clones share it.
#[derive(Clone)]
pub struct SimServer {
    inner: Rc<RefCell<SimInner>>,
}

struct SimInner {
    path: String,
    namespace: String,
    objects: BTreeMap<String, (u64, String)>,
    rv: u64,
    history: Vec<(u64, &'static str, Value)>,
    compacted: u64,
    watches: Vec<Feed>,
    down: bool,
    requests: Vec<String>,
    watch_list: bool,
}

fn status(code: u16, reason: &str, message: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
           "reason": reason, "message": message, "code": code})
}

fn line(kind: &str, object: &Value) -> Vec<u8> {
    let mut l = json!({"type": kind, "object": object})
        .to_string()
        .into_bytes();
    l.push(b'\n');
    l
}

impl SimInner {
    fn object(&self, name: &str, rv: u64, data: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": name, "namespace": self.namespace,
                            "resourceVersion": rv.to_string()},
               "data": {"v": data}})
    }

    fn broadcast(&mut self, kind: &'static str, object: Value) {
        let bytes = line(kind, &object);
        self.history.push((self.rv, kind, object));
        self.watches
            .retain(|w| w.unbounded_send(Ok(bytes.clone())).is_ok());
    }
}

impl SimServer {
    /// An empty collection at `/api/v1/namespaces/<namespace>/configmaps`;
    /// `watch_list` says whether streaming lists are served.
    pub fn new(namespace: &str, watch_list: bool) -> Self {
        Self {
            inner: Rc::new(RefCell::new(SimInner {
                path: format!("/api/v1/namespaces/{namespace}/configmaps"),
                namespace: namespace.to_string(),
                objects: BTreeMap::new(),
                rv: 1,
                history: Vec::new(),
                compacted: 0,
                watches: Vec::new(),
                down: false,
                requests: Vec::new(),
                watch_list,
            })),
        }
    }

    /// The collection path.
    pub fn path(&self) -> String {
        self.inner.borrow().path.clone()
    }

    /// Creates `name`, or updates it if it exists, with `data`.
    pub fn put(&self, name: &str, data: &str) {
        let mut i = self.inner.borrow_mut();
        i.rv += 1;
        let rv = i.rv;
        let kind = if i.objects.contains_key(name) {
            "MODIFIED"
        } else {
            "ADDED"
        };
        i.objects.insert(name.to_string(), (rv, data.to_string()));
        let obj = i.object(name, rv, data);
        i.broadcast(kind, obj);
    }

    /// Deletes `name` if it exists.
    pub fn delete(&self, name: &str) {
        let mut i = self.inner.borrow_mut();
        let Some((_, data)) = i.objects.remove(name) else {
            return;
        };
        i.rv += 1;
        let rv = i.rv;
        let obj = i.object(name, rv, &data);
        i.broadcast("DELETED", obj);
    }

    /// Forgets history up to now: watches from older versions get 410.
    pub fn compact(&self) {
        let mut i = self.inner.borrow_mut();
        i.compacted = i.rv;
        i.history.clear();
    }

    /// Sends a bookmark at the current version to every open watch.
    pub fn bookmark(&self) {
        let mut i = self.inner.borrow_mut();
        let b = json!({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"resourceVersion": i.rv.to_string()}});
        let bytes = line("BOOKMARK", &b);
        i.watches
            .retain(|w| w.unbounded_send(Ok(bytes.clone())).is_ok());
    }

    /// Ends every open watch: cleanly, or as a broken connection.
    pub fn drop_watches(&self, broken: bool) {
        let mut i = self.inner.borrow_mut();
        for w in i.watches.drain(..) {
            if broken {
                let _ = w.unbounded_send(Err(TransportError::Read("connection reset".into())));
            }
            w.close_channel();
        }
    }

    /// Sends 410 Gone as an ERROR event to every open watch and ends them.
    pub fn expire_watches(&self) {
        let mut i = self.inner.borrow_mut();
        let bytes = line("ERROR", &status(410, "Expired", "too old resource version"));
        for w in i.watches.drain(..) {
            let _ = w.unbounded_send(Ok(bytes.clone()));
            w.close_channel();
        }
    }

    /// While down, every request fails to connect and open watches break.
    pub fn set_down(&self, down: bool) {
        self.inner.borrow_mut().down = down;
        if down {
            self.drop_watches(true);
        }
    }

    /// The current objects: name → (resourceVersion, data).
    pub fn state(&self) -> BTreeMap<String, (String, String)> {
        self.inner
            .borrow()
            .objects
            .iter()
            .map(|(k, (rv, d))| (k.clone(), (rv.to_string(), d.clone())))
            .collect()
    }

    /// Every request received, as `METHOD path?query`.
    pub fn requests(&self) -> Vec<String> {
        self.inner.borrow().requests.clone()
    }

    fn query(request: &Request) -> BTreeMap<String, String> {
        request
            .uri()
            .query()
            .unwrap_or_default()
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (decode(k), decode(v))
            })
            .collect()
    }

    fn log(&self, request: &Request) -> Result<(), TransportError> {
        let mut i = self.inner.borrow_mut();
        i.requests
            .push(format!("{} {}", request.method(), request.uri()));
        if i.down {
            return Err(TransportError::Connect("connection refused".into()));
        }
        Ok(())
    }

    fn list(&self, q: &BTreeMap<String, String>) -> (u16, Value) {
        let i = self.inner.borrow();
        if let Some(rv) = q.get("resourceVersion").and_then(|v| v.parse::<u64>().ok())
            && rv != 0
        {
            if rv > i.rv {
                return (
                    504,
                    status(
                        504,
                        "Timeout",
                        "Too large resource version: the server is behind",
                    ),
                );
            }
            // With a limit a non-zero version is an exact read, and history
            // before the compaction is gone.
            if q.contains_key("limit") && rv < i.compacted {
                return (410, status(410, "Expired", "too old resource version"));
            }
        }
        let items: Vec<Value> = i
            .objects
            .iter()
            .map(|(n, (rv, d))| i.object(n, *rv, d))
            .collect();
        (
            200,
            json!({"apiVersion": "v1", "kind": "ConfigMapList",
                   "metadata": {"resourceVersion": i.rv.to_string()}, "items": items}),
        )
    }

    /// Opens a watch; `Err` is an immediate error answer.
    fn watch(&self, q: &BTreeMap<String, String>) -> Result<ByteStream, (u16, Value)> {
        let mut i = self.inner.borrow_mut();
        let initial = q.get("sendInitialEvents").is_some_and(|v| v == "true");
        let (tx, rx) = mpsc::unbounded();
        if initial {
            if !i.watch_list {
                return Err((
                    422,
                    status(422, "Invalid", "sendInitialEvents is not supported here"),
                ));
            }
            let objs: Vec<Value> = i
                .objects
                .iter()
                .map(|(n, (rv, d))| i.object(n, *rv, d))
                .collect();
            for o in objs {
                let _ = tx.unbounded_send(Ok(line("ADDED", &o)));
            }
            let end = json!({"apiVersion": "v1", "kind": "ConfigMap",
                             "metadata": {"resourceVersion": i.rv.to_string(),
                                          "annotations": {"k8s.io/initial-events-end": "true"}}});
            let _ = tx.unbounded_send(Ok(line("BOOKMARK", &end)));
        } else {
            let from = q
                .get("resourceVersion")
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
            if from < i.compacted {
                return Err((410, status(410, "Expired", "too old resource version")));
            }
            for (rv, kind, obj) in &i.history {
                if *rv > from {
                    let _ = tx.unbounded_send(Ok(line(kind, obj)));
                }
            }
        }
        i.watches.push(tx);
        Ok(rx.boxed_local())
    }
}

impl Transport for SimServer {
    fn send(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<Vec<u8>>, TransportError>> {
        let result = self.log(&request).map(|()| {
            let (code, body) = self.list(&Self::query(&request));
            into_response(code, &[], body.to_string().into_bytes())
        });
        async move { result }.boxed_local()
    }

    fn stream(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<ByteStream>, TransportError>> {
        let query = Self::query(&request);
        if !query.contains_key("watch") {
            // A list read as it arrives: the same answer, in one chunk.
            let result = self.log(&request).map(|()| {
                let (code, body) = self.list(&query);
                let s: ByteStream =
                    futures::stream::iter([Ok(body.to_string().into_bytes())]).boxed_local();
                into_response(code, &[], s)
            });
            return async move { result }.boxed_local();
        }
        let result = self.log(&request).map(|()| match self.watch(&query) {
            Ok(s) => into_response(200, &[], s),
            Err((code, body)) => {
                let s: ByteStream =
                    futures::stream::iter([Ok(body.to_string().into_bytes())]).boxed_local();
                into_response(code, &[], s)
            }
        });
        async move { result }.boxed_local()
    }
}
