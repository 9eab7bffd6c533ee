//! The command palette, k9s style: `:` opens it; `:pods`, `:deploy`, `:crd`,
//! `:events`, `:api`, `:xray`, any plural, singular, short name or kind the
//! server's discovery knows (`:db` for the demo CRD), optionally followed by
//! a namespace (`:pods kube-system`). Enter goes, Esc closes.

use kubeglass_client::discovery::ResourceInfo;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::components::keys::{on_keys, typing};
use crate::kube::cluster::ClusterState;
use crate::kube::use_kube;
use crate::route::{Route, navigate};

fn builtin(word: &str) -> Option<Route> {
    match word {
        "events" | "ev" | "event" => Some(Route::Events),
        "api" | "apis" | "api-resources" => Some(Route::Api),
        "xray" | "x-ray" => Some(Route::Xray),
        "overview" | "home" | "q" => Some(Route::Overview),
        "crd" | "crds" => Some(Route::resource("customresourcedefinitions", None)),
        _ => None,
    }
}

fn suggestions(resources: &[ResourceInfo], q: &str) -> Vec<(String, String)> {
    let q = q.to_lowercase();
    let mut out: Vec<(String, String)> = resources
        .iter()
        .filter(|r| r.preferred && r.supports("list"))
        .filter(|r| {
            q.is_empty()
                || r.plural.starts_with(&q)
                || r.singular.starts_with(&q)
                || r.kind.to_lowercase().starts_with(&q)
                || r.short_names.iter().any(|s| s.starts_with(&q))
        })
        .map(|r| {
            let short = if r.short_names.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.short_names.join(", "))
            };
            (
                r.qualified_name(),
                format!("{}{short} — {}", r.plural, r.api_version()),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then(a.0.cmp(&b.0)));
    out.truncate(8);
    out
}

/// The palette overlay (hidden until `:`).
#[component]
pub fn Palette() -> impl IntoView {
    let kube = use_kube();
    let cluster = expect_context::<ClusterState>();
    let discovered = kube.discovered;
    let open = RwSignal::new(false);
    let text = RwSignal::new(String::new());
    let error: RwSignal<Option<String>> = RwSignal::new(None);
    let input = NodeRef::<leptos::html::Input>::new();

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

    let kube = StoredValue::new_local(kube);
    let go = move || {
        let line = text.get_untracked();
        let mut words = line.trim().trim_start_matches(':').split_whitespace();
        let Some(word) = words.next().map(str::to_lowercase) else {
            open.set(false);
            return;
        };
        // A namespace typed after the name, else the app's (as k9s does).
        let namespace = words
            .next()
            .map(str::to_string)
            .or_else(|| cluster.namespace.get_untracked());
        if let Some(route) = builtin(&word) {
            open.set(false);
            navigate(&route);
            return;
        }
        let kube = kube.get_value();
        leptos::task::spawn_local(async move {
            match kube.resolve(&word).await {
                Ok(Some(r)) => {
                    open.set(false);
                    navigate(&Route::resource(&r.qualified_name(), namespace.as_deref()));
                }
                Ok(None) => error.set(Some(format!("The server has no resource called “{word}”."))),
                Err(p) => error.set(Some(p.explain("read the server's resources"))),
            }
        });
    };
    let go = StoredValue::new(go);

    let list = move || {
        let q = text.get();
        let word = q
            .trim()
            .trim_start_matches(':')
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_string();
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
                    placeholder=":pods, :deploy kube-system, :crd, :events, :api, :xray"
                    data-testid="palette-input"
                    prop:value=move || text.get()
                    on:input=move |ev| { text.set(event_target_value(&ev)); error.set(None); }
                    on:keydown=move |ev: KeyboardEvent| match ev.key().as_str() {
                        "Enter" => go.with_value(|g| g()),
                        "Escape" => open.set(false),
                        _ => {}
                    }
                />
                {move || error.get().map(|e| view! { <p class="error-text" data-testid="palette-error">{e}</p> })}
                <ul class="palette-list">
                    {move || list().into_iter().map(|(name, label)| {
                        let href = Route::resource(&name, None).href();
                        view! { <li><a href=href on:click=move |_| open.set(false)>{label}</a></li> }
                    }).collect_view()}
                </ul>
            </div>
        </Show>
    }
}
