//! The holder's side of a shared watch: the server's answer for this
//! tab's reflector, each event posted to the others, catch-ups answered.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::stream::LocalBoxStream;
use futures::{FutureExt, Stream, StreamExt};

use super::ring::Ring;
use super::share::ShareToken;
use super::wire::{self, Message};
use super::{LockGuard, Post, RINGS_KEPT, Rings};
use crate::rest::watch::LineBuffer;
use crate::transport::{ByteStream, TransportError};

/// The holder's side of a watch: what it needs to relay events and answer
/// catch-ups, before its answer is in.
pub(super) struct Hold {
    post: Post,
    channel: String,
    guard: LockGuard,
    listener: LocalBoxStream<'static, String>,
    ring: Ring,
    rings: Rings,
}

impl Hold {
    pub(super) fn new(
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
    pub(super) fn over(self, answer: http::Response<ByteStream>) -> http::Response<ByteStream> {
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

    pub(super) fn holding(self, real: ByteStream, share: Option<ShareToken>) -> Holding {
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
pub(super) struct Holding {
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
    pub(super) fn answer(&mut self, message: &str) {
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
                    rings.retain(|(c, _)| *c != self.channel);
                    if rings.len() >= RINGS_KEPT {
                        rings.remove(0);
                    }
                    rings.push((self.channel.clone(), ring));
                }
                Poll::Ready(end)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
