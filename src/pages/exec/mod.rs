//! A shell in a container (`#/exec/<ns>/<pod>[/<container>]`): who may
//! open one (the launcher's session and RBAC's `create pods/exec`), the
//! command (typed, or `/bin/bash` then `/bin/sh`), the state in a line,
//! and the terminal (`term`). Reconnect opens a new shell; leaving the
//! page closes it.

mod term;

use std::rc::Rc;

use leptos::prelude::*;

use crate::kube::requests::access::may_exec;
use crate::kube::stores::session::SessionState;
use crate::kube::subscribe::shell::{Shell, ShellState, Target};
use crate::kube::use_kube;
use crate::rules::terminal::shell::Choice;
use crate::route::Route;

/// Whether a shell may be opened here.
#[derive(Debug, Clone, PartialEq)]
enum May {
    Asking,
    Yes,
    /// No, in words.
    No(String),
}

/// The page.
#[component]
pub fn ExecPage(namespace: String, pod: String, container: Option<String>) -> impl IntoView {
    let kube = use_kube();
    let target = Target { namespace: namespace.clone(), pod: pod.clone(), container: container.clone() };
    let may = if expect_context::<SessionState>().may_exec() {
        let (k, ns, p) = (kube.clone(), namespace.clone(), pod.clone());
        let asked = kube.load(async move { may_exec(&k, &ns, &p).await.map_err(|e| e.detail().to_string()) });
        Signal::derive(move || match asked.get() {
            None => May::Asking,
            Some(Ok(true)) => May::Yes,
            Some(Ok(false)) => May::No("You may not open a shell here: RBAC does not allow create on pods/exec in this namespace.".into()),
            // Could not ask: try, and let the server say.
            Some(Err(_)) => May::Yes,
        })
    } else {
        Signal::stored(May::No(
            "This session cannot open a shell: kubectl glass was started with --read-only or --no-exec (or this is a plain kubectl proxy, which refuses exec).".into(),
        ))
    };
    let pod_link = Route::Object { resource: "pods".into(), namespace: Some(namespace.clone()), name: pod.clone() }.href();
    let title = match &container {
        Some(c) => format!("Shell in container {c} of pod {namespace}/{pod}"),
        None => format!("Shell in pod {namespace}/{pod}"),
    };
    let command = RwSignal::new(String::new());
    // Fired by Reconnect: the terminal opens a new shell for each.
    let attempt = Trigger::new();
    let shell: StoredValue<Option<Rc<Shell>>, LocalStorage> = StoredValue::new_local(None);
    let opened = Trigger::new();
    // Called after a paint, outside the component's owner: the handle is
    // taken now.
    let kube = StoredValue::new_local(kube);
    let open = move |size: (u16, u16)| {
        let choice = Choice::from_box(&command.get_untracked());
        // After a paint: the page may be gone.
        let Some(kube) = kube.try_get_value() else { return };
        let s = Rc::new(Shell::open(&kube, target.clone(), choice, size));
        shell.set_value(Some(s));
        opened.notify();
    };
    let body = move || match may.get() {
        May::Asking => view! { <p class="muted">"checking whether you may open a shell…"</p> }.into_any(),
        May::No(why) => view! { <p class="muted" data-testid="exec-refused" role="alert">{why}</p> }.into_any(),
        May::Yes => view! {
            <div class="exec-toolbar">
                <label>"Command "
                    <input data-testid="exec-command" placeholder="/bin/bash, else /bin/sh"
                        prop:value=move || command.get()
                        on:input=move |ev| command.set(event_target_value(&ev))
                        on:keydown=move |ev| if ev.key() == "Enter" { attempt.notify() }/>
                </label>
                <button data-testid="exec-connect" on:click=move |_| attempt.notify()>"Reconnect"</button>
                <StateLine shell opened/>
            </div>
            <term::Term shell opened attempt open=open.clone()/>
        }.into_any(),
    };
    view! {
        <section class="exec-page">
            <h2 data-testid="exec-title">{title}</h2>
            <p class="small"><a href=pod_link data-testid="exec-pod">"The pod's page"</a></p>
            {body}
        </section>
    }
}

/// The shell's state in one line.
#[component]
fn StateLine(shell: StoredValue<Option<Rc<Shell>>, LocalStorage>, opened: Trigger) -> impl IntoView {
    let state = move || {
        opened.track();
        shell.with_value(|s| s.as_ref().map(|s| s.state.get()))
    };
    let words = move || match state() {
        None => ("opening", "opening…".to_string()),
        Some(ShellState::Connecting(c)) => ("connecting", format!("connecting: {c}")),
        Some(ShellState::Open { command, v5 }) => (
            "open",
            format!("{command} · {}", if v5 { "v5.channel.k8s.io" } else { "v4.channel.k8s.io" }),
        ),
        Some(ShellState::Ended(w)) => ("ended", w),
        Some(ShellState::Lost(w)) => ("lost", w),
    };
    view! {
        <span class="exec-state small" data-testid="exec-state" data-state=move || words().0 role="status">
            {move || words().1}
        </span>
    }
}
