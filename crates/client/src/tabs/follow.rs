//! A follower's side of a shared watch: the holder's events after this
//! tab's version, as the server would have sent them, and the watch itself
//! once the lock comes to this tab.

use std::collections::VecDeque;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use futures::future::LocalBoxFuture;
use futures::stream::LocalBoxStream;
use futures::{FutureExt, Stream, StreamExt};

use super::hold::{Hold, Holding};
use super::key::from_version;
use super::ring::Ring;
use super::share::ShareToken;
use super::wire::Message;
use super::{LockGuard, Post, Rings, Role};
use crate::transport::{ByteStream, Request, Transport, TransportError};

/// A followed watch's body: the holder's events after this tab's version,
/// as the server would have sent them; the watch itself once the lock
/// comes to this tab.
pub(super) struct Follow<T> {
    pub(super) pending: VecDeque<String>,
    /// The version this tab's reflector has been handed.
    pub(super) last: u64,
    pub(super) listener: LocalBoxStream<'static, String>,
    /// The lock, asked for; granted when the holder goes.
    pub(super) wait: Option<LocalBoxFuture<'static, LockGuard>>,
    pub(super) request: Option<Request>,
    pub(super) inner: Rc<T>,
    pub(super) post: Post,
    pub(super) channel: String,
    pub(super) rings: Rings,
    /// The watch opened by this tab, on its way.
    pub(super) switching: Option<Switching>,
    pub(super) holding: Option<Holding>,
    pub(super) share: ShareToken,
    /// Catch-ups asked of this tab while it was opening the watch,
    /// answered once it is open.
    pub(super) asked: Vec<String>,
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
                Poll::Ready(Some(m)) => match Message::decode(&m) {
                    Some(Message::Event { rv, line }) => match rv {
                        Some(rv) if rv <= self.last => {}
                        Some(rv) => {
                            self.last = rv;
                            self.pending.push_back(line);
                        }
                        None => self.pending.push_back(line),
                    },
                    // Another tab sees the lock held by this one now.
                    Some(Message::CatchUp { .. }) if self.switching.is_some() => {
                        self.asked.push(m);
                    }
                    _ => {}
                },
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
                    let mut holding = hold.holding(r.into_body(), Some(share));
                    for m in std::mem::take(&mut self.asked) {
                        holding.answer(&m);
                    }
                    self.holding = Some(holding);
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
