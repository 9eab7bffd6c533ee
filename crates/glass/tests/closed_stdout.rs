//! `kubectl glass --no-open … | head -1`: the built launcher, run as a
//! person runs it, stops once its reader has gone, with kubectl killed and
//! its private folder removed.
//!
//! kubectl is a fake (a shell script that prints kubectl's view of one
//! context, says "Starting to serve on" and sleeps); this test answers
//! `/version` on the socket the launcher gave it. The real kubectl and
//! apiserver are in e2e/tests/launcher.test.mjs.
//!
//! The binary must carry the app (`make app` first): `make test` runs these
//! with `--ignored` once it has built dist/.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const FAKE_KUBECTL: &str = r#"#!/bin/sh
# A stand-in for kubectl: one context, and a proxy that says it serves.
here=$(dirname "$0")
case " $* " in
  *" config view "*)
    echo '{"contexts":[{"name":"fake","context":{"cluster":"nowhere"}}],"current-context":"fake"}'
    ;;
  *" proxy "*)
    for a in "$@"; do
      case "$a" in --unix-socket=*) echo "${a#--unix-socket=}" > "$here/socket.tmp" ;; esac
    done
    echo $$ > "$here/pid.tmp"
    mv "$here/pid.tmp" "$here/pid"
    mv "$here/socket.tmp" "$here/socket"
    echo "Starting to serve on $(cat "$here/socket")"
    exec sleep 300
    ;;
  *) exit 2 ;;
esac
"#;

/// A scratch folder with the fake kubectl in `bin/` and the launcher's
/// `TMPDIR` in `tmp/`.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("scratch");
        std::fs::create_dir(dir.path().join("bin")).expect("bin");
        std::fs::create_dir(dir.path().join("tmp")).expect("tmp");
        let kubectl = dir.path().join("bin/kubectl");
        std::fs::write(&kubectl, FAKE_KUBECTL).expect("write kubectl");
        std::fs::set_permissions(&kubectl, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        Self { dir }
    }

    fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }
}

/// Polls `cond` every 20 ms for up to `limit`.
fn until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

/// Answers `GET /version` on the socket the fake kubectl was given, as
/// kubectl proxy would, until the test ends.
fn serve_version(scratch: &Scratch) {
    let named = scratch.path("bin/socket");
    assert!(
        until(Duration::from_secs(20), || named.exists()),
        "the fake kubectl was never asked to serve"
    );
    let socket = std::fs::read_to_string(&named).expect("socket path");
    let listener = UnixListener::bind(socket.trim()).expect("bind kubectl's socket");
    std::thread::spawn(move || {
        for mut conn in listener.incoming().map_while(Result::ok) {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && conn.read_exact(&mut byte).is_ok() {
                head.push(byte[0]);
            }
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
            );
        }
    });
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn launch(scratch: &Scratch) -> Child {
    assert!(
        kubectl_glass::assets::embedded(),
        "this build has no app inside (dist/ was empty when it was compiled): run `make app` first"
    );
    Command::new(env!("CARGO_BIN_EXE_kubectl-glass"))
        .arg("--kubectl")
        .arg(scratch.path("bin/kubectl"))
        .args(["--no-open", "--port", &free_port().to_string()])
        .env("TMPDIR", scratch.path("tmp"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kubectl-glass")
}

fn alive(pid: &str) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        })
}

type Stdout = BufReader<std::process::ChildStdout>;

/// Runs the launcher twice, lets `read` take what it wants of its stdout,
/// and closes the reader: at once (a later write of the heading may fail)
/// and after a while (the heading is all written, no write fails). Checks
/// each time that everything stops and nothing stays behind.
fn reader_leaves(read: impl Fn(&mut Stdout) -> String) {
    for linger in [Duration::ZERO, Duration::from_millis(300)] {
        reader_leaves_after(&read, linger);
    }
}

fn reader_leaves_after(read: impl Fn(&mut Stdout) -> String, linger: Duration) {
    let scratch = Scratch::new();
    let mut child = launch(&scratch);
    serve_version(&scratch);
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let got = read(&mut out);
    assert!(!got.is_empty(), "the launcher printed nothing");
    std::thread::sleep(linger);
    drop(out);
    let exited = until(Duration::from_secs(10), || {
        child.try_wait().ok().flatten().is_some()
    });
    if !exited {
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
    }
    let status = child.wait().expect("wait");
    let mut stderr = String::new();
    let _ = child
        .stderr
        .take()
        .map(|mut e| e.read_to_string(&mut stderr));
    assert!(
        exited,
        "still running 10 s after its reader left {linger:?} after reading {got:?}; stderr: {stderr}"
    );
    assert!(!status.success(), "{status}");
    assert!(
        stderr.contains("standard output is closed; stopping"),
        "{stderr}"
    );
    let pid = std::fs::read_to_string(scratch.path("bin/pid")).expect("kubectl's pid");
    assert!(
        until(Duration::from_secs(5), || !alive(pid.trim())),
        "kubectl proxy (pid {pid}) outlived the launcher"
    );
    let tmp = scratch.path("tmp");
    let left = || std::fs::read_dir(&tmp).map_or(0, |d| d.count());
    assert!(
        until(Duration::from_secs(5), || left() == 0),
        "the private folder stayed: {:?}",
        std::fs::read_dir(&tmp).map(|d| d
            .map_while(Result::ok)
            .map(|e| e.path())
            .collect::<Vec<_>>())
    );
}

#[test]
#[ignore = "needs the app inside the binary: make test runs it after building dist/"]
fn a_reader_that_leaves_after_the_first_line_stops_the_launcher() {
    reader_leaves(|out| {
        let mut line = String::new();
        out.read_line(&mut line).expect("a line");
        line
    });
}

#[test]
#[ignore = "needs the app inside the binary: make test runs it after building dist/"]
fn a_reader_that_leaves_after_the_first_byte_stops_the_launcher() {
    reader_leaves(|out| {
        let mut byte = [0u8; 1];
        out.get_mut().read_exact(&mut byte).expect("a byte");
        String::from_utf8_lossy(&byte).into_owned()
    });
}
