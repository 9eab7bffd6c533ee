//! What the cluster layer needs of the browser, injected: spawning, animation frames, storage, the WebSocket switch, connection counts and the files beside the page.
//!
//! [`Host::browser`] is the tab's; a native test builds one of its own
//! (an executor it steps, frames it pumps, an in-memory store), so `kube/`
//! runs against the client crate's fake API server without a browser.

use std::hash::Hash;
use std::rc::Rc;

use futures::FutureExt;
use futures::future::LocalBoxFuture;
use kubeglass_client::cache::factory::Spawner;
use kubeglass_client::discovery::KeyValueStore;
use kubeglass_client::transport::Duplex;
use kubeglass_web::{ConnectionCounts, FrameQueue, RequestFrame, WebSocketTransport};

use crate::kube::Kube;

/// Which transports the tab may use now: a WebSocket that failed turns
/// itself off (for watches, or for logs), and the rest falls back to fetch.
pub trait Sockets {
    /// Watches of whole objects may go over WebSocket.
    fn websockets_enabled(&self) -> bool;
    /// Followed logs may go over WebSocket.
    fn log_websockets_enabled(&self) -> bool;
}

impl Sockets for WebSocketTransport {
    fn websockets_enabled(&self) -> bool {
        WebSocketTransport::websockets_enabled(self)
    }
    fn log_websockets_enabled(&self) -> bool {
        WebSocketTransport::log_websockets_enabled(self)
    }
}

/// Where informers' saved states are kept (`stores::saved`): the
/// launcher's folder or the origin's Cache Storage in the tab, memory in a
/// native test. Each is one text under a key of the app's own.
pub trait SavedStore {
    /// The text under `key`, if any.
    fn load(&self, key: &str) -> LocalBoxFuture<'static, Result<Option<String>, String>>;
    /// Keeps `text` under `key`.
    fn save(&self, key: &str, text: String) -> LocalBoxFuture<'static, Result<(), String>>;
    /// Forgets everything kept.
    fn forget(&self) -> LocalBoxFuture<'static, Result<(), String>>;
    /// Where that is, in words for the X-ray page.
    fn place(&self) -> &'static str;
}

impl SavedStore for kubeglass_web::Snapshots {
    fn load(&self, key: &str) -> LocalBoxFuture<'static, Result<Option<String>, String>> {
        let (me, key) = (self.clone(), key.to_owned());
        async move { me.load(&key).await }.boxed_local()
    }
    fn save(&self, key: &str, text: String) -> LocalBoxFuture<'static, Result<(), String>> {
        let (me, key) = (self.clone(), key.to_owned());
        async move { me.save(&key, &text).await }.boxed_local()
    }
    fn forget(&self) -> LocalBoxFuture<'static, Result<(), String>> {
        let me = self.clone();
        async move { me.forget().await }.boxed_local()
    }
    fn place(&self) -> &'static str {
        match self {
            kubeglass_web::Snapshots::Launcher(_) => "kubectl glass's folder for this context",
            kubeglass_web::Snapshots::Browser => "this browser's Cache Storage for this address",
        }
    }
}

/// Reads a file that sits beside the page: `Ok(None)` when there is none.
pub type ReadBeside =
    Rc<dyn Fn(&'static str) -> LocalBoxFuture<'static, Result<Option<String>, String>>>;

/// The browser as `kube/` uses it; every handle is shared, so clones are cheap.
#[derive(Clone)]
pub struct Host {
    /// Runs a future on the event loop.
    pub spawn: Spawner,
    /// Schedules the next animation frame (views apply changes once per frame).
    pub frames: RequestFrame,
    /// Where discovery is cached (the launcher's store, or localStorage).
    pub storage: Rc<dyn KeyValueStore>,
    /// Whether watches and logs may go over WebSocket now.
    pub sockets: Rc<dyn Sockets>,
    /// Open connections by kind, for the X-ray page.
    pub counts: Rc<ConnectionCounts>,
    /// Reads a file beside the page (the launcher's session file).
    pub read_beside: ReadBeside,
    /// Opens message connections both ways (a shell's WebSocket).
    pub duplex: Rc<dyn Duplex>,
    /// Where tables' saved states are kept (None: nowhere, every table
    /// starts with a list).
    pub saved: Option<Rc<dyn SavedStore>>,
    /// The watches open now and this tab's part in each (held for the
    /// other tabs, followed, or alone): `kubeglass_client::tabs`.
    pub shares: Shares,
}

/// Reads the watches shared with other tabs, for the X-ray page.
pub type Shares = Rc<dyn Fn() -> Vec<kubeglass_client::tabs::Share>>;

impl Host {
    /// The tab's: `spawn_local`, `requestAnimationFrame`, `storage` (the
    /// launcher's store or localStorage), and `transport`'s WebSocket
    /// switches and counts.
    pub fn browser(
        transport: Rc<WebSocketTransport>,
        storage: Rc<dyn KeyValueStore>,
        saved: Option<Rc<dyn SavedStore>>,
        shares: Shares,
    ) -> Self {
        Self {
            saved,
            shares,
            spawn: Rc::new(kubeglass_web::spawn),
            frames: kubeglass_web::animation_frames(),
            storage,
            counts: transport.fetch().counts(),
            duplex: transport.clone(),
            sockets: transport,
            read_beside: Rc::new(|file| kubeglass_web::fetch_beside_page(file).boxed_local()),
        }
    }

    /// Runs `task` on the event loop.
    pub fn spawn(&self, task: impl std::future::Future<Output = ()> + 'static) {
        (self.spawn)(task.boxed_local());
    }
}

impl Kube {
    /// Runs `task` on the event loop.
    pub fn spawn(&self, task: impl std::future::Future<Output = ()> + 'static) {
        self.host.spawn(task);
    }

    /// A work queue named `name` (on the X-ray page) whose keys reach
    /// `apply` together, once per animation frame.
    pub fn frame_queue<K: Clone + Eq + Hash + 'static>(
        &self,
        name: &str,
        apply: impl FnMut(Vec<K>) + 'static,
    ) -> FrameQueue<K> {
        FrameQueue::with_frames(name, self.clock.clone(), self.host.frames.clone(), apply)
    }
}

impl Kube {
    /// The watches open now and this tab's part in each (X-ray).
    pub fn shared_watches(&self) -> Vec<kubeglass_client::tabs::Share> {
        (self.host.shares)()
    }
}
