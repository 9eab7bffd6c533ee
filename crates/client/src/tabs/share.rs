//! This tab's part in each open watch, kept for the X-ray page while the
//! watch is open.

use std::rc::Rc;

use futures::StreamExt;

use super::{Role, Share, Shares};
use crate::transport::{ByteStream, TransportError};

/// Keeps one watch's row in [`SharedWatches::shares`] while it is open.
#[derive(Clone)]
pub(super) struct ShareToken(Rc<ShareEntry>);

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
    pub(super) fn new(shares: &Shares, n: u64, what: String) -> Self {
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

    pub(super) fn set(&mut self, role: Role) {
        if let Some(s) = self.0.shares.borrow_mut().get_mut(&self.0.n) {
            s.role = role;
        }
    }

    pub(super) fn answered(&self) {
        if let Some(Share {
            role: Role::Holding { answered, .. },
            ..
        }) = self.0.shares.borrow_mut().get_mut(&self.0.n)
        {
            *answered += 1;
        }
    }

    /// The answer, its body keeping the row until it is dropped.
    pub(super) fn wrap(
        self,
        answer: Result<http::Response<ByteStream>, TransportError>,
    ) -> Result<http::Response<ByteStream>, TransportError> {
        answer.map(|r| self.wrap_ok(r))
    }

    pub(super) fn wrap_ok(self, answer: http::Response<ByteStream>) -> http::Response<ByteStream> {
        answer.map(|body| {
            let token = self;
            Box::pin(body.map(move |c| {
                let _ = &token;
                c
            })) as ByteStream
        })
    }
}
