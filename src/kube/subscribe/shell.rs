//! A shell in a container: the exec connection (`remotecommand` over the
//! host's `Duplex`, the browser's WebSocket) feeding a `Terminal`, whose
//! view is redrawn once per animation frame; `/bin/sh` tried when the
//! container has no `/bin/bash`. Dropping the [`Shell`] closes it.

use std::cell::RefCell;
use std::rc::Rc;

use futures::StreamExt;
use futures::future::{AbortHandle, Abortable};
use kubeglass_client::remotecommand::{ExecEvent, ExecRequest, ExecSession, exec};
use kubeglass_web::FrameQueue;
use leptos::prelude::*;

use crate::kube::Kube;
use crate::rules::terminal::Terminal;
use crate::rules::terminal::shell::Choice;

/// Whose shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The pod's namespace.
    pub namespace: String,
    /// The pod.
    pub pod: String,
    /// The container (the server picks the only one without).
    pub container: Option<String>,
}

/// Where the shell stands, for the line above the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellState {
    /// Opening the connection (running this command).
    Connecting(String),
    /// Running this command; `v5` when the server speaks v5.
    Open {
        /// The command.
        command: String,
        /// `v5.channel.k8s.io` (else v4).
        v5: bool,
    },
    /// The command ended, in words (`exited with status 3`).
    Ended(String),
    /// The connection ended first, or never opened, in words.
    Lost(String),
}

/// A running shell: its screen, its state, and the person's side.
pub struct Shell {
    /// The screen, fed as output arrives.
    pub terminal: Rc<RefCell<Terminal>>,
    /// Where it stands.
    pub state: RwSignal<ShellState>,
    /// Bumped once per animation frame in which the screen changed. A count,
    /// not a `Trigger`: the native tests read it (one draw for output that
    /// came within one frame); the view only tracks it.
    pub drawn: RwSignal<u64>,
    session: Rc<RefCell<Option<ExecSession>>>,
    frames: FrameQueue<()>,
    abort: AbortHandle,
}

impl Drop for Shell {
    fn drop(&mut self) {
        self.abort.abort();
        if let Some(s) = self.session.borrow_mut().take() {
            s.close();
        }
    }
}

impl Shell {
    /// Opens `choice` in `target` on a screen of `rows` × `cols`.
    pub fn open(kube: &Kube, target: Target, choice: Choice, (rows, cols): (u16, u16)) -> Self {
        let terminal = Rc::new(RefCell::new(Terminal::new(rows, cols)));
        let drawn = RwSignal::new(0u64);
        let frames = kube.frame_queue("shell", move |_: Vec<()>| drawn.update(|n| *n += 1));
        let state = RwSignal::new(ShellState::Connecting(choice.command().join(" ")));
        let session = Rc::new(RefCell::new(None));
        let (abort, registration) = AbortHandle::new_pair();
        let run = Run {
            kube: kube.clone(),
            target,
            terminal: terminal.clone(),
            state,
            session: session.clone(),
            frames: frames.clone(),
        };
        kube.spawn(async move {
            let _ = Abortable::new(run.until_the_end(choice), registration).await;
        });
        Shell {
            terminal,
            state,
            drawn,
            session,
            frames,
            abort,
        }
    }

    /// Sends the person's keys; dropped when the shell is not open.
    pub fn write(&self, bytes: &[u8]) {
        self.terminal.borrow_mut().scroll_to_live();
        if let Some(s) = self.session.borrow().as_ref() {
            s.write(bytes);
        }
        self.frames.add(());
    }

    /// The screen's new size (the window changed).
    pub fn resize(&self, rows: u16, cols: u16) {
        if self.terminal.borrow().size() == (rows, cols) {
            return;
        }
        self.terminal.borrow_mut().resize(rows, cols);
        if let Some(s) = self.session.borrow().as_ref() {
            s.resize(cols, rows);
        }
        self.frames.add(());
    }

    /// Looks back (`delta` > 0) or forward through the scrollback.
    pub fn scroll(&self, delta: isize) {
        self.terminal.borrow_mut().scroll_by(delta);
        self.frames.add(());
    }
}

/// The task's share of a shell.
struct Run {
    kube: Kube,
    target: Target,
    terminal: Rc<RefCell<Terminal>>,
    state: RwSignal<ShellState>,
    session: Rc<RefCell<Option<ExecSession>>>,
    frames: FrameQueue<()>,
}

impl Run {
    /// Runs `choice`, then the next shell while the last was not found.
    async fn until_the_end(self, mut choice: Choice) {
        loop {
            let command = choice.command();
            let shown = command.join(" ");
            self.state.set(ShellState::Connecting(shown.clone()));
            let request = ExecRequest {
                namespace: self.target.namespace.clone(),
                pod: self.target.pod.clone(),
                container: self.target.container.clone(),
                command,
                tty: true,
            };
            let (session, mut events) = match exec(&*self.kube.host.duplex, &request) {
                Ok(pair) => pair,
                Err(e) => {
                    self.state.set(ShellState::Lost(format!(
                        "not a shell this app can open: {e}"
                    )));
                    return;
                }
            };
            *self.session.borrow_mut() = Some(session.clone());
            let mut printed = false;
            let mut last = None;
            while let Some(event) = events.next().await {
                match event {
                    ExecEvent::Opened { v5 } => {
                        let (rows, cols) = self.terminal.borrow().size();
                        session.resize(cols, rows);
                        self.state.set(ShellState::Open {
                            command: shown.clone(),
                            v5,
                        });
                    }
                    ExecEvent::Stdout(b) | ExecEvent::Stderr(b) => {
                        printed = true;
                        self.terminal.borrow_mut().feed(&b);
                        self.frames.add(());
                    }
                    ExecEvent::Ended(exit) => last = Some(exit),
                    ExecEvent::Lost(why) => {
                        self.state.set(ShellState::Lost(why));
                        *self.session.borrow_mut() = None;
                        return;
                    }
                }
            }
            *self.session.borrow_mut() = None;
            let Some(exit) = last else {
                self.state.set(ShellState::Lost(
                    "the connection ended without a word".into(),
                ));
                return;
            };
            match choice.next(&exit, printed) {
                Some(next) => {
                    let note = format!(
                        "{shown} is not in this container; trying {}\r\n",
                        next.command().join(" ")
                    );
                    self.terminal.borrow_mut().feed(note.as_bytes());
                    self.frames.add(());
                    choice = next;
                }
                None => {
                    self.state.set(ShellState::Ended(exit.describe()));
                    return;
                }
            }
        }
    }
}
