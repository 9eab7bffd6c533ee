//! A scripted `Duplex`: connections both ways (a shell's WebSocket) whose
//! events the test writes and whose messages it reads.
//!
//! Each `open` takes the next script: a fixed list of events
//! ([`FakeDuplex::script`]) or a channel the test feeds as it goes
//! ([`FakeDuplex::live`]); a connection opened with no script left ends at
//! once. Every open's path and offered subprotocols, and every message sent
//! on any connection, are recorded in order. A fake, not the real thing: the
//! e2e tests run shells through the real kubelet API.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures::StreamExt;
use futures::channel::mpsc;
use futures::stream::LocalBoxStream;
use kubeglass_client::transport::{Duplex, DuplexEvent, DuplexSender};

enum Script {
    Events(Vec<DuplexEvent>),
    Live(mpsc::UnboundedReceiver<DuplexEvent>),
}

#[derive(Default)]
struct Inner {
    scripts: RefCell<VecDeque<Script>>,
    opened: RefCell<Vec<(String, Vec<String>)>>,
    sent: RefCell<Vec<Vec<u8>>>,
    /// Beside `opened`: whether that connection's sender closed it.
    closed: RefCell<Vec<bool>>,
}

/// Scripted connections; clones share the scripts and the record.
#[derive(Clone, Default)]
pub struct FakeDuplex(Rc<Inner>);

impl FakeDuplex {
    /// No scripts yet: a connection opened now ends at once.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next connection opened gets `events`, then ends.
    pub fn script(&self, events: Vec<DuplexEvent>) {
        self.0
            .scripts
            .borrow_mut()
            .push_back(Script::Events(events));
    }

    /// The next connection opened gets what the test sends here, and ends
    /// when the sender is dropped.
    pub fn live(&self) -> mpsc::UnboundedSender<DuplexEvent> {
        let (tx, rx) = mpsc::unbounded();
        self.0.scripts.borrow_mut().push_back(Script::Live(rx));
        tx
    }

    /// Each open's path and offered subprotocols, in order.
    pub fn opened(&self) -> Vec<(String, Vec<String>)> {
        self.0.opened.borrow().clone()
    }

    /// Each open's path, in order.
    pub fn paths(&self) -> Vec<String> {
        self.0
            .opened
            .borrow()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// Every message sent, on any connection, in order.
    pub fn sent(&self) -> Vec<Vec<u8>> {
        self.0.sent.borrow().clone()
    }

    /// Whether the connection opened last was closed by its sender.
    pub fn closed(&self) -> bool {
        self.0.closed.borrow().last().copied().unwrap_or(false)
    }
}

/// One connection's sender: its messages go to the shared record, and once
/// closed it says so.
struct Sender {
    inner: Rc<Inner>,
    index: usize,
}

impl DuplexSender for Sender {
    fn send(&self, message: &[u8]) -> bool {
        self.inner.sent.borrow_mut().push(message.to_vec());
        !self.inner.closed.borrow()[self.index]
    }

    fn close(&self) {
        self.inner.closed.borrow_mut()[self.index] = true;
    }
}

impl Duplex for FakeDuplex {
    fn open(
        &self,
        path: &str,
        protocols: &[&str],
    ) -> (Rc<dyn DuplexSender>, LocalBoxStream<'static, DuplexEvent>) {
        let index = {
            let mut opened = self.0.opened.borrow_mut();
            opened.push((
                path.to_string(),
                protocols.iter().map(|p| p.to_string()).collect(),
            ));
            self.0.closed.borrow_mut().push(false);
            opened.len() - 1
        };
        let events = match self.0.scripts.borrow_mut().pop_front() {
            Some(Script::Events(events)) => futures::stream::iter(events).boxed_local(),
            Some(Script::Live(rx)) => rx.boxed_local(),
            None => futures::stream::empty().boxed_local(),
        };
        let sender = Sender {
            inner: self.0.clone(),
            index,
        };
        (Rc::new(sender), events)
    }
}

/// The connection opened, speaking `protocol`.
pub fn opened(protocol: &str) -> DuplexEvent {
    DuplexEvent::Open {
        protocol: protocol.into(),
    }
}

/// One exec-protocol message: `channel`'s byte, then `body`.
pub fn message(channel: u8, body: &[u8]) -> DuplexEvent {
    let mut m = vec![channel];
    m.extend_from_slice(body);
    DuplexEvent::Message(m)
}
