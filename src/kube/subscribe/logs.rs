//! Log streams: one container's log, cut into lines and handed to its view once per animation frame, and the streams open now, for the X-ray page.
//!
//! A followed log goes over WebSocket when the transport can (it then holds
//! none of the browser's six HTTP/1.1 connections; docs/kubectl-proxy.md),
//! else over a fetch stream. Dropping a [`LogStream`] closes it.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::StreamExt;
use futures::future::AbortHandle;
use kubeglass_client::api::Api;
use kubeglass_client::k8s_openapi::api::core::v1::Pod;
use kubeglass_client::kube_core::subresource::LogParams;
use kubeglass_web::FrameQueue;

use crate::kube::Kube;
pub use crate::rules::log_page::StreamState;
use crate::rules::logs::{LineSplitter, LogLine};
use crate::rules::problem::Problem;

/// One open stream as the X-ray page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenStream {
    /// `namespace/pod`.
    pub pod: String,
    /// The container.
    pub container: String,
    /// `WebSocket` or `fetch`.
    pub over: &'static str,
    /// Lines received so far.
    pub lines: u64,
    /// Followed (kept open) or read once.
    pub follow: bool,
    /// Still open.
    pub open: bool,
}

/// Closed streams the X-ray page still lists.
const CLOSED_KEPT: usize = 10;

thread_local! {
    static OPEN: RefCell<BTreeMap<u64, OpenStream>> = const { RefCell::new(BTreeMap::new()) };
    static NEXT: Cell<u64> = const { Cell::new(0) };
}

/// The log streams open now and the last ones closed, oldest first.
pub fn log_streams() -> Vec<OpenStream> {
    OPEN.with(|o| o.borrow().values().cloned().collect())
}

/// Marks stream `id` closed, keeping the last few closed ones.
fn closed(id: u64) {
    OPEN.with(|o| {
        let mut o = o.borrow_mut();
        if let Some(s) = o.get_mut(&id) {
            s.open = false;
        }
        let closed: Vec<u64> = o
            .iter()
            .filter(|(_, s)| !s.open)
            .map(|(id, _)| *id)
            .collect();
        for id in closed.iter().take(closed.len().saturating_sub(CLOSED_KEPT)) {
            o.remove(id);
        }
    });
}

/// The lines of one view's streams, buffered per stream and handed over
/// together once per animation frame (frame queue `log-lines`).
#[derive(Clone)]
pub struct LogFeed {
    buffers: Rc<RefCell<BTreeMap<u16, Vec<LogLine>>>>,
    frames: FrameQueue<u16>,
}

impl LogFeed {
    /// A feed whose lines (of every stream, once per frame of `kube`'s)
    /// go to `apply`.
    pub fn new(kube: &Kube, mut apply: impl FnMut(Vec<LogLine>) + 'static) -> Self {
        let buffers: Rc<RefCell<BTreeMap<u16, Vec<LogLine>>>> = Rc::default();
        let b = buffers.clone();
        let frames = kube.frame_queue("log-lines", move |sources: Vec<u16>| {
            let mut lines = Vec::new();
            {
                let mut b = b.borrow_mut();
                for s in sources {
                    if let Some(mut v) = b.remove(&s) {
                        lines.append(&mut v);
                    }
                }
            }
            if !lines.is_empty() {
                apply(lines);
            }
        });
        Self { buffers, frames }
    }

    fn push(&self, source: u16, lines: impl IntoIterator<Item = LogLine>) {
        let mut b = self.buffers.borrow_mut();
        let v = b.entry(source).or_default();
        let before = v.len();
        v.extend(lines);
        if v.len() > before {
            drop(b);
            self.frames.add(source);
        }
    }

    /// A line the view writes itself (a pod joined or left), in order.
    pub fn mark(&self, line: LogLine) {
        self.push(line.source, [line]);
    }
}

/// An open log stream; dropping it closes the stream.
pub struct LogStream {
    abort: AbortHandle,
    id: u64,
}

impl Drop for LogStream {
    fn drop(&mut self) {
        self.abort.abort();
        closed(self.id);
    }
}

/// Opens the log of `container` in `namespace/pod` with `params`; its
/// lines go to `feed` tagged `source`, and its state to `state`.
pub fn open_log(
    kube: &Kube,
    namespace: &str,
    pod: &str,
    params: LogParams,
    source: u16,
    feed: LogFeed,
    state: impl Fn(StreamState) + 'static,
) -> LogStream {
    let id = NEXT.with(|n| {
        let id = n.get();
        n.set(id + 1);
        id
    });
    let sockets = params.follow && kube.websockets.log_websockets_enabled();
    let over = if sockets { "WebSocket" } else { "fetch" };
    OPEN.with(|o| {
        o.borrow_mut().insert(
            id,
            OpenStream {
                pod: format!("{namespace}/{pod}"),
                container: params.container.clone().unwrap_or_default(),
                over,
                lines: 0,
                follow: params.follow,
                open: true,
            },
        )
    });
    let api = Api::<Pod>::namespaced(kube.client.clone(), namespace);
    let transport = kube.websockets.clone();
    let pod = pod.to_string();
    let (task, abort) = futures::future::abortable(async move {
        state(StreamState::Opening);
        let opened = move || {
            // A socket that failed fell back to fetch (and turned sockets
            // off for logs): say which one this stream is.
            if sockets && !transport.log_websockets_enabled() {
                OPEN.with(|o| {
                    if let Some(s) = o.borrow_mut().get_mut(&id) {
                        s.over = "fetch";
                    }
                });
            }
        };
        let last = read(&api, &pod, &params, id, source, &feed, &state, opened).await;
        closed(id);
        state(last);
    });
    kube.spawn(async move {
        let _ = task.await;
    });
    LogStream { abort, id }
}

/// Reads one stream to its end; returns how it ended.
#[allow(clippy::too_many_arguments)]
async fn read(
    api: &Api<Pod>,
    pod: &str,
    params: &LogParams,
    id: u64,
    source: u16,
    feed: &LogFeed,
    state: &impl Fn(StreamState),
    opened: impl FnOnce(),
) -> StreamState {
    let mut body = match api.log_stream(pod, params).await {
        Ok(b) => b,
        Err(e) => return StreamState::Failed(Problem::from_error(&e)),
    };
    opened();
    state(StreamState::Open);
    let mut split = LineSplitter::default();
    while let Some(chunk) = body.next().await {
        let bytes = match chunk {
            Ok(b) => b,
            Err(e) => return StreamState::Failed(Problem::Unreachable(e.to_string())),
        };
        let lines = split.push(&bytes);
        if lines.is_empty() {
            continue;
        }
        OPEN.with(|o| {
            if let Some(s) = o.borrow_mut().get_mut(&id) {
                s.lines += lines.len() as u64;
            }
        });
        feed.push(source, lines.iter().map(|l| LogLine::from_raw(source, l)));
    }
    if let Some(last) = split.finish() {
        feed.push(source, [LogLine::from_raw(source, &last)]);
    }
    StreamState::Ended
}
