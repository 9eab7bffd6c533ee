//! A failed `accept` (`EMFILE`: the process has no file descriptor left)
//! makes the door pause, not spin: in a process of its own, because it
//! lowers the process's limit on open files. Real sockets, the real
//! `serve::serve_with`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use kubectl_glass::serve::{self, Door, Limits};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// User and system CPU time of this whole process so far.
fn cpu_time() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    #[allow(unsafe_code)]
    let usage = unsafe {
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()), 0);
        usage.assume_init()
    };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Lowers this process's soft limit on open files to `n`.
fn limit_files(n: u64) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    #[allow(unsafe_code)]
    // SAFETY: plain system calls on a struct we own.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim), 0);
        lim.rlim_cur = n.min(lim.rlim_max);
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &lim), 0);
    }
}

fn ask(stream: &mut TcpStream, port: u16) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let req =
        format!("GET /{TOKEN} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    stream.write_all(req.as_bytes()).expect("write");
    let mut got = String::new();
    let _ = stream.read_to_string(&mut got);
    got.lines().next().unwrap_or_default().to_string()
}

#[test]
fn a_failed_accept_pauses_instead_of_spinning_and_serving_resumes() {
    // The door on a thread of its own, as the launcher runs it.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            let port = listener.local_addr().expect("addr").port();
            let door = Arc::new(Door {
                token: TOKEN.into(),
                host: format!("127.0.0.1:{port}"),
                port,
                mode: kubectl_glass::gate::Mode::new(false, true),
                upstream: kubectl_glass::upstream::Upstream::at(PathBuf::from(
                    "/nonexistent/proxy.sock",
                )),
                contexts: Default::default(),
                session: "{}".into(),
                csp: "default-src 'self'".into(),
                open_file: Mutex::new(None),
                haunted: Default::default(),
                store: kubectl_glass::store::Store::in_memory(),
                saved: kubectl_glass::saved::Saved::in_memory(),
                forwards: kubectl_glass::forward::Forwards::new(
                    "kubectl".into(),
                    None,
                    "test".into(),
                ),
            });
            tx.send(port).expect("send");
            serve::serve_with(vec![listener], door, Limits::default()).await;
        });
    });
    let port = rx.recv().expect("port");
    let mut first = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    assert_eq!(ask(&mut first, port), "HTTP/1.1 308 Permanent Redirect");
    drop(first);

    // Use up every file descriptor but one, then connect with that one:
    // the door's accept now fails with EMFILE for as long as we hold them.
    let open = std::fs::read_dir("/proc/self/fd").expect("fds").count() as u64;
    limit_files(open + 64);
    let mut fillers = Vec::new();
    while let Ok(f) = std::fs::File::open("/dev/null") {
        fillers.push(f);
    }
    fillers.pop();
    let mut waiting = TcpStream::connect(("127.0.0.1", port)).expect("connect");

    let before = cpu_time();
    std::thread::sleep(Duration::from_secs(1));
    let spent = cpu_time() - before;
    println!("CPU time while accept failed for 1 s: {spent:?}");
    assert!(
        spent < Duration::from_millis(250),
        "the door spun on a failed accept: {spent:?} of CPU in 1 s"
    );

    // Files come back: the waiting connection is served.
    drop(fillers);
    assert_eq!(ask(&mut waiting, port), "HTTP/1.1 308 Permanent Redirect");
}
