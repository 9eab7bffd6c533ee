//! The log view's controls: container, previous, since, tail, lines kept, timestamps, wrap, follow, filter, pause, download and copy; and the line counts.

use leptos::prelude::*;

use crate::rules::logs::{
    DEFAULT_TAIL, KEEP_CHOICES, LogOptions, LogRing, LogText, Tail, download_text,
};
use crate::pages::logs::state::LogState;

/// `sinceSeconds` choices.
const SINCE: [(&str, i64); 7] = [
    ("all time", 0),
    ("1 minute", 60),
    ("5 minutes", 300),
    ("15 minutes", 900),
    ("1 hour", 3_600),
    ("6 hours", 21_600),
    ("24 hours", 86_400),
];
/// `tailLines` choices (0: all).
const TAILS: [i64; 5] = [100, 1_000, DEFAULT_TAIL, 20_000, 0];

/// The controls. `containers` are the choices (name, init/app/ephemeral);
/// `file` names a download.
#[component]
pub fn LogToolbar(
    state: LogState,
    containers: Signal<Vec<(String, &'static str)>>,
    chosen: Signal<Option<String>>,
    file: String,
) -> impl IntoView {
    let o = state.options;
    let on_filter = move |ev: leptos::ev::Event| {
        let q = event_target_value(&ev);
        state.set_options(|x| x.filter = q);
    };
    let limited = move || matches!(o.with(|x| x.tail), Tail::Lines(_));
    let file_name = StoredValue::new(file);
    let save = move |_| {
        let text = loaded_text(state, LogText::Exact);
        crate::platform::download_text(&file_name.get_value(), &text);
    };
    let copy = move |_| crate::platform::copy_text(&loaded_text(state, LogText::Shown));
    view! {
        <div class="toolbar log-toolbar">
            <ContainerPicker state containers chosen/>
            <SincePicker state/>
            <TailPicker state/>
            <KeepPicker state/>
            {move || limited().then(|| view! {
                <button data-testid="log-load-all" on:click=move |_| state.set_options(|x| x.tail = Tail::All)>"Load all"</button>
            })}
            <OptionCheck state label="previous" testid="log-previous" get=|x| x.previous set=|x, on| x.previous = on/>
            <OptionCheck state label="timestamps" testid="log-timestamps" get=|x| x.timestamps set=|x, on| x.timestamps = on/>
            <OptionCheck state label="wrap" testid="log-wrap" get=|x| x.wrap set=|x, on| x.wrap = on/>
            <OptionCheck state label="follow" testid="log-follow" get=|x| x.follow set=|x, on| x.follow = on/>
            <input class="filter" type="search" placeholder="filter: text or /regex/" data-testid="log-filter"
                prop:value=move || o.with(|x| x.filter.clone()) on:input=on_filter/>
            <button data-testid="log-pause" on:click=move |_| state.toggle_pause()>
                {move || if state.paused.get() { "▶ Resume" } else { "⏸ Pause" }}
            </button>
            <button data-testid="log-download" on:click=save
                title="Saves the loaded lines as the containers wrote them: colour codes, control and bidi characters unchanged. A line over 64 KiB was cut when it arrived and is saved cut, with a mark that says so.">"Download"</button>
            <button data-testid="log-copy" on:click=copy
                title="Copies the loaded lines as shown: control and bidi characters drawn visibly (^[, M-^[, <U+202E>)">"Copy"</button>
        </div>
        <LogCounts state/>
    }
}

/// The loaded lines as text (`how`: exact, or as shown), read untracked.
fn loaded_text(state: LogState, how: LogText) -> String {
    let ts = state.options.with_untracked(|x| x.timestamps);
    state
        .names
        .with_untracked(|n| state.ring.with_untracked(|r| download_text(r, ts, n, how)))
}

/// A checkbox for one on/off option: `get` reads it, `set` changes it.
#[component]
fn OptionCheck(
    state: LogState,
    label: &'static str,
    testid: &'static str,
    get: fn(&LogOptions) -> bool,
    set: fn(&mut LogOptions, bool),
) -> impl IntoView {
    let o = state.options;
    view! {
        <label class="check">
            <input type="checkbox" data-testid=testid prop:checked=move || o.with(get)
                on:change=move |ev| { let on = event_target_checked(&ev); state.set_options(|x| set(x, on)); }/>
            {label}
        </label>
    }
}

/// The container to show, among `containers`.
#[component]
fn ContainerPicker(
    state: LogState,
    containers: Signal<Vec<(String, &'static str)>>,
    chosen: Signal<Option<String>>,
) -> impl IntoView {
    let on_container = move |ev: leptos::ev::Event| {
        let c = event_target_value(&ev);
        state.set_options(|x| x.container = (!c.is_empty()).then_some(c));
    };
    view! {
        <label class="field">"Container "
            <select data-testid="log-container" on:change=on_container>
                {move || {
                    let current = chosen.get();
                    containers.get().into_iter().map(|(name, kind)| {
                        let selected = current.as_deref() == Some(name.as_str());
                        let label = if kind == "app" { name.clone() } else { format!("{name} ({kind})") };
                        view! { <option value=name selected=selected>{label}</option> }
                    }).collect_view()
                }}
            </select>
        </label>
    }
}

/// How far back the lines go (`sinceSeconds`).
#[component]
fn SincePicker(state: LogState) -> impl IntoView {
    let o = state.options;
    let on_since = move |ev: leptos::ev::Event| {
        let s: i64 = event_target_value(&ev).parse().unwrap_or(0);
        state.set_options(|x| {
            x.since_seconds = (s > 0).then_some(s);
            x.since_time = None;
        });
    };
    view! {
        <label class="field">"Since "
            <select data-testid="log-since" on:change=on_since
                prop:value=move || o.with(|x| x.since_seconds.unwrap_or(0)).to_string()>
                {SINCE.iter().map(|(label, s)| view! { <option value=s.to_string()>{*label}</option> }).collect_view()}
            </select>
        </label>
    }
}

/// How many of the last lines to load (`tailLines`).
#[component]
fn TailPicker(state: LogState) -> impl IntoView {
    let o = state.options;
    let on_tail = move |ev: leptos::ev::Event| {
        let n: i64 = event_target_value(&ev).parse().unwrap_or(DEFAULT_TAIL);
        state.set_options(|x| x.tail = if n == 0 { Tail::All } else { Tail::Lines(n) });
    };
    let tail_value = move || match o.with(|x| x.tail) {
        Tail::All => "0".to_string(),
        Tail::Lines(n) => n.to_string(),
    };
    view! {
        <label class="field">"Last "
            <select data-testid="log-tail" on:change=on_tail prop:value=tail_value>
                {TAILS.iter().map(|n| {
                    let label = if *n == 0 { "all lines".to_string() } else { format!("{n} lines") };
                    view! { <option value=n.to_string()>{label}</option> }
                }).collect_view()}
            </select>
        </label>
    }
}

/// How many lines the view keeps.
#[component]
fn KeepPicker(state: LogState) -> impl IntoView {
    let o = state.options;
    let on_keep = move |ev: leptos::ev::Event| {
        if let Ok(n) = event_target_value(&ev).parse::<usize>() {
            state.set_options(|x| x.keep = n);
        }
    };
    view! {
        <label class="field" title="Lines the view holds; past this the oldest are dropped">"Keep "
            <select data-testid="log-keep" on:change=on_keep
                prop:value=move || o.with(|x| x.keep).to_string()>
                {move || {
                    // The URL may ask for a number between the choices.
                    let keep = o.with(|x| x.keep);
                    let mut choices = KEEP_CHOICES.to_vec();
                    if !choices.contains(&keep) {
                        choices.push(keep);
                        choices.sort_unstable();
                    }
                    choices.into_iter().map(|n| view! {
                        <option value=n.to_string() selected=n == keep>{format!("{n} lines")}</option>
                    }).collect_view()
                }}
            </select>
        </label>
    }
}

/// The line counts, and what arrived while paused.
#[component]
fn LogCounts(state: LogState) -> impl IntoView {
    let counts = move || {
        state.ring.with(|r: &LogRing| {
            let mut s = match r.len() {
                1 => "1 line".to_string(),
                n => format!("{n} lines"),
            };
            if r.dropped() > 0 {
                s.push_str(&format!(
                    " · {} oldest dropped (the view keeps {})",
                    r.dropped(),
                    r.cap()
                ));
            }
            s
        })
    };
    view! {
        <p class="muted small log-counts" role="status">
            <span data-testid="log-count">{counts}</span>
            {move || state.paused.get().then(|| view! {
                <span class="event-paused-new" data-testid="log-paused-new">
                    {move || match state.pending.with(Vec::len) {
                        0 => " · paused: nothing new yet".to_string(),
                        1 => " · paused: 1 line arrived".to_string(),
                        n => format!(" · paused: {n} lines arrived"),
                    }}
                </span>
            })}
        </p>
    }
}
