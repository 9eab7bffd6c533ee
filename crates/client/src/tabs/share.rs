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
        self.shares.borrow_mut().retain(|(n, _)| *n != self.n);
    }
}

impl ShareToken {
    pub(super) fn new(shares: &Shares, n: u64, what: String) -> Self {
        shares.borrow_mut().push((
            n,
            Share {
                what,
                role: Role::Alone("opening"),
            },
        ));
        Self(Rc::new(ShareEntry {
            shares: shares.clone(),
            n,
        }))
    }

    /// Changes this watch's row, if it is still there.
    fn with(&self, f: impl FnOnce(&mut Share)) {
        let mut shares = self.0.shares.borrow_mut();
        if let Some((_, s)) = shares.iter_mut().find(|(n, _)| *n == self.0.n) {
            f(s);
        }
    }

    pub(super) fn set(&mut self, role: Role) {
        self.with(|s| s.role = role);
    }

    pub(super) fn answered(&self) {
        self.with(|s| {
            if let Role::Holding { answered, .. } = &mut s.role {
                *answered += 1;
            }
        });
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
