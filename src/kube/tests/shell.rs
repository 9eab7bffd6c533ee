//! A shell against scripted connections: the size is sent as it opens,
//! output reaches the screen once per frame, keys reach stdin, and a
//! container without `/bin/bash` gets `/bin/sh`.

use std::collections::VecDeque;

use futures::StreamExt;
use futures::stream::LocalBoxStream;
use kubeglass_client::transport::{Duplex, DuplexEvent, DuplexSender};

use super::*;
use crate::kube::subscribe::shell::{Shell, ShellState, Target};
use crate::rules::terminal::shell::Choice;

/// Connections the test scripts: each `open` takes the next script's
/// events, and records its path and every message sent on it.
#[derive(Clone, Default)]
pub(super) struct Shells {
    scripts: Rc<RefCell<VecDeque<Vec<DuplexEvent>>>>,
    opened: Rc<RefCell<Vec<String>>>,
    sent: Rc<RefCell<Vec<Vec<u8>>>>,
}

struct Sent(Rc<RefCell<Vec<Vec<u8>>>>);

impl DuplexSender for Sent {
    fn send(&self, m: &[u8]) -> bool {
        self.0.borrow_mut().push(m.to_vec());
        true
    }
    fn close(&self) {}
}

impl Duplex for Shells {
    fn open(
        &self,
        path: &str,
        _: &[&str],
    ) -> (Rc<dyn DuplexSender>, LocalBoxStream<'static, DuplexEvent>) {
        self.opened.borrow_mut().push(path.to_string());
        let events = self.scripts.borrow_mut().pop_front().unwrap_or_default();
        (
            Rc::new(Sent(self.sent.clone())),
            futures::stream::iter(events).boxed_local(),
        )
    }
}

fn frame(channel: u8, body: &[u8]) -> DuplexEvent {
    let mut m = vec![channel];
    m.extend_from_slice(body);
    DuplexEvent::Message(m)
}

fn open() -> DuplexEvent {
    DuplexEvent::Open {
        protocol: "v5.channel.k8s.io".into(),
    }
}

fn target() -> Target {
    Target {
        namespace: "shop".into(),
        pod: "web-1".into(),
        container: Some("app".into()),
    }
}

#[test]
fn the_size_goes_first_output_is_drawn_once_per_frame_and_the_end_is_said() {
    let mut rig = rig();
    rig.shells.scripts.borrow_mut().push_back(vec![
        open(),
        frame(1, b"$ "),
        frame(1, b"42\r\n"),
        frame(3, br#"{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#),
    ]);
    let shell = Shell::open(&rig.kube, target(), Choice::Auto(0), (24, 80));
    rig.run();
    assert_eq!(
        shell.drawn.get_untracked(),
        0,
        "nothing drawn before the frame"
    );
    rig.frame();
    assert_eq!(shell.drawn.get_untracked(), 1, "one draw for both pieces");
    assert_eq!(shell.terminal.borrow().text(), "$ 42");
    assert_eq!(
        shell.state.get_untracked(),
        ShellState::Ended("exited with status 3".into())
    );
    assert_eq!(
        rig.shells.sent.borrow()[0],
        b"\x04{\"Width\":80,\"Height\":24}".to_vec()
    );
    assert!(rig.shells.opened.borrow()[0].contains("container=app&command=%2Fbin%2Fbash&"));
}

#[test]
fn a_container_without_bash_gets_sh_and_a_resize_reaches_the_screen() {
    let mut rig = rig();
    let missing = br#"{"status":"Failure","reason":"InternalError","message":"cmd start: /bin/bash : fork/exec /bin/bash: no such file or directory"}"#;
    rig.shells.scripts.borrow_mut().extend([
        vec![open(), frame(3, missing)],
        vec![open(), frame(1, b"# ")],
    ]);
    let shell = Shell::open(&rig.kube, target(), Choice::Auto(0), (10, 40));
    rig.frame();
    let opened = rig.shells.opened.borrow().clone();
    assert_eq!(opened.len(), 2);
    assert!(opened[1].contains("command=%2Fbin%2Fsh&"), "{opened:?}");
    assert!(
        shell
            .terminal
            .borrow()
            .text()
            .contains("/bin/bash is not in this container; trying /bin/sh")
    );
    assert_eq!(
        shell.state.get_untracked(),
        ShellState::Lost("the connection ended without a word".into()),
        "the script's second connection ends without a status"
    );
    shell.resize(12, 50);
    assert_eq!(shell.terminal.borrow().size(), (12, 50));
}

#[test]
fn a_shell_that_never_opens_says_why() {
    let mut rig = rig();
    rig.shells
        .scripts
        .borrow_mut()
        .push_back(vec![DuplexEvent::Closed {
            code: 1006,
            reason: String::new(),
            opened: false,
        }]);
    let shell = Shell::open(
        &rig.kube,
        target(),
        Choice::Typed(vec!["top".into()]),
        (10, 40),
    );
    rig.frame();
    assert!(
        matches!(shell.state.get_untracked(), ShellState::Lost(w) if w.contains("could not be opened")),
    );
    let bad = Shell::open(
        &rig.kube,
        Target {
            pod: "../x".into(),
            ..target()
        },
        Choice::Auto(0),
        (10, 40),
    );
    rig.frame();
    assert!(matches!(bad.state.get_untracked(), ShellState::Lost(w) if w.contains("not a shell")));
    assert_eq!(
        rig.shells.opened.borrow().len(),
        1,
        "nothing opened for a bad name"
    );
}
