//! A shell against scripted connections: the size is sent as it opens,
//! output reaches the screen once per frame, keys reach stdin, and a
//! container without `/bin/bash` gets `/bin/sh`.

use kubeglass_client::transport::DuplexEvent;
use kubeglass_testing::duplex::{message as frame, opened};

use super::*;
use crate::kube::subscribe::shell::{Shell, ShellState, Target};
use crate::rules::terminal::shell::Choice;

fn open() -> DuplexEvent {
    opened("v5.channel.k8s.io")
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
    rig.shells.script(vec![
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
        rig.shells.sent()[0],
        b"\x04{\"Width\":80,\"Height\":24}".to_vec()
    );
    assert!(rig.shells.paths()[0].contains("container=app&command=%2Fbin%2Fbash&"));
}

#[test]
fn a_container_without_bash_gets_sh_and_a_resize_reaches_the_screen() {
    let mut rig = rig();
    let missing = br#"{"status":"Failure","reason":"InternalError","message":"cmd start: /bin/bash : fork/exec /bin/bash: no such file or directory"}"#;
    rig.shells.script(vec![open(), frame(3, missing)]);
    rig.shells.script(vec![open(), frame(1, b"# ")]);
    let shell = Shell::open(&rig.kube, target(), Choice::Auto(0), (10, 40));
    rig.frame();
    let opened = rig.shells.paths();
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
    rig.shells.script(vec![DuplexEvent::Closed {
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
    assert_eq!(rig.shells.paths().len(), 1, "nothing opened for a bad name");
}
