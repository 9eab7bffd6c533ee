//! A command in a container, as client-go's `tools/remotecommand` runs one:
//! over one [`Duplex`] connection (a WebSocket) speaking the exec channel
//! protocol (`protocol`): the person's keys go to stdin, the terminal's
//! size to the resize channel, and stdout, stderr and how the command
//! ended come back as [`ExecEvent`]s.
//!
//! The crate does no I/O: the browser's WebSocket is `kubeglass-web`'s
//! `Duplex`, a scripted one stands in for it in tests.

mod protocol;

use std::cell::Cell;
use std::rc::Rc;

use futures::stream::{LocalBoxStream, StreamExt};

pub use protocol::{ExecRequest, Exit, Frame, PROTOCOLS, decode, exit_of};

use crate::names::NameError;
use crate::transport::{Duplex, DuplexEvent, DuplexSender};

/// What happens on a running command, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecEvent {
    /// The connection is open; `v5` when stdin can be closed.
    Opened {
        /// The server chose `v5.channel.k8s.io`.
        v5: bool,
    },
    /// Bytes of stdout (with a terminal, everything the command writes).
    Stdout(Vec<u8>),
    /// Bytes of stderr (without a terminal).
    Stderr(Vec<u8>),
    /// The command ended; nothing follows.
    Ended(Exit),
    /// The connection ended before the command did, or never opened, in
    /// words for the person; nothing follows.
    Lost(String),
}

/// The person's side of a running command. Dropping the event stream
/// closes the connection; so does [`ExecSession::close`].
#[derive(Clone)]
pub struct ExecSession {
    sender: Rc<dyn DuplexSender>,
    v5: Rc<Cell<bool>>,
}

impl ExecSession {
    /// Sends `bytes` to the command's stdin; false when the connection is
    /// not open.
    pub fn write(&self, bytes: &[u8]) -> bool {
        !bytes.is_empty() && self.sender.send(&protocol::stdin(bytes))
    }

    /// Tells the terminal its size in character cells.
    pub fn resize(&self, cols: u16, rows: u16) -> bool {
        cols > 0 && rows > 0 && self.sender.send(&protocol::resize(cols, rows))
    }

    /// Closes stdin (end of input), where the protocol can say it (v5);
    /// false where it cannot.
    pub fn close_stdin(&self) -> bool {
        self.v5.get() && self.sender.send(&protocol::close_stdin())
    }

    /// Closes the connection.
    pub fn close(&self) {
        self.sender.close();
    }
}

/// Where a session's events stand.
#[derive(Default)]
struct Progress {
    opened: bool,
    done: bool,
}

/// Starts `request` over `duplex`. An invalid name is an error before
/// anything is sent.
pub fn exec(
    duplex: &dyn Duplex,
    request: &ExecRequest,
) -> Result<(ExecSession, LocalBoxStream<'static, ExecEvent>), NameError> {
    let path = request.path()?;
    let (sender, events) = duplex.open(&path, &PROTOCOLS);
    let v5 = Rc::new(Cell::new(false));
    let session = ExecSession {
        sender: sender.clone(),
        v5: v5.clone(),
    };
    let stream = events
        .scan(Progress::default(), move |p, event| {
            if p.done {
                return futures::future::ready(None);
            }
            let out = step(p, event, &v5, &*sender);
            futures::future::ready(Some(out))
        })
        .filter_map(futures::future::ready)
        .boxed_local();
    Ok((session, stream))
}

/// One connection event as the person's event, if it is one.
fn step(
    p: &mut Progress,
    event: DuplexEvent,
    v5: &Cell<bool>,
    sender: &dyn DuplexSender,
) -> Option<ExecEvent> {
    match event {
        DuplexEvent::Open { protocol } => {
            p.opened = true;
            if !PROTOCOLS.contains(&protocol.as_str()) {
                p.done = true;
                sender.close();
                return Some(ExecEvent::Lost(format!(
                    "the server answered in {:?}, not an exec protocol this app speaks ({})",
                    protocol,
                    PROTOCOLS.join(", ")
                )));
            }
            v5.set(protocol == PROTOCOLS[0]);
            Some(ExecEvent::Opened { v5: v5.get() })
        }
        DuplexEvent::Message(m) => match decode(&m) {
            Frame::Stdout(b) => Some(ExecEvent::Stdout(b)),
            Frame::Stderr(b) => Some(ExecEvent::Stderr(b)),
            Frame::Ended(exit) => {
                p.done = true;
                sender.close();
                Some(ExecEvent::Ended(exit))
            }
            Frame::Nothing => None,
        },
        DuplexEvent::Closed {
            code,
            reason,
            opened,
        } => {
            p.done = true;
            let why = if reason.is_empty() {
                String::new()
            } else {
                format!(": {reason}")
            };
            Some(ExecEvent::Lost(if opened || p.opened {
                format!("the connection closed before the command ended (code {code}{why})")
            } else {
                "the shell could not be opened: the connection was refused (the pod or container may be gone or not running, or the launcher or RBAC refused it)".into()
            }))
        }
    }
}
