//! `kubectl glass`: see the crate docs in lib.rs and the README.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use kubectl_glass::kubeconfig::{Context, parse_view, session_for};
use kubectl_glass::launch_error::LaunchError;
use kubectl_glass::open::{has_display, write_redirect};
use kubectl_glass::orphan::watchdog;
use kubectl_glass::ready::ready_problem;
use kubectl_glass::serve::{self, Door};
use kubectl_glass::signals::Stop;
use kubectl_glass::store::{self, Store};
use kubectl_glass::{assets, port, proxy, say, stdout};

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
    /// The proxy refuses every write (POST, PUT, PATCH, DELETE); the app offers no actions and no shell.
    #[arg(long)]
    read_only: bool,
    /// Never open a shell in a container (pods/<name>/exec), even where RBAC allows it.
    #[arg(long)]
    no_exec: bool,
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
    let mode = kubectl_glass::gate::Mode::new(args.read_only, args.no_exec);
    let spec = proxy::Spec {
        kubectl: args.kubectl.clone(),
        kubeconfig: args.kubeconfig.clone(),
        context: context.name.clone(),
        socket: proxy::socket_in(folder),
        read_only: args.read_only,
        exec: mode.exec,
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
        mode,
        socket: spec.socket.clone(),
        session: session_for(context, mode).to_json(),
        csp,
        open_file: Mutex::new(None),
        haunted: Default::default(),
        saved: open_saved(&context.name, store.file().is_some()),
        store,
        forwards: kubectl_glass::forward::Forwards::new(
            args.kubectl.clone(),
            args.kubeconfig.clone(),
            context.name.clone(),
        ),
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

/// `context`'s saved tables beside its store (for this run only when the
/// store has no file).
fn open_saved(context: &str, on_disk: bool) -> kubectl_glass::saved::Saved {
    use kubectl_glass::saved::Saved;
    match store::state_home() {
        Some(state) if on_disk => Saved::open(&store::folder(&state), context),
        _ => Saved::in_memory(),
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
