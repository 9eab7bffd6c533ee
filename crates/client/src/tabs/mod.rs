//! One watch per collection across the tabs of one cluster.
//!
//! [`SharedWatches`] wraps the tab's transport. A watch request that can be
//! shared (a GET with `watch=1`, not a streaming list) is keyed by what it
//! asks for (path, selectors, the `Accept` header: Table rows, metadata or
//! whole objects), not by the version or timeout. The first tab to ask
//! takes that key's lock ([`Bus::try_lock`], Web Locks in the browser) and
//! holds the watch: it sends the request, hands the answer to its own
//! reflector unchanged, and posts each event on the key's channel
//! ([`Bus::listen`], a BroadcastChannel), keeping the last ones in a
//! [`ring::Ring`]. Every other tab that asks follows: it posts the version
//! its cache is complete up to, the holder answers with the events after
//! it, and from then on the follower's reflector reads the holder's events
//! as if they came from the server. The apiserver sees one watch.
//!
//! Each follower also waits for the lock. When the holder goes (its tab
//! closed, hidden and paused, or its view gone), the browser gives the lock
//! to one follower, which opens the watch itself from the version its
//! cache has reached, in the same stream its reflector is reading: no
//! list, and the other followers carry on from the new holder's events.
//!
//! Where the holder cannot answer (no answer within [`REPLY_WAIT`], or its
//! ring no longer reaches back to the follower's version) the follower
//! opens its own watch, as a tab alone would: a second watch for a while,
//! never a list the server would not otherwise have been sent.
//!
//! Why a tab holds the watch and not a SharedWorker: every tab needs the
//! objects in its own memory to draw them, so a worker holding the
//! informers would add a copy (or a message for every read) on top of the
//! tabs' own, and a second wasm program with the client in it. A holding
//! tab adds only the relay: a string per event, decoded by each follower
//! as it would decode the server's, and a ring of the last events. The
//! followers also hold none of the browser's six connections per host,
//! which Table and metadata watches over fetch otherwise take from every
//! tab of the origin together.
//!
//! Versions are compared as numbers here, which client-go leaves opaque: a
//! follower's version from its own list must be placed among the holder's
//! events. A watch whose versions do not read as numbers is not shared.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::{Either, LocalBoxFuture};
use futures::stream::LocalBoxStream;
use futures::{FutureExt, Stream, StreamExt};
use sha2::{Digest, Sha256};

use crate::clock::Clock;
use crate::rest::watch::LineBuffer;
use crate::transport::{ByteStream, Request, Transport, TransportError};

pub mod ring;
pub mod wire;

use ring::Ring;
use wire::Message;

/// How long a follower waits for the holder's answer before it watches alone.
pub const REPLY_WAIT: Duration = Duration::from_secs(3);

/// A held lock: dropping it lets the next tab waiting have it.
pub struct LockGuard(#[allow(dead_code)] Box<dyn std::any::Any>);

impl LockGuard {
    /// A guard that lets go by dropping `release`.
    pub fn new(release: impl std::any::Any) -> Self {
        Self(Box::new(release))
    }
}

/// How the tabs of one origin reach each other: channels every tab may
/// post on and listen to, and locks one tab at a time holds (the browser's
/// BroadcastChannel and Web Locks; an in-memory one in tests).
pub trait Bus {
    /// Joins `channel`: what the others post on it from now on, and how to
    /// post to them (never heard by this same [`Channel`], as a
    /// BroadcastChannel never hears itself). Dropping it leaves.
    fn listen(&self, channel: &str) -> Channel;
    /// Takes the lock `name` if nobody holds it now; None if somebody does.
    fn try_lock(&self, name: &str) -> LocalBoxFuture<'static, Option<LockGuard>>;
    /// Waits for the lock `name`; dropping the future gives up waiting.
    fn lock(&self, name: &str) -> LocalBoxFuture<'static, LockGuard>;
}

/// One tab's place on a channel of the [`Bus`].
pub struct Channel {
    /// What the others post, in order.
    pub messages: LocalBoxStream<'static, String>,
    /// Posts to every other listener of the channel, in this tab or another.
    pub post: Post,
}

/// Posts one message on a channel.
pub type Post = Rc<dyn Fn(String)>;

/// This tab's part in one shared watch, for the X-ray page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// This tab holds the watch: the server's answer goes to the others too.
    Holding {
        /// Catch-ups answered.
        answered: u64,
        /// Since when: taken over from another tab (true) or opened first.
        took_over: bool,
    },
    /// Another tab holds it; this one reads its events.
    Following,
    /// This tab watches alone, and why.
    Alone(&'static str),
}

/// One watch this tab has open, as the X-ray page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Share {
    /// The collection's path and what it asks for.
    pub what: String,
    /// This tab's part.
    pub role: Role,
}

type Shares = Rc<RefCell<BTreeMap<u64, Share>>>;

/// The rings of watches this tab held until the server ended them, by
/// channel: its reflector opens each again at once, from where it got to,
/// and the ring goes on (followers behind it still catch up).
type Rings = Rc<RefCell<BTreeMap<String, Ring>>>;

/// Most rings kept between a watch's end and its next opening.
const RINGS_KEPT: usize = 8;

/// A transport whose watches are shared with the other tabs on `bus`.
pub struct SharedWatches<T> {
    inner: Rc<T>,
    bus: Rc<dyn Bus>,
    clock: Rc<dyn Clock>,
    /// This tab's id, to tell its requests apart.
    tab: String,
    next: RefCell<u64>,
    shares: Shares,
    rings: Rings,
}

impl<T: Transport + 'static> SharedWatches<T> {
    /// Shares `inner`'s watches over `bus`; `tab` names this tab's requests.
    pub fn new(inner: Rc<T>, bus: Rc<dyn Bus>, clock: Rc<dyn Clock>, tab: String) -> Self {
        Self {
            inner,
            bus,
            clock,
            tab,
            next: RefCell::new(0),
            shares: Rc::default(),
            rings: Rc::default(),
        }
    }

    /// The watches open now and this tab's part in each.
    pub fn shares(&self) -> Vec<Share> {
        self.shares.borrow().values().cloned().collect()
    }

    fn next_id(&self) -> u64 {
        let mut n = self.next.borrow_mut();
        *n += 1;
        *n
    }

    async fn open(&self, request: Request) -> Result<http::Response<ByteStream>, TransportError> {
        let Some(key) = Key::of(&request) else {
            return self.inner.stream(request).await;
        };
        let n = self.next_id();
        let mut share = ShareToken::new(&self.shares, n, key.what.clone());
        let Some(from) = key.from else {
            share.set(Role::Alone("its version is not a number"));
            return share.wrap(self.inner.stream(request).await);
        };
        // Listen before taking the lock: a follower asks only once it sees
        // the lock held, so the holder hears every question.
        let Channel {
            messages: listener,
            post,
        } = self.bus.listen(&key.channel);
        if let Some(guard) = self.bus.try_lock(&key.channel).await {
            share.set(Role::Holding {
                answered: 0,
                took_over: false,
            });
            let answer = self.inner.stream(request).await;
            let ring = match self.rings.borrow_mut().remove(&key.channel) {
                Some(r) => r.resume(from),
                None => Ring::new(from),
            };
            let hold = Hold::new(post, &key.channel, guard, listener, ring, &self.rings);
            return share.wrap(answer.map(|r| hold.over(r)));
        }
        let id = format!("{}-{n}", self.tab);
        post(
            Message::CatchUp {
                id: id.clone(),
                from,
            }
            .encode(),
        );
        match self.await_reply(listener, &id).await {
            Some((lines, listener)) => {
                share.set(Role::Following);
                let follow = Follow {
                    pending: lines.into(),
                    last: from,
                    listener,
                    wait: Some(self.bus.lock(&key.channel)),
                    request: Some(request),
                    inner: self.inner.clone(),
                    post,
                    channel: key.channel.clone(),
                    rings: self.rings.clone(),
                    switching: None,
                    holding: None,
                    share: share.clone(),
                };
                Ok(share.wrap_ok(http::Response::new(Box::pin(follow) as ByteStream)))
            }
            None => {
                share.set(Role::Alone("the tab holding it did not catch this one up"));
                share.wrap(self.inner.stream(request).await)
            }
        }
    }

    /// Reads `listener` until the answer to `id`: its lines and the
    /// listener, which goes on with the events after them. None if the
    /// holder had not all of them, or said nothing in [`REPLY_WAIT`].
    async fn await_reply(
        &self,
        mut listener: LocalBoxStream<'static, String>,
        id: &str,
    ) -> Option<(Vec<String>, LocalBoxStream<'static, String>)> {
        let reply = async {
            while let Some(m) = listener.next().await {
                if let Some(Message::Reply { id: of, lines }) = Message::decode(&m)
                    && of == id
                {
                    return lines;
                }
            }
            None
        };
        let timeout = self.clock.sleep(REPLY_WAIT);
        let lines = match futures::future::select(Box::pin(reply), timeout).await {
            Either::Left((lines, _)) => lines?,
            Either::Right(_) => return None,
        };
        Some((lines, listener))
    }
}

impl<T: Transport + 'static> Transport for SharedWatches<T> {
    fn send(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<Vec<u8>>, TransportError>> {
        self.inner.send(request)
    }

    fn stream(
        &self,
        request: Request,
    ) -> LocalBoxFuture<'_, Result<http::Response<ByteStream>, TransportError>> {
        self.open(request).boxed_local()
    }
}

/// What a shareable watch request asks for.
struct Key {
    /// The bus channel and lock name.
    channel: String,
    /// For the X-ray page.
    what: String,
    /// The version it watches from, if a number.
    from: Option<u64>,
}

/// Query parameters that differ between two requests for the same events.
const PER_REQUEST: [&str; 3] = ["resourceVersion", "timeoutSeconds", "allowWatchBookmarks"];

impl Key {
    /// The key of a watch that may be shared; None for any other request
    /// (not a GET watch, a streaming list).
    fn of(request: &Request) -> Option<Key> {
        if request.method() != http::Method::GET {
            return None;
        }
        let mut same = Vec::new();
        let (mut watch, mut from) = (false, None);
        for (k, v) in query_pairs(request.uri().query().unwrap_or("")) {
            match k.as_str() {
                "watch" => watch = v == "1" || v == "true",
                "sendInitialEvents" => return None,
                "resourceVersion" => from = Some(v.clone()),
                _ => {}
            }
            if !PER_REQUEST.contains(&k.as_str()) {
                same.push(format!("{k}={v}"));
            }
        }
        if !watch {
            return None;
        }
        same.sort();
        let accept = request
            .headers()
            .get(http::header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let asked = format!("{}?{}", request.uri().path(), same.join("&"));
        let digest = Sha256::digest(format!("{asked}\n{accept}").as_bytes());
        // Shown without `watch=true`, which every one of them says.
        let what = asked.replace("?watch=true&", "?").replace("?watch=1&", "?");
        let what = what
            .strip_suffix("?watch=true")
            .or_else(|| what.strip_suffix("?watch=1"))
            .unwrap_or(&what)
            .to_owned();
        let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
        let form = if accept.contains("as=Table") {
            " (Table rows)"
        } else if accept.contains("as=PartialObjectMetadata") {
            " (metadata)"
        } else {
            ""
        };
        Some(Key {
            channel: format!("kubeglass-watch-{hex}"),
            what: format!("{what}{form}"),
            from: from.and_then(|v| v.parse().ok()),
        })
    }
}

/// The query's pairs, percent-decoding left as it is (only compared).
fn query_pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query.split('&').filter(|p| !p.is_empty()).map(|p| {
        let (k, v) = p.split_once('=').unwrap_or((p, ""));
        (k.to_owned(), v.to_owned())
    })
}

/// `request` again, watching from `rv`.
fn from_version(request: &Request, rv: u64) -> Request {
    let uri = request.uri();
    let mut query: Vec<String> = query_pairs(uri.query().unwrap_or(""))
        .filter(|(k, _)| k != "resourceVersion")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    query.push(format!("resourceVersion={rv}"));
    let mut again = http::Request::builder()
        .method(request.method().clone())
        .uri(format!("{}?{}", uri.path(), query.join("&")))
        .body(request.body().clone())
        .expect("a request rebuilt from a valid one");
    *again.headers_mut() = request.headers().clone();
    again
}

/// Keeps one watch's row in [`SharedWatches::shares`] while it is open.
#[derive(Clone)]
struct ShareToken(Rc<ShareEntry>);

struct ShareEntry {
    shares: Shares,
    n: u64,
}

impl Drop for ShareEntry {
    fn drop(&mut self) {
        self.shares.borrow_mut().remove(&self.n);
    }
}

impl ShareToken {
    fn new(shares: &Shares, n: u64, what: String) -> Self {
        shares.borrow_mut().insert(
            n,
            Share {
                what,
                role: Role::Alone("opening"),
            },
        );
        Self(Rc::new(ShareEntry {
            shares: shares.clone(),
            n,
        }))
    }

    fn set(&mut self, role: Role) {
        if let Some(s) = self.0.shares.borrow_mut().get_mut(&self.0.n) {
            s.role = role;
        }
    }

    fn answered(&self) {
        if let Some(Share {
            role: Role::Holding { answered, .. },
            ..
        }) = self.0.shares.borrow_mut().get_mut(&self.0.n)
        {
            *answered += 1;
        }
    }

    /// The answer, its body keeping the row until it is dropped.
    fn wrap(
        self,
        answer: Result<http::Response<ByteStream>, TransportError>,
    ) -> Result<http::Response<ByteStream>, TransportError> {
        answer.map(|r| self.wrap_ok(r))
    }

    fn wrap_ok(self, answer: http::Response<ByteStream>) -> http::Response<ByteStream> {
        answer.map(|body| {
            let token = self;
            Box::pin(body.map(move |c| {
                let _ = &token;
                c
            })) as ByteStream
        })
    }
}

/// The holder's side of a watch: what it needs to relay events and answer
/// catch-ups, before its answer is in.
struct Hold {
    post: Post,
    channel: String,
    guard: LockGuard,
    listener: LocalBoxStream<'static, String>,
    ring: Ring,
    rings: Rings,
}

impl Hold {
    fn new(
        post: Post,
        channel: &str,
        guard: LockGuard,
        listener: LocalBoxStream<'static, String>,
        ring: Ring,
        rings: &Rings,
    ) -> Self {
        Self {
            post,
            channel: channel.to_owned(),
            guard,
            listener,
            ring,
            rings: rings.clone(),
        }
    }

    /// The answer's body, relayed; an answer that is not a watch (an
    /// error) lets the lock go at once, and the followers waiting are told
    /// to watch alone.
    fn over(self, answer: http::Response<ByteStream>) -> http::Response<ByteStream> {
        if !answer.status().is_success() {
            let mut listener = self.listener;
            while let Some(Some(m)) = listener.next().now_or_never() {
                if let Some(Message::CatchUp { id, .. }) = Message::decode(&m) {
                    (self.post)(Message::Reply { id, lines: None }.encode());
                }
            }
            return answer;
        }
        answer.map(|real| Box::pin(self.holding(real, None)) as ByteStream)
    }

    fn holding(self, real: ByteStream, share: Option<ShareToken>) -> Holding {
        Holding {
            real,
            listener: Some(self.listener),
            lines: LineBuffer::new(),
            ring: Some(self.ring),
            rings: self.rings,
            post: self.post,
            channel: self.channel,
            guard: Some(self.guard),
            share,
        }
    }
}

/// A held watch's body: the server's bytes, unchanged, for this tab's
/// reflector; each event posted on the bus; catch-ups answered.
struct Holding {
    real: ByteStream,
    listener: Option<LocalBoxStream<'static, String>>,
    lines: LineBuffer,
    /// None once the watch ended (it is then kept in `rings`).
    ring: Option<Ring>,
    rings: Rings,
    post: Post,
    channel: String,
    guard: Option<LockGuard>,
    /// Counts the answers (a watch taken over counts through its own token).
    share: Option<ShareToken>,
}

impl Holding {
    fn answer(&mut self, message: &str) {
        if let Some(Message::CatchUp { id, from }) = Message::decode(message) {
            let lines = self.ring.as_ref().and_then(|r| r.after(from));
            (self.post)(Message::Reply { id, lines }.encode());
            if let Some(s) = &self.share {
                s.answered();
            }
        }
    }

    fn relay(&mut self, chunk: &[u8]) {
        let Ok(lines) = self.lines.push(chunk) else {
            return;
        };
        for line in lines {
            let Ok(line) = String::from_utf8(line) else {
                continue;
            };
            let rv = wire::event_rv(&line);
            (self.post)(
                Message::Event {
                    rv,
                    line: line.clone(),
                }
                .encode(),
            );
            if let Some(r) = self.ring.as_mut() {
                r.push(rv, line);
            }
        }
    }
}

impl Stream for Holding {
    type Item = Result<Vec<u8>, TransportError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        while let Some(l) = self.listener.as_mut() {
            match l.poll_next_unpin(cx) {
                Poll::Ready(Some(m)) => self.answer(&m),
                Poll::Ready(None) => self.listener = None,
                Poll::Pending => break,
            }
        }
        match self.real.poll_next_unpin(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                self.relay(&chunk);
                Poll::Ready(Some(Ok(chunk)))
            }
            Poll::Ready(end) => {
                // The watch ended: the next tab may hold it now, and if
                // this one opens it again from where it got to, its ring
                // goes on.
                self.guard = None;
                self.listener = None;
                if let Some(ring) = self.ring.take() {
                    let mut rings = self.rings.borrow_mut();
                    if rings.len() >= RINGS_KEPT {
                        rings.pop_first();
                    }
                    rings.insert(self.channel.clone(), ring);
                }
                Poll::Ready(end)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// A followed watch's body: the holder's events after this tab's version,
/// as the server would have sent them; the watch itself once the lock
/// comes to this tab.
struct Follow<T> {
    pending: VecDeque<String>,
    /// The version this tab's reflector has been handed.
    last: u64,
    listener: LocalBoxStream<'static, String>,
    /// The lock, asked for; granted when the holder goes.
    wait: Option<LocalBoxFuture<'static, LockGuard>>,
    request: Option<Request>,
    inner: Rc<T>,
    post: Post,
    channel: String,
    rings: Rings,
    /// The watch opened by this tab, on its way.
    switching: Option<Switching>,
    holding: Option<Holding>,
    share: ShareToken,
}

type Switching = (
    LocalBoxFuture<'static, Result<http::Response<ByteStream>, TransportError>>,
    LockGuard,
);

impl<T: Transport + 'static> Follow<T> {
    /// Takes in every event already posted (the holder's last ones come
    /// before the lock is handed on).
    fn drain(&mut self, cx: &mut Context<'_>) -> bool {
        let mut ended = false;
        loop {
            match self.listener.poll_next_unpin(cx) {
                Poll::Ready(Some(m)) => {
                    if let Some(Message::Event { rv, line }) = Message::decode(&m) {
                        match rv {
                            Some(rv) if rv <= self.last => {}
                            Some(rv) => {
                                self.last = rv;
                                self.pending.push_back(line);
                            }
                            None => self.pending.push_back(line),
                        }
                    }
                }
                Poll::Ready(None) => {
                    ended = true;
                    break;
                }
                Poll::Pending => break,
            }
        }
        ended
    }

    /// Opens the watch from this tab's version, the lock now its own.
    fn take_over(&mut self, guard: LockGuard) {
        let Some(request) = self.request.take() else {
            return;
        };
        let again = from_version(&request, self.last);
        let inner = self.inner.clone();
        self.switching = Some((
            async move { inner.stream(again).await }.boxed_local(),
            guard,
        ));
    }

    fn pending_chunk(&mut self) -> Option<Vec<u8>> {
        if self.pending.is_empty() {
            return None;
        }
        let mut chunk = Vec::new();
        for line in self.pending.drain(..) {
            chunk.extend_from_slice(line.as_bytes());
            chunk.push(b'\n');
        }
        Some(chunk)
    }
}

impl<T: Transport + 'static> Stream for Follow<T> {
    type Item = Result<Vec<u8>, TransportError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(h) = self.holding.as_mut() {
            return h.poll_next_unpin(cx);
        }
        let ended = self.drain(cx);
        if let Some(chunk) = self.pending_chunk() {
            return Poll::Ready(Some(Ok(chunk)));
        }
        if let Some((opening, _)) = self.switching.as_mut() {
            let Poll::Ready(answer) = opening.poll_unpin(cx) else {
                return Poll::Pending;
            };
            let (_, guard) = self.switching.take().expect("switching");
            return match answer {
                Ok(r) if r.status().is_success() => {
                    let listener = std::mem::replace(
                        &mut self.listener,
                        futures::stream::pending().boxed_local(),
                    );
                    let ring = Ring::new(self.last);
                    let hold = Hold::new(
                        self.post.clone(),
                        &self.channel,
                        guard,
                        listener,
                        ring,
                        &self.rings,
                    );
                    let mut share = self.share.clone();
                    share.set(Role::Holding {
                        answered: 0,
                        took_over: true,
                    });
                    self.holding = Some(hold.holding(r.into_body(), Some(share)));
                    self.poll_next(cx)
                }
                // The watch could not be opened from here: end, so the
                // reflector opens it again and meets the failure itself.
                _ => Poll::Ready(None),
            };
        }
        if ended {
            return Poll::Ready(None);
        }
        if let Some(wait) = self.wait.as_mut()
            && let Poll::Ready(guard) = wait.poll_unpin(cx)
        {
            self.wait = None;
            // What the holder posted before it went is taken in first.
            self.drain(cx);
            self.take_over(guard);
            return self.poll_next(cx);
        }
        Poll::Pending
    }
}
