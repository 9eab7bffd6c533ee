//! `kubectl glass`: see the crate docs in lib.rs and the README.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use clap::Parser;
use kubectl_glass::kubeconfig::{Context, SessionFile, parse_view};
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
        Err(message) => {
            eprintln!("kubectl-glass: {message}");
            ExitCode::FAILURE
        }
    }
}

/// kubectl's view of the kubeconfig: kubectl prints its own errors (a bad
/// context, a broken kubeconfig) straight to the terminal.
fn contexts(args: &Args) -> Result<Result<Vec<Context>, ExitCode>, String> {
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
        .map_err(|e| format!("cannot run {}: {e}", args.kubectl.display()))?;
    if !out.status.success() {
        return Ok(Err(exit_code(out.status)));
    }
    let (all, current) = parse_view(&String::from_utf8_lossy(&out.stdout))?;
    if args.all_contexts {
        if all.is_empty() {
            return Err("the kubeconfig has no contexts".into());
        }
        return Ok(Ok(all));
    }
    let wanted = args.context.clone().or(current);
    let one = all
        .into_iter()
        .find(|c| Some(&c.name) == wanted.as_ref())
        .ok_or("the kubeconfig has no current context: pass --context")?;
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

fn run(args: &Args) -> Result<ExitCode, String> {
    if let Some(ns) = &args.namespace {
        kubeglass_client::names::validate_namespace(ns).map_err(|e| format!("-n: {e}"))?;
    }
    if let Some(k) = &args.kubeconfig
        && !k.is_file()
    {
        return Err(format!("--kubeconfig {}: no such file", k.display()));
    }
    let contexts = match contexts(args)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };

    let (tx, rx) = mpsc::channel::<()>();
    ctrlc::set_handler(move || {
        let _ = tx.send(());
    })
    .map_err(|e| format!("cannot handle signals: {e}"))?;

    // One private folder for this run (mode 0700), removed when it ends.
    // Declared before the proxies, so it is removed after they are stopped.
    let dir = tempfile::Builder::new()
        .prefix("kubectl-glass-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let mut proxies = Proxies::default();
    let mut taken = std::collections::BTreeSet::new();
    let mut failed = Vec::new();

    for (i, context) in contexts.iter().enumerate() {
        let www = dir.path().join(format!("app-{i}"));
        std::fs::create_dir(&www).map_err(|e| format!("{}: {e}", www.display()))?;
        let session = serde_json::to_string(&SessionFile::new(context, args.read_only))
            .map_err(|e| e.to_string())?;
        app::write_to(&www, &session).map_err(|e| e.to_string())?;
        let choice = port::choose(&context.name, args.port, &taken)
            .map_err(|e| format!("no free port: {e}"))?;
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
            token: proxy::new_token()?,
            www,
            read_only: args.read_only,
        };
        let (mut child, serving) = spec
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", args.kubectl.display()))?;
        let ready = proxy::wait_ready(&mut child, &serving, &spec.api(), READY_LIMIT);
        let name = context.name.clone();
        let problem = match ready {
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
        match problem {
            None => proxies.0.push(Running {
                context: context.clone(),
                spec,
                child,
            }),
            Some(p) => {
                let _ = child.kill();
                let status = child.wait().ok();
                if !args.all_contexts {
                    eprintln!("kubectl-glass: {p}");
                    return Ok(status.map_or(ExitCode::FAILURE, exit_code));
                }
                eprintln!("kubectl-glass: {p}; starting the others");
                failed.push(name);
            }
        }
        if rx.try_recv().is_ok() {
            // Stopped while starting: print nothing, open nothing.
            return Ok(ExitCode::SUCCESS);
        }
    }
    if proxies.0.is_empty() {
        return Err("no context could be started".into());
    }

    let fragment = args
        .namespace
        .as_ref()
        .map(|ns| format!("#/r/pods?ns={ns}"))
        .unwrap_or_default();
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
        for name in &failed {
            println!("{name:width$}  (did not start; see above)");
        }
        println!(
            "Kubeglass{ro} for {} contexts. Ctrl-C stops them all.",
            proxies.0.len()
        );
    } else {
        let r = &proxies.0[0];
        let url = format!("{}{fragment}", r.spec.url());
        println!(
            "Kubeglass{ro} for context {:?} (cluster {:?}):\n  {url}\nThe URL is the key: anyone with it can use your cluster as you while this runs. Ctrl-C stops.",
            r.context.name, r.context.cluster
        );
        if !args.no_open {
            if has_display() {
                if let Err(e) = open::that_detached(&url) {
                    eprintln!("kubectl-glass: could not open a browser ({e}); open the URL above");
                }
            } else {
                eprintln!("kubectl-glass: no display; open the URL above");
            }
        }
    }
    println!("App files in {}", dir.path().display());

    // Until a signal, or until a kubectl exits by itself.
    let code = loop {
        if rx.recv_timeout(Duration::from_millis(200)).is_ok() {
            break ExitCode::SUCCESS;
        }
        if let Some((name, status)) = proxies.0.iter_mut().find_map(|r| match r.child.try_wait() {
            Ok(Some(s)) => Some((r.context.name.clone(), s)),
            _ => None,
        }) {
            eprintln!(
                "kubectl-glass: kubectl proxy for context {name:?} exited ({status}); stopping"
            );
            break ExitCode::FAILURE;
        }
    };
    drop(proxies);
    drop(dir);
    Ok(code)
}
