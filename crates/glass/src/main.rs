//! `kubectl glass`: see the crate docs in lib.rs and the README.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use clap::Parser;
use kubectl_glass::kubeconfig::{Context, parse_view, session_for};
use kubectl_glass::port::{self, Choice};
use kubectl_glass::{app, proxy};

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
    /// Listen on this port (default: one derived from the context name, the same every run).
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

/// A running proxy and what it serves.
struct Running {
    context: Context,
    spec: proxy::Spec,
    child: Child,
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
    /// Ctrl-C and SIGTERM cannot be caught, so the proxies could outlive us.
    #[error("cannot handle signals: {0}")]
    Signals(#[from] ctrlc::Error),
    /// The private folder for the run could not be made or filled.
    #[error("{}: {source}", path.display())]
    Folder {
        /// The folder or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No port could be found for a context.
    #[error("no free port: {0}")]
    NoPort(std::io::Error),
    /// No randomness for the capability token.
    #[error("{0}")]
    Token(String),
    /// Every context failed to start (with `--all-contexts`).
    #[error("no context could be started")]
    NoneStarted,
}

/// Starts a proxy per context, says where the app is, and waits for Ctrl-C
/// (or a proxy that exits by itself); the proxies and the private folder go
/// when it returns, whichever way.
fn run(args: &Args) -> Result<ExitCode, LaunchError> {
    check_args(args)?;
    let contexts = match contexts(args)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let stop = stop_signal()?;
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
    let (mut proxies, failed) = match start_all(args, &contexts, dir.path(), &stop)? {
        Started::Running { proxies, failed } => (proxies, failed),
        Started::Exit(code) => return Ok(code),
    };
    announce(args, &proxies, &failed);
    println!("App files in {}", dir.path().display());
    let code = wait_until_stopped(&stop, &mut proxies);
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

/// A channel that receives once Ctrl-C, SIGTERM or SIGHUP arrives.
fn stop_signal() -> Result<mpsc::Receiver<()>, LaunchError> {
    let (tx, rx) = mpsc::channel::<()>();
    ctrlc::set_handler(move || {
        let _ = tx.send(());
    })?;
    Ok(rx)
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
fn start_all(
    args: &Args,
    contexts: &[Context],
    dir: &std::path::Path,
    stop: &mpsc::Receiver<()>,
) -> Result<Started, LaunchError> {
    let mut proxies = Proxies::default();
    let mut taken = std::collections::BTreeSet::new();
    let mut failed = Vec::new();
    for (i, context) in contexts.iter().enumerate() {
        match start_one(args, context, &dir.join(format!("app-{i}")), &mut taken)? {
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
        if stop.try_recv().is_ok() {
            // Stopped while starting: print nothing, open nothing.
            return Ok(Started::Exit(ExitCode::SUCCESS));
        }
    }
    if proxies.0.is_empty() {
        return Err(LaunchError::NoneStarted);
    }
    Ok(Started::Running { proxies, failed })
}

/// Writes the app and its session file into `www`, picks a port and starts
/// `context`'s proxy; `Ok(Err((why, status)))` when that proxy did not
/// come up (it has been stopped).
fn start_one(
    args: &Args,
    context: &Context,
    www: &std::path::Path,
    taken: &mut std::collections::BTreeSet<u16>,
) -> Result<Result<Running, (String, Option<std::process::ExitStatus>)>, LaunchError> {
    let folder = |source| LaunchError::Folder {
        path: www.to_path_buf(),
        source,
    };
    std::fs::create_dir(www).map_err(folder)?;
    let session = session_for(context, args.read_only).to_json();
    app::write_to(www, &session).map_err(folder)?;
    let choice = port::choose(&context.name, args.port, taken).map_err(LaunchError::NoPort)?;
    taken.insert(choice.port());
    if let Choice::Fallback { wanted, port } = choice {
        eprintln!(
            "kubectl-glass: port {wanted} (context {:?}'s own) is taken; using {port}, so this tab's storage starts empty",
            context.name
        );
    }
    let spec = proxy::Spec {
        kubectl: args.kubectl.clone(),
        kubeconfig: args.kubeconfig.clone(),
        context: context.name.clone(),
        port: choice.port(),
        token: proxy::new_token().map_err(LaunchError::Token)?,
        www: www.to_path_buf(),
        read_only: args.read_only,
    };
    let (mut child, serving) = spec.spawn().map_err(|source| LaunchError::Kubectl {
        kubectl: args.kubectl.clone(),
        source,
    })?;
    let name = &context.name;
    let problem = match proxy::wait_ready(&mut child, &serving, &spec.api(), READY_LIMIT) {
        Ok(200) => None,
        Ok(status) => {
            eprintln!(
                "kubectl-glass: context {name:?}: the cluster answered {status} to /version; the app will say more"
            );
            None
        }
        Err(proxy::NotReady::Exited(status)) => Some(format!(
            "kubectl proxy for context {name:?} exited ({status})"
        )),
        Err(proxy::NotReady::Timeout(what, t)) => Some(format!(
            "kubectl proxy for context {name:?} took longer than {t:?} {what}"
        )),
    };
    Ok(match problem {
        None => Ok(Running {
            context: context.clone(),
            spec,
            child,
        }),
        Some(p) => {
            let _ = child.kill();
            Err((p, child.wait().ok()))
        }
    })
}

/// Prints where the app is (a table with `--all-contexts`) and opens the
/// browser unless told not to.
fn announce(args: &Args, proxies: &Proxies, failed: &[String]) {
    let ro = if args.read_only { " (read-only)" } else { "" };
    if args.all_contexts {
        let width = proxies
            .0
            .iter()
            .map(|r| r.context.name.len())
            .max()
            .unwrap_or(7)
            .max(7);
        println!("{:width$}  URL", "CONTEXT");
        for r in &proxies.0 {
            println!("{:width$}  {}", r.context.name, r.spec.url());
        }
        for name in failed {
            println!("{name:width$}  (did not start; see above)");
        }
        println!(
            "Kubeglass{ro} for {} contexts. Ctrl-C stops them all.",
            proxies.0.len()
        );
        return;
    }
    let fragment = args
        .namespace
        .as_ref()
        .map(|ns| format!("#/r/pods?ns={ns}"))
        .unwrap_or_default();
    let r = &proxies.0[0];
    let url = format!("{}{fragment}", r.spec.url());
    println!(
        "Kubeglass{ro} for context {:?} (cluster {:?}):\n  {url}\nThe URL is the key: anyone with it can use your cluster as you while this runs. Ctrl-C stops.",
        r.context.name, r.context.cluster
    );
    if args.no_open {
        return;
    }
    if !has_display() {
        eprintln!("kubectl-glass: no display; open the URL above");
    } else if let Err(e) = open::that_detached(&url) {
        eprintln!("kubectl-glass: could not open a browser ({e}); open the URL above");
    }
}

/// Waits for a signal, or for a kubectl that exits by itself.
fn wait_until_stopped(stop: &mpsc::Receiver<()>, proxies: &mut Proxies) -> ExitCode {
    loop {
        if stop.recv_timeout(Duration::from_millis(200)).is_ok() {
            return ExitCode::SUCCESS;
        }
        if let Some((name, status)) = proxies.0.iter_mut().find_map(|r| match r.child.try_wait() {
            Ok(Some(s)) => Some((r.context.name.clone(), s)),
            _ => None,
        }) {
            eprintln!(
                "kubectl-glass: kubectl proxy for context {name:?} exited ({status}); stopping"
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

/// The proxies started so far. Dropping it kills them, so no early return
/// leaves a kubectl running with the token after its folder is gone.
#[derive(Default)]
struct Proxies(Vec<Running>);

impl Drop for Proxies {
    fn drop(&mut self) {
        for r in &mut self.0 {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }
}

/// How long a proxy may take to start serving, and then to get an answer
/// from the cluster (a credential plugin may be asking for a login).
const READY_LIMIT: Duration = Duration::from_secs(120);
