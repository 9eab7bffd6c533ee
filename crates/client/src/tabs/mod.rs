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
use std::rc::Rc;
use std::time::Duration;

use futures::future::{Either, LocalBoxFuture};
use futures::stream::LocalBoxStream;
use futures::{FutureExt, StreamExt};

use crate::clock::Clock;
use crate::transport::{ByteStream, Request, Transport, TransportError};

mod follow;
mod hold;
mod key;
pub mod ring;
mod share;
pub mod wire;

use follow::Follow;
use hold::Hold;
use key::Key;
use ring::Ring;
use share::ShareToken;
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

/// The watches open now, by number (a few: a Vec, not a map).
type Shares = Rc<RefCell<Vec<(u64, Share)>>>;

/// The rings of watches this tab held until the server ended them, by
/// channel: its reflector opens each again at once, from where it got to,
/// and the ring goes on (followers behind it still catch up).
type Rings = Rc<RefCell<Vec<(String, Ring)>>>;

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
        self.shares
            .borrow()
            .iter()
            .map(|(_, s)| s.clone())
            .collect()
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
            let kept = {
                let mut rings = self.rings.borrow_mut();
                let at = rings.iter().position(|(c, _)| *c == key.channel);
                at.map(|i| rings.swap_remove(i).1)
            };
            let ring = match kept {
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
                    asked: Vec::new(),
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
