//! The exec protocol against a scripted connection: what is sent for each
//! key and size, and what each server message becomes.

use futures::StreamExt;
use futures::executor::block_on;
use kubeglass_client::remotecommand::{ExecEvent, ExecRequest, ExecSession, Exit, exec, exit_of};
use kubeglass_client::transport::DuplexEvent;
use kubeglass_testing::FakeDuplex;
use kubeglass_testing::duplex::{message as msg, opened as open};

fn request() -> ExecRequest {
    ExecRequest {
        namespace: "shop".into(),
        pod: "web-1".into(),
        container: Some("app".into()),
        command: vec!["/bin/sh".into(), "-c".into(), "echo a&b".into()],
        tty: true,
    }
}

/// Runs `events` through a session, after `act`; returns what the person
/// saw and the connections.
fn run(events: Vec<DuplexEvent>, act: impl FnOnce(&ExecSession)) -> (Vec<ExecEvent>, FakeDuplex) {
    let conn = FakeDuplex::new();
    let tx = conn.live();
    let (session, stream) = exec(&conn, &request()).expect("valid");
    act(&session);
    for e in events {
        tx.unbounded_send(e).expect("send");
    }
    drop(tx);
    (block_on(stream.collect::<Vec<_>>()), conn)
}

#[test]
fn the_path_names_the_container_and_each_part_of_the_command_encoded() {
    assert_eq!(
        request().path().expect("valid"),
        "/api/v1/namespaces/shop/pods/web-1/exec?container=app&command=%2Fbin%2Fsh&command=-c&command=echo%20a%26b&stdin=true&stdout=true&stderr=false&tty=true"
    );
    let plain = ExecRequest {
        container: None,
        tty: false,
        command: vec!["ls".into()],
        ..request()
    };
    assert!(
        plain
            .path()
            .expect("valid")
            .ends_with("exec?command=ls&stdin=true&stdout=true&stderr=true&tty=false")
    );
    for bad in [
        ExecRequest {
            pod: "../secrets".into(),
            ..request()
        },
        ExecRequest {
            namespace: "a/b".into(),
            ..request()
        },
        ExecRequest {
            container: Some("app?x=1".into()),
            ..request()
        },
    ] {
        assert!(bad.path().is_err(), "{bad:?}");
    }
}

#[test]
fn the_status_frame_says_how_the_command_ended() {
    assert_eq!(
        exit_of(br#"{"metadata":{},"status":"Success"}"#),
        Exit::Code(0)
    );
    let kubelet = br#"{"status":"Failure","reason":"NonZeroExitCode","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#;
    assert_eq!(exit_of(kubelet), Exit::Code(3));
    assert_eq!(Exit::Code(3).describe(), "exited with status 3");
    // kwok's kubelet API: no exit code, only its words.
    let kwok = br#"{"status":"Failure","message":"Internal error occurred: error executing command in container: cmd wait: /bin/bash : exit status 3","reason":"InternalError","code":500}"#;
    let e = exit_of(kwok);
    assert!(matches!(&e, Exit::Failed { reason, .. } if reason == "InternalError"));
    assert!(e.describe().ends_with("exit status 3"), "{}", e.describe());
    assert!(!e.not_found());
    let garbage = exit_of(b"<html>");
    assert!(
        garbage.describe().contains("not a Status: <html>"),
        "{}",
        garbage.describe()
    );
}

#[test]
fn a_missing_shell_is_told_apart_from_one_that_failed() {
    for words in [
        "cmd start: /bin/bash : fork/exec /bin/bash: no such file or directory",
        r#"OCI runtime exec failed: exec failed: unable to start container process: exec: "bash": executable file not found in $PATH: unknown"#,
    ] {
        let e = Exit::Failed {
            reason: "InternalError".into(),
            message: words.into(),
        };
        assert!(e.not_found(), "{words}");
    }
    assert!(!Exit::Code(127).not_found());
}

#[test]
fn keys_and_sizes_are_framed_and_output_and_the_end_come_back() {
    let (seen, conn) = run(
        vec![
            open("v5.channel.k8s.io"),
            DuplexEvent::Message(vec![]),
            msg(1, b"$ "),
            msg(2, b"warning"),
            msg(4, b"ignored"),
            msg(3, br#"{"status":"Success"}"#),
            msg(1, b"after the end"),
        ],
        |s| {
            assert!(s.resize(120, 40));
            assert!(s.write(b"ls\r"));
            assert!(!s.write(b""), "nothing is sent for nothing");
            assert!(!s.resize(0, 40));
        },
    );
    assert_eq!(
        seen,
        [
            ExecEvent::Opened { v5: true },
            ExecEvent::Stdout(b"$ ".to_vec()),
            ExecEvent::Stderr(b"warning".to_vec()),
            ExecEvent::Ended(Exit::Code(0)),
        ]
    );
    assert_eq!(
        conn.sent(),
        [
            br#"{"Width":120,"Height":40}"#.iter().fold(vec![4u8], |mut v, b| {
                v.push(*b);
                v
            }),
            b"\x00ls\r".to_vec()
        ]
    );
    assert!(
        conn.closed(),
        "the connection is closed once the command ended"
    );
    let (path, protocols) = conn.opened()[0].clone();
    assert!(path.starts_with("/api/v1/namespaces/shop/pods/web-1/exec?"));
    assert_eq!(protocols, ["v5.channel.k8s.io", "v4.channel.k8s.io"]);
}

#[test]
fn stdin_closes_only_in_v5() {
    let (seen, _) = run(vec![open("v4.channel.k8s.io")], |_| {});
    assert_eq!(seen[0], ExecEvent::Opened { v5: false });
    let conn = FakeDuplex::new();
    let tx = conn.live();
    let (session, mut stream) = exec(&conn, &request()).expect("valid");
    tx.unbounded_send(open("v4.channel.k8s.io")).expect("send");
    block_on(stream.next());
    assert!(!session.close_stdin(), "v4 cannot say it");
    let conn = FakeDuplex::new();
    let tx = conn.live();
    let (session, mut stream) = exec(&conn, &request()).expect("valid");
    tx.unbounded_send(open("v5.channel.k8s.io")).expect("send");
    block_on(stream.next());
    assert!(session.close_stdin());
    assert_eq!(conn.sent().last().expect("sent"), &vec![255u8, 0]);
}

#[test]
fn a_connection_that_never_opened_or_broke_says_so() {
    let (seen, _) = run(
        vec![DuplexEvent::Closed {
            code: 1006,
            reason: String::new(),
            opened: false,
        }],
        |_| {},
    );
    assert!(
        matches!(&seen[..], [ExecEvent::Lost(w)] if w.contains("could not be opened")),
        "{seen:?}"
    );
    let (seen, _) = run(
        vec![
            open("v4.channel.k8s.io"),
            msg(1, b"x"),
            DuplexEvent::Closed {
                code: 1006,
                reason: "gone".into(),
                opened: true,
            },
        ],
        |_| {},
    );
    assert!(
        matches!(seen.last(), Some(ExecEvent::Lost(w)) if w.contains("closed before the command ended (code 1006: gone)")),
        "{seen:?}"
    );
    let (seen, conn) = run(vec![open("")], |_| {});
    assert!(
        matches!(&seen[..], [ExecEvent::Lost(w)] if w.contains("not an exec protocol")),
        "{seen:?}"
    );
    assert!(conn.closed());
}
