//! The command palette, k9s style: `:` opens it, a resource or page name (and a namespace) goes there, Enter goes, Esc closes.
//!
//! `:pods`, `:deploy`, `:crd`, `:events`, `:api`, `:xray`, any plural,
//! singular, short name or kind the server's discovery knows (`:db` for the
//! demo CRD), optionally followed by a namespace (`:pods kube-system`); the
//! rules are in `rules/palette`.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::components::keys::{on_keys, typing};
use crate::kube::stores::cluster::ClusterState;
use crate::kube::use_kube;
use crate::route::{Route, navigate};
use crate::rules::palette::{Builtin, builtin, parse, suggestions};
use crate::rules::resolve::Unresolved;

/// The route of a built-in page.
fn route_of(b: Builtin) -> Route {
    match b {
        Builtin::Events => Route::page("events"),
        Builtin::Changes => Route::page("changes"),
        Builtin::Top => Route::page("top"),
        Builtin::Create => Route::page("create"),
        Builtin::Api => Route::page("api"),
        Builtin::Xray => Route::page("xray"),
        Builtin::Overview => Route::Overview,
        Builtin::Crds => Route::resource("customresourcedefinitions", None),
    }
}

/// `:` (not while typing) opens the palette empty and focuses its box.
fn open_on_colon(
    open: RwSignal<bool>,
    text: RwSignal<String>,
    error: RwSignal<Option<(String, Unresolved)>>,
    input: NodeRef<leptos::html::Input>,
) {
    on_keys(move |ev: KeyboardEvent| {
        if ev.key() == ":" && !typing(&ev) {
            ev.prevent_default();
            text.set(String::new());
            error.set(None);
            open.set(true);
            request_animation_frame(move || {
                if let Some(i) = input.get_untracked() {
                    let _ = i.focus();
                }
            });
        }
    });
}

/// Why `word` went nowhere, under the box.
fn error_line(word: &str, why: Unresolved) -> impl IntoView + use<> {
    let (kind, text) = match why {
        Unresolved::Unknown => (
            "not-found",
            format!("The server has no resource called “{word}”."),
        ),
        Unresolved::Cannot(t) => ("invalid", t),
        Unresolved::Failed(p) => (
            p.word(),
            format!(
                "{} {}",
                p.explain("read the server's resources"),
                p.detail()
            ),
        ),
    };
    view! { <p class="error-text" data-testid="palette-error" data-problem=kind>{text}</p> }
}

/// The palette overlay (hidden until `:`).
#[component]
pub fn Palette() -> impl IntoView {
    let kube = use_kube();
    let cluster = expect_context::<ClusterState>();
    let discovered = kube.discovered();
    let open = RwSignal::new(false);
    let text = RwSignal::new(String::new());
    // The word that did not resolve, and why.
    let error: RwSignal<Option<(String, Unresolved)>> = RwSignal::new(None);
    let input = NodeRef::<leptos::html::Input>::new();

    open_on_colon(open, text, error, input);

    let kube = StoredValue::new_local(kube);
    let go = move || {
        let Some(command) = parse(&text.get_untracked()) else {
            open.set(false);
            return;
        };
        if let Some(b) = builtin(&command.word) {
            open.set(false);
            navigate(&route_of(b));
            return;
        }
        // A namespace typed after the name, else the app's (as k9s does).
        let namespace = command
            .namespace
            .or_else(|| cluster.namespace.get_untracked());
        let (kube, word) = (kube.get_value(), command.word);
        leptos::task::spawn_local(async move {
            match kube.resolve_for(&word, &[]).await {
                Ok(r) => {
                    open.set(false);
                    navigate(&Route::resource(&r.qualified_name(), namespace.as_deref()));
                }
                Err(why) => error.set(Some((word, why))),
            }
        });
    };
    let go = StoredValue::new(go);

    let list = move || {
        let word = text.with(|t| parse(t).map(|c| c.word).unwrap_or_default());
        discovered.with(|d| match d {
            Some(Ok(d)) => suggestions(&d.resources, &word),
            _ => Vec::new(),
        })
    };

    view! {
        <Show when=move || open.get()>
            <div class="palette-backdrop" on:click=move |_| open.set(false)></div>
            <div class="palette" role="dialog" aria-label="Go to a resource" data-testid="palette">
                <input
                    node_ref=input
                    type="text"
                    placeholder=":pods, :deploy kube-system, :crd, :events, :changes, :api, :xray"
                    data-testid="palette-input"
                    prop:value=move || text.get()
                    on:input=move |ev| { text.set(event_target_value(&ev)); error.set(None); }
                    on:keydown=move |ev: KeyboardEvent| match ev.key().as_str() {
                        "Enter" => go.with_value(|g| g()),
                        "Escape" => open.set(false),
                        _ => {}
                    }
                />
                {move || error.get().map(|(word, why)| error_line(&word, why))}
                <ul class="palette-list">
                    {move || list().into_iter().map(|s| {
                        let (href, label) = (Route::resource(&s.name, None).href(), s.label);
                        view! { <li><a href=href on:click=move |_| open.set(false)>{label}</a></li> }
                    }).collect_view()}
                </ul>
            </div>
        </Show>
    }
}
