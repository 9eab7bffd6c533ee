//! `kubectl glass`: see the crate docs in lib.rs and the README.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use kubectl_glass::kubeconfig::{Context, Contexts, session_for};
use kubectl_glass::launch_error::LaunchError;
use kubectl_glass::open::{has_display, write_redirect};
use kubectl_glass::orphan::watchdog;
use kubectl_glass::serve::{self, Door};
use kubectl_glass::signals::Stop;
use kubectl_glass::store;
use kubectl_glass::upstream::Upstream;
use kubectl_glass::{assets, port, proxy, say, stdout};
use kubeglass_kubectl::session::Peer;

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
    /// Start every context's proxy now; prints a table of their URLs and opens nothing.
    #[arg(long, conflicts_with_all = ["context", "port", "namespace"])]
    all_contexts: bool,
    /// Stop a context's kubectl proxy after this many seconds without a
    /// request from any tab (0: never); the next request starts it again.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    proxy_idle: u64,
}

/// A context's door, and the proxy behind it.
struct Running {
    context: Context,
    /// The URL of the app (the token is in it).
    url: String,
    /// The door's task: aborted when the run ends.
    door: tokio::task::JoinHandle<()>,
    /// What the door knows (the redirect file to remove, the proxy).
    shared: Arc<Door>,
}

/// A context made ready to serve: its port bound, its names drawn, its
/// proxy described (and, for the ones opened at launch, started).
struct Slot {
    context: Context,
    listeners: Vec<std::net::TcpListener>,
    port: u16,
    token: String,
    host: String,
    upstream: Arc<Upstream>,
}

impl Slot {
    fn url(&self) -> String {
        format!("http://{}/{}/ui/", self.host, self.token)
    }
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
    let asked = kubectl_glass::kubeconfig::Asked {
        kubectl: &args.kubectl,
        kubeconfig: args.kubeconfig.as_deref(),
        context: args.context.as_deref(),
        all: args.all_contexts,
    };
    let contexts = match asked.contexts()? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(LaunchError::Signals)?;
    runtime.block_on(run_doors(args, &contexts))
}

async fn run_doors(args: &Args, contexts: &Contexts) -> Result<ExitCode, LaunchError> {
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
    let (proxies, failed) = match start_all(args, contexts, dir.path(), &mut stop).await? {
        Started::Running { proxies, failed } => (proxies, failed),
        Started::Exit(code) => return Ok(code),
    };
    announce(args, contexts, &proxies, &failed, dir.path())?;
    let code = wait_until_stopped(&mut stop, &proxies).await;
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
    /// At least one context serves; `failed` names the contexts that did
    /// not start (with `--all-contexts`).
    Running {
        proxies: Proxies,
        failed: Vec<String>,
    },
    /// Stop now with this code (the context to open did not start, or a
    /// signal came while starting).
    Exit(ExitCode),
}

/// Makes every context ready (a port, a token, a name, a folder), starts
/// the proxies opened at launch (the chosen context's, or with
/// `--all-contexts` every one), then opens a door per context. The others'
/// proxies start when a tab first asks.
async fn start_all(
    args: &Args,
    contexts: &Contexts,
    dir: &Path,
    stop: &mut Stop,
) -> Result<Started, LaunchError> {
    let idle = (args.proxy_idle > 0).then(|| Duration::from_secs(args.proxy_idle));
    let mut slots = Vec::new();
    for (i, context) in contexts.all.iter().enumerate() {
        let port = (contexts.opened == Some(i)).then_some(args.port).flatten();
        slots.push(prepare(
            args,
            context,
            &dir.join(format!("app-{i}")),
            port,
            idle,
        )?);
    }
    let mut failed = Vec::new();
    let mut kept = Vec::new();
    for (i, slot) in slots.into_iter().enumerate() {
        if contexts.opened.is_none_or(|o| o == i) {
            if let Err(why) = slot.upstream.start().await {
                if !args.all_contexts {
                    // `start` has told the terminal why.
                    return Ok(Started::Exit(ExitCode::FAILURE));
                }
                eprintln!(
                    "kubectl-glass: context {} did not start ({why}); starting the others",
                    say::quoted(&slot.context.name)
                );
                failed.push(slot.context.name.clone());
                continue;
            }
            if stop.came() {
                // Stopped while starting: print nothing, open nothing.
                return Ok(Started::Exit(ExitCode::SUCCESS));
            }
        }
        kept.push(slot);
    }
    if kept.is_empty() {
        return Err(LaunchError::NoneStarted);
    }
    Ok(Started::Running {
        proxies: open_doors(args, kept)?,
        failed,
    })
}

/// Binds a port on both loopbacks (so it is ours before anything is
/// sent), draws the token and the host name, and describes the context's
/// kubectl proxy on a socket in `folder` (made here, 0700).
fn prepare(
    args: &Args,
    context: &Context,
    folder: &Path,
    port: Option<u16>,
    idle: Option<Duration>,
) -> Result<Slot, LaunchError> {
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(folder)
        .map_err(|source| LaunchError::Folder {
            path: folder.to_path_buf(),
            source,
        })?;
    let (listeners, port) = port::bind(port).map_err(LaunchError::NoPort)?;
    let token = proxy::new_token()?;
    // A name nobody can have visited: a worker or storage planted on an
    // earlier origin (127.0.0.1:port, localhost:port, an earlier run's
    // name) never sees this run. 128 random bits, as the token.
    let host = format!("{}.localhost:{port}", proxy::new_token()?);
    let spec = proxy::Spec {
        kubectl: args.kubectl.clone(),
        kubeconfig: args.kubeconfig.clone(),
        context: context.name.clone(),
        socket: proxy::socket_in(folder),
        read_only: args.read_only,
        exec: kubectl_glass::gate::Mode::new(args.read_only, args.no_exec).exec,
    };
    Ok(Slot {
        context: context.clone(),
        listeners,
        port,
        token,
        host,
        upstream: Upstream::kubectl(spec, idle),
    })
}

/// A door per slot, each knowing every context's URL (the header's menu),
/// serving on the slot's listeners.
fn open_doors(args: &Args, slots: Vec<Slot>) -> Result<Proxies, LaunchError> {
    let csp = assets::content_security_policy().ok_or(LaunchError::NoApp)?;
    let mode = kubectl_glass::gate::Mode::new(args.read_only, args.no_exec);
    let urls: Arc<[String]> = slots.iter().map(Slot::url).collect();
    let peers: Vec<Peer> = match slots.len() {
        1 => vec![],
        _ => slots
            .iter()
            .map(|s| Peer {
                name: s.context.name.clone(),
                cluster: s.context.cluster.clone(),
            })
            .collect(),
    };
    let mut proxies = Proxies::default();
    for slot in slots {
        let url = slot.url();
        let listeners = slot
            .listeners
            .into_iter()
            .map(|l| {
                l.set_nonblocking(true)?;
                tokio::net::TcpListener::from_std(l)
            })
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(LaunchError::NoPort)?;
        let store = store::open_for(&slot.context.name);
        let mut session = session_for(&slot.context, mode);
        session.contexts = peers.clone();
        let door = Arc::new(Door {
            token: slot.token,
            host: slot.host,
            port: slot.port,
            mode,
            upstream: slot.upstream,
            contexts: urls.clone(),
            session: session.to_json(),
            csp: csp.clone(),
            open_file: Mutex::new(None),
            haunted: Default::default(),
            saved: kubectl_glass::saved::Saved::open_for(
                &slot.context.name,
                &slot.context.server,
                store.file().is_some(),
            ),
            store,
            forwards: kubectl_glass::forward::Forwards::new(
                args.kubectl.clone(),
                args.kubeconfig.clone(),
                slot.context.name.clone(),
            ),
        });
        let task = tokio::spawn(serve::serve_with(
            listeners,
            door.clone(),
            serve::Limits::default(),
        ));
        proxies.0.push(Running {
            context: slot.context,
            url,
            door: task,
            shared: door,
        });
    }
    Ok(proxies)
}

/// Prints where the app is (a table with `--all-contexts`) and opens the
/// browser unless told not to, through a redirect file only this user can
/// read, so the token is in no command line. A closed stdout ends the run.
fn announce(
    args: &Args,
    contexts: &Contexts,
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
    // Every context has a door; the one opened is at its kubeconfig place.
    let opened = contexts.opened.unwrap_or(0);
    let r = &proxies.0[opened];
    let url = format!("{}{fragment}", r.url);
    let folder = dir.display().to_string();
    let heading = say::heading(
        args.read_only,
        &r.context.name,
        &r.context.cluster,
        &url,
        &folder,
    );
    let others = match proxies.0.len() - 1 {
        0 => String::new(),
        1 => "The kubeconfig's other context is in the header's menu; its proxy starts when it is opened.\n".into(),
        n => format!("The kubeconfig's {n} other contexts are in the header's menu; each one's proxy starts when it is opened.\n"),
    };
    write!(out, "{heading}{others}")
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
async fn wait_until_stopped(stop: &mut Stop, proxies: &Proxies) -> ExitCode {
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
        for r in &proxies.0 {
            r.shared.upstream.stop_if_idle(std::time::Instant::now());
        }
        if let Some((name, status)) = proxies.0.iter().find_map(|r| {
            let status = r.shared.upstream.exited()?;
            Some((say::quoted(&r.context.name), status))
        }) {
            eprintln!(
                "kubectl-glass: kubectl proxy for context {name} exited ({status}); stopping"
            );
            return ExitCode::FAILURE;
        }
    }
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
            // A connection still being served holds the door: stop its
            // kubectl here, before the folder goes.
            r.shared.upstream.stop();
        }
    }
}
