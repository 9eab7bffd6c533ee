//! `kubectl glass`: see the crate docs in lib.rs and the README.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use clap::Parser;
use kubectl_glass::kubeconfig::{Context, parse_view, session_for};
use kubectl_glass::port;
use kubectl_glass::serve::{self, Door};
use kubectl_glass::store::{self, Store};
use kubectl_glass::{assets, proxy, say, stdout};
use tokio::signal::unix::{SignalKind, signal};

/// Kubeglass, the live Kubernetes dashboard, for a kubeconfig context: starts
/// your kubectl proxy under a random token and opens the app.
#[derive(Debug, Parser)]
#[command(name = "kubectl glass", version)]
struct Args {
    /// The kubeconfig context (default: the current context).
    #[arg(long)]
    context: Option<String>,
    /// The kubeconfig file (default: kubectl's own choice, KUBECONFIG or ~/.kube/config).
    #[arg(long)]
    kubeconfig: Option<PathBuf>,
    /// Open this namespace's pods.
    #[arg(short = 'n', long)]
    namespace: Option<String>,
    /// Listen on this port, on 127.0.0.1 and [::1] (default: any free one).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    port: Option<u16>,
    /// Print the URL, do not open a browser.
    #[arg(long)]
    no_open: bool,
    /// The proxy refuses every write (POST, PUT, PATCH, DELETE); the app offers no actions.
    #[arg(long)]
    read_only: bool,
    /// The kubectl to run.
    #[arg(long, default_value = "kubectl")]
    kubectl: PathBuf,
    /// One proxy per context of the kubeconfig; prints a table and opens nothing.
    #[arg(long, conflicts_with_all = ["context", "port", "namespace"])]
    all_contexts: bool,
}

/// A running proxy and the door in front of it.
struct Running {
    context: Context,
    /// The URL of the app (the token is in it).
    url: String,
    /// kubectl, stopped when this is dropped.
    child: proxy::Proxy,
    /// The door's task: aborted when the run ends.
    door: tokio::task::JoinHandle<()>,
    /// What the door knows (the redirect file to remove).
    shared: Arc<Door>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("kubectl-glass: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Why the launcher could not start, in words for the terminal.
#[derive(Debug, thiserror::Error)]
enum LaunchError {
    /// `-n` is not a namespace name.
    #[error("-n: {0}")]
    Namespace(#[from] kubeglass_client::names::NameError),
    /// `--kubeconfig` names no file.
    #[error("--kubeconfig {}: no such file", .0.display())]
    NoKubeconfig(PathBuf),
    /// kubectl could not be run at all.
    #[error("cannot run {}: {source}", kubectl.display())]
    Kubectl {
        /// The kubectl asked for.
        kubectl: PathBuf,
        /// Why it did not run.
        source: std::io::Error,
    },
    /// kubectl's view of the kubeconfig did not read.
    #[error("{0}")]
    Kubeconfig(String),
    /// `--all-contexts` with a kubeconfig that has none.
    #[error("the kubeconfig has no contexts")]
    NoContexts,
    /// No `--context` and no current context.
    #[error("the kubeconfig has no current context: pass --context")]
    NoCurrentContext,
    /// Ctrl-C, SIGTERM or SIGHUP cannot be caught, or the async runtime
    /// did not start, so the proxies could outlive us.
    #[error("cannot handle signals: {0}")]
    Signals(std::io::Error),
    /// This binary has no app inside (built before `make app`).
    #[error(
        "this kubectl-glass was built without the app (dist/ was empty): build it with `make install`"
    )]
    NoApp,
    /// Standard output is closed (`kubectl glass | head -0`): a write failed.
    #[error("standard output is closed; stopping")]
    Stdout(std::io::Error),
    /// Standard output's reader has gone since (`kubectl glass | head -1`).
    #[error("standard output is closed; stopping")]
    StdoutGone,
    /// The private folder for the run could not be made or filled.
    #[error("{}: {source}", path.display())]
    Folder {
        /// The folder or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No port could be bound for a context.
    #[error("cannot listen on 127.0.0.1 and [::1]: {0}")]
    NoPort(std::io::Error),
    /// No randomness for the capability token.
    #[error("{0}")]
    Token(#[from] proxy::NoRandomness),
    /// Every context failed to start (with `--all-contexts`).
    #[error("no context could be started")]
    NoneStarted,
}

/// Starts a proxy and a door per context, says where the app is, and
/// waits for Ctrl-C, SIGTERM or SIGHUP (or a proxy that exits by itself);
/// the proxies and the private folder go when it returns, whichever way.
/// Everything runs on this thread: kubectl's parent-death signal follows
/// the thread that started it.
fn run(args: &Args) -> Result<ExitCode, LaunchError> {
    check_args(args)?;
    if !assets::embedded() {
        return Err(LaunchError::NoApp);
    }
    let contexts = match contexts(args)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(LaunchError::Signals)?;
    runtime.block_on(run_doors(args, &contexts))
}

async fn run_doors(args: &Args, contexts: &[Context]) -> Result<ExitCode, LaunchError> {
    let mut stop = Stop::new()?;
    // One private folder for this run (mode 0700), removed when it ends.
    // Declared before the proxies, so it is removed after they are stopped.
    let dir = tempfile::Builder::new()
        .prefix("kubectl-glass-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|source| LaunchError::Folder {
            path: std::env::temp_dir(),
            source,
        })?;
    let _watchdog = watchdog(dir.path());
    let (mut proxies, failed) = match start_all(args, contexts, dir.path(), &mut stop).await? {
        Started::Running { proxies, failed } => (proxies, failed),
        Started::Exit(code) => return Ok(code),
    };
    announce(args, &proxies, &failed, dir.path())?;
    let code = wait_until_stopped(&mut stop, &mut proxies).await;
    drop(proxies);
    drop(dir);
    Ok(code)
}

/// The flags that can be checked before kubectl runs.
fn check_args(args: &Args) -> Result<(), LaunchError> {
    if let Some(ns) = &args.namespace {
        kubeglass_client::names::validate_namespace(ns)?;
    }
    match &args.kubeconfig {
        Some(k) if !k.is_file() => Err(LaunchError::NoKubeconfig(k.clone())),
        _ => Ok(()),
    }
}

/// Ctrl-C, SIGTERM and SIGHUP, caught.
struct Stop(Vec<tokio::signal::unix::Signal>);

impl Stop {
    fn new() -> Result<Self, LaunchError> {
        [
            SignalKind::interrupt(),
            SignalKind::terminate(),
            SignalKind::hangup(),
        ]
        .into_iter()
        .map(|k| signal(k).map_err(LaunchError::Signals))
        .collect::<Result<_, _>>()
        .map(Self)
    }

    /// Resolves when any of them arrives.
    async fn wait(&mut self) {
        let [a, b, c] = &mut self.0[..] else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = a.recv() => {}
            _ = b.recv() => {}
            _ = c.recv() => {}
        }
    }

    /// True when one has arrived already.
    fn came(&mut self) -> bool {
        use std::task::{Context, Poll};
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        self.0
            .iter_mut()
            .any(|s| matches!(s.poll_recv(&mut cx), Poll::Ready(_)))
    }
}

/// A process that removes `dir` when the launcher is gone, however it
/// went (SIGKILL, an abort): it waits for its stdin, a pipe only the
/// launcher holds, to close. After a normal exit the folder is gone
/// already and it only ends.
fn watchdog(dir: &Path) -> Option<(Child, ChildStdin)> {
    let mut child = Command::new("/bin/sh")
        .args(["-c", "read _; rm -rf -- \"$1\"", "kubectl-glass-watchdog"])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdin = child.stdin.take()?;
    Some((child, stdin))
}

/// What starting the proxies came to.
enum Started {
    /// At least one proxy serves; `failed` names the contexts that did not start.
    Running {
        proxies: Proxies,
        failed: Vec<String>,
    },
    /// Stop now with this code (a proxy failed without `--all-contexts`, or
    /// a signal came while starting).
    Exit(ExitCode),
}

/// Starts one proxy per context, each with its own folder and port.
async fn start_all(
    args: &Args,
    contexts: &[Context],
    dir: &Path,
    stop: &mut Stop,
) -> Result<Started, LaunchError> {
    let mut proxies = Proxies::default();
    let mut failed = Vec::new();
    for (i, context) in contexts.iter().enumerate() {
        match start_one(args, context, &dir.join(format!("app-{i}"))).await? {
            Ok(running) => proxies.0.push(running),
            Err((problem, status)) => {
                if !args.all_contexts {
                    eprintln!("kubectl-glass: {problem}");
                    return Ok(Started::Exit(status.map_or(ExitCode::FAILURE, exit_code)));
                }
                eprintln!("kubectl-glass: {problem}; starting the others");
                failed.push(context.name.clone());
            }
        }
        if stop.came() {
            // Stopped while starting: print nothing, open nothing.
            return Ok(Started::Exit(ExitCode::SUCCESS));
        }
    }
    if proxies.0.is_empty() {
        return Err(LaunchError::NoneStarted);
    }
    Ok(Started::Running { proxies, failed })
}

/// Binds a port on both loopbacks (so it is ours before anything is
/// sent), opens the context's store, starts its kubectl proxy on a socket
/// in `folder`, and opens the door once kubectl answers;
/// `Ok(Err((why, status)))` when that proxy did not come up (it has been
/// stopped).
async fn start_one(
    args: &Args,
    context: &Context,
    folder: &Path,
) -> Result<Result<Running, (String, Option<std::process::ExitStatus>)>, LaunchError> {
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(folder)
        .map_err(|source| LaunchError::Folder {
            path: folder.to_path_buf(),
            source,
        })?;
    let (listeners, port) = port::bind(args.port).map_err(LaunchError::NoPort)?;
    let store = open_store(&context.name);
    // Everything that can fail is done before kubectl starts: from there
    // on no `?` can return and leave it running (its guard stops it anyway).
    let token = proxy::new_token()?;
    // A name nobody can have visited: a worker or storage planted on an
    // earlier origin (127.0.0.1:port, localhost:port, an earlier run's
    // name) never sees this run. 128 random bits, as the token.
    let host = format!("{}.localhost:{port}", proxy::new_token()?);
    let csp = assets::content_security_policy().ok_or(LaunchError::NoApp)?;
    let listeners = listeners
        .into_iter()
        .map(|l| {
            l.set_nonblocking(true)?;
            tokio::net::TcpListener::from_std(l)
        })
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(LaunchError::NoPort)?;
    let spec = proxy::Spec {
        kubectl: args.kubectl.clone(),
        kubeconfig: args.kubeconfig.clone(),
        context: context.name.clone(),
        socket: proxy::socket_in(folder),
        read_only: args.read_only,
    };
    let (mut child, serving) = spec.spawn().map_err(|source| LaunchError::Kubectl {
        kubectl: args.kubectl.clone(),
        source,
    })?;
    if let Some(p) = ready_problem(&mut child, &serving, &spec.socket, &context.name).await {
        return Ok(Err((p, child.stop())));
    }
    let url = format!("http://{host}/{token}/ui/");
    let door = Arc::new(Door {
        token,
        host,
        port,
        read_only: args.read_only,
        socket: spec.socket.clone(),
        session: session_for(context, args.read_only).to_json(),
        csp,
        open_file: Mutex::new(None),
        haunted: Default::default(),
        store,
    });
    let task = tokio::spawn(serve::serve_with(
        listeners,
        door.clone(),
        serve::Limits::default(),
    ));
    Ok(Ok(Running {
        context: context.clone(),
        url,
        child,
        door: task,
        shared: door,
    }))
}

/// `context`'s store in the user's state folder; for this run only (and
/// said so) when there is none or it cannot be made.
fn open_store(context: &str) -> Store {
    let Some(state) = store::state_home() else {
        eprintln!(
            "kubectl-glass: neither XDG_STATE_HOME nor HOME is set; the app's preferences last this run only"
        );
        return Store::in_memory();
    };
    match Store::open(&store::folder(&state), context) {
        Ok((s, note)) => {
            if let Some(n) = note {
                eprintln!("kubectl-glass: {n}");
            }
            s
        }
        Err(e) => {
            eprintln!(
                "kubectl-glass: {}: {e}; the app's preferences last this run only",
                store::folder(&state).display()
            );
            Store::in_memory()
        }
    }
}

/// Waits for kubectl to serve (see `wait_ready`); says what went wrong in
/// words for the terminal, or prints the cluster's odd answer and returns
/// `None`.
async fn ready_problem(
    child: &mut proxy::Proxy,
    serving: &mpsc::Receiver<()>,
    socket: &Path,
    name: &str,
) -> Option<String> {
    let name = say::quoted(name);
    match wait_ready(child, serving, socket, READY_LIMIT).await {
        Ok(200) => None,
        Ok(status) => {
            eprintln!(
                "kubectl-glass: context {name}: the cluster answered {status} to /version; the app will say more"
            );
            None
        }
        Err(NotReady::Exited(status)) => Some(format!(
            "kubectl proxy for context {name} exited ({status})"
        )),
        Err(NotReady::Timeout(what, t)) => Some(format!(
            "kubectl proxy for context {name} took longer than {t:?} {what}"
        )),
    }
}

/// How waiting for a proxy ended badly.
#[derive(Debug)]
enum NotReady {
    /// kubectl exited first, with this status.
    Exited(std::process::ExitStatus),
    /// It did not get that far within the time allowed.
    Timeout(&'static str, Duration),
}

/// Waits until kubectl says it serves on its socket, then until
/// `GET /version` gets any HTTP answer through it; returns that status. A
/// status other than 200 is the cluster's answer (unreachable,
/// unauthorized): the app shows it.
async fn wait_ready(
    child: &mut proxy::Proxy,
    serving: &mpsc::Receiver<()>,
    socket: &Path,
    limit: Duration,
) -> Result<u16, NotReady> {
    let start = Instant::now();
    let mut said = false;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(NotReady::Exited(status));
        }
        said = said || serving.try_recv().is_ok();
        if said && let Ok(status) = serve::version_status(socket).await {
            return Ok(status);
        }
        if start.elapsed() > limit {
            let what = if said {
                "to answer"
            } else {
                "to start serving"
            };
            return Err(NotReady::Timeout(what, limit));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Prints where the app is (a table with `--all-contexts`) and opens the
/// browser unless told not to, through a redirect file only this user can
/// read, so the token is in no command line. A closed stdout ends the run.
fn announce(
    args: &Args,
    proxies: &Proxies,
    failed: &[String],
    dir: &Path,
) -> Result<(), LaunchError> {
    let mut out = std::io::stdout().lock();
    if args.all_contexts {
        let ro = if args.read_only { " (read-only)" } else { "" };
        let started: Vec<(&str, &str)> = proxies
            .0
            .iter()
            .map(|r| (r.context.name.as_str(), r.url.as_str()))
            .collect();
        let text = format!(
            "{}Kubeglass{ro} for {} contexts. Ctrl-C stops them all.\nPrivate folder: {}\n",
            say::table(&started, failed),
            proxies.0.len(),
            dir.display()
        );
        return write!(out, "{text}")
            .and_then(|()| out.flush())
            .map_err(LaunchError::Stdout);
    }
    let fragment = args
        .namespace
        .as_ref()
        .map(|ns| format!("#/r/pods?ns={ns}"))
        .unwrap_or_default();
    let r = &proxies.0[0];
    let url = format!("{}{fragment}", r.url);
    let folder = dir.display().to_string();
    let heading = say::heading(
        args.read_only,
        &r.context.name,
        &r.context.cluster,
        &url,
        &folder,
    );
    write!(out, "{heading}")
        .and_then(|()| out.flush())
        .map_err(LaunchError::Stdout)?;
    if args.no_open {
        return Ok(());
    }
    if !has_display() {
        eprintln!("kubectl-glass: no display; open the URL above");
        return Ok(());
    }
    let file = dir.join("open.html");
    let opened = write_redirect(&file, &url).and_then(|()| {
        open::that_detached(&file)?;
        Ok(())
    });
    match opened {
        Ok(()) => {
            if let Ok(mut f) = r.shared.open_file.lock() {
                *f = Some(file);
            }
        }
        Err(e) => {
            let _ = std::fs::remove_file(&file);
            eprintln!("kubectl-glass: could not open a browser ({e}); open the URL above");
        }
    }
    Ok(())
}

/// A page that sends the browser to `url`, readable by this user only; the
/// door removes it once the app has been fetched.
fn write_redirect(file: &Path, url: &str) -> std::io::Result<()> {
    let href = url.replace('&', "&amp;").replace('"', "&quot;");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(file)?;
    writeln!(
        f,
        "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\"><meta http-equiv=\"refresh\" content=\"0;url={href}\"><title>Kubeglass</title><a href=\"{href}\">Open Kubeglass</a>"
    )
}

/// Waits for a signal, for a kubectl that exits by itself, or for the
/// reader of stdout to go (`| head -1`: it may leave after the last write,
/// so no write fails; `stdout` asks the kernel instead).
async fn wait_until_stopped(stop: &mut Stop, proxies: &mut Proxies) -> ExitCode {
    loop {
        tokio::select! {
            () = stop.wait() => return ExitCode::SUCCESS,
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
        }
        if stdout::reader_gone() {
            eprintln!("kubectl-glass: {}", LaunchError::StdoutGone);
            return ExitCode::FAILURE;
        }
        if let Some(r) = proxies.0.iter().find(|r| r.shared.haunted()) {
            eprintln!(
                "kubectl-glass: the page of context {} found a Service Worker on its address, which \
                 Kubeglass never registers: it may have seen this run's token. The page removed it; \
                 stopping, so the token ends with this run. Start kubectl glass again.",
                say::quoted(&r.context.name),
            );
            return ExitCode::from(3);
        }
        if let Some((name, status)) = proxies.0.iter_mut().find_map(|r| match r.child.try_wait() {
            Ok(Some(s)) => Some((say::quoted(&r.context.name), s)),
            _ => None,
        }) {
            eprintln!(
                "kubectl-glass: kubectl proxy for context {name} exited ({status}); stopping"
            );
            return ExitCode::FAILURE;
        }
    }
}

/// kubectl's view of the kubeconfig: kubectl prints its own errors (a bad
/// context, a broken kubeconfig) straight to the terminal.
fn contexts(args: &Args) -> Result<Result<Vec<Context>, ExitCode>, LaunchError> {
    let mut cmd = Command::new(&args.kubectl);
    if let Some(k) = &args.kubeconfig {
        cmd.arg(format!("--kubeconfig={}", k.display()));
    }
    if let Some(c) = &args.context {
        cmd.arg(format!("--context={c}"));
    }
    cmd.args(["config", "view", "-o", "json"]);
    if !args.all_contexts {
        cmd.arg("--minify");
    }
    let out = cmd
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|source| LaunchError::Kubectl {
            kubectl: args.kubectl.clone(),
            source,
        })?;
    if !out.status.success() {
        return Ok(Err(exit_code(out.status)));
    }
    let (all, current) =
        parse_view(&String::from_utf8_lossy(&out.stdout)).map_err(LaunchError::Kubeconfig)?;
    if args.all_contexts {
        if all.is_empty() {
            return Err(LaunchError::NoContexts);
        }
        return Ok(Ok(all));
    }
    let wanted = args.context.clone().or(current);
    let one = all
        .into_iter()
        .find(|c| Some(&c.name) == wanted.as_ref())
        .ok_or(LaunchError::NoCurrentContext)?;
    Ok(Ok(vec![one]))
}

fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    status
        .code()
        .and_then(|c| u8::try_from(c).ok())
        .filter(|c| *c != 0)
        .map_or(ExitCode::FAILURE, ExitCode::from)
}

fn has_display() -> bool {
    if cfg!(target_os = "macos") || cfg!(windows) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
}

/// The proxies started so far. Dropping it closes their doors, and each
/// `proxy::Proxy` stops its kubectl as it goes, so no early return leaves a
/// kubectl running after its folder is gone.
#[derive(Default)]
struct Proxies(Vec<Running>);

impl Drop for Proxies {
    fn drop(&mut self) {
        for r in &mut self.0 {
            r.door.abort();
        }
    }
}

/// How long a proxy may take to start serving, and then to get an answer
/// from the cluster (a credential plugin may be asking for a login).
const READY_LIMIT: Duration = Duration::from_secs(120);
