//! The terminal: the screen's rows as text (one signal per row, rewritten
//! only when it changed, once per animation frame), a hidden text area
//! that takes keys and pastes, the size in cells from the element's size
//! (again when the window's changes), and the wheel through the scrollback.

use std::rc::Rc;

use leptos::ev::{ClipboardEvent, KeyboardEvent, WheelEvent};
use leptos::html::{Div, Span, Textarea};
use leptos::prelude::*;

use crate::kube::subscribe::shell::Shell;
use crate::rules::terminal::Line;
use crate::rules::terminal::keys::{Key, encode, paste};
use crate::platform;

/// The page's current shell, if one was opened.
type Current = StoredValue<Option<Rc<Shell>>, LocalStorage>;

/// The screen's rows: reference-counted, not owned by the effect that
/// makes them (an effect's signals are disposed when it runs again).
type Rows = StoredValue<Vec<ArcRwSignal<Line>>, LocalStorage>;

/// The terminal of the page's current shell; `attempt` firing opens a new
/// one through `open` (with the size that fits).
#[component]
pub fn Term(
    shell: Current,
    opened: Trigger,
    attempt: Trigger,
    open: impl Fn((u16, u16)) + Clone + 'static,
) -> impl IntoView {
    let area = NodeRef::<Div>::new();
    let cell = NodeRef::<Span>::new();
    let input = NodeRef::<Textarea>::new();
    let rows: Rows = StoredValue::new_local(Vec::new());
    let row_count = RwSignal::new(0usize);
    let fit = move || platform::cells_fit(area, cell).unwrap_or((24, 80));
    // Open at once, and again on Reconnect, once laid out.
    Effect::new(move |_| {
        attempt.track();
        let open = open.clone();
        platform::after_paint(move || {
            open(fit());
            platform::focus_area(input);
        });
    });
    follow_screen(shell, opened, rows, row_count);
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        if let Some((r, c)) = platform::cells_fit(area, cell) {
            shell.with_value(|s| s.as_ref().map(|s| s.resize(r, c)));
        }
    });
    on_cleanup(move || resize.remove());
    // A click focuses the keys' text area, unless it ended a selection.
    let focus = move |_| {
        if platform::page_selection().is_empty() {
            platform::focus_area(input);
        }
    };
    let back = move || {
        opened.track();
        shell
            .with_value(|s| s.as_ref().map(|s| { s.drawn.track(); s.terminal.borrow().scrolled_back() }))
            .unwrap_or(0)
    };
    view! {
        <p class="term-back small muted" data-testid="term-back" hidden=move || back() == 0>
            {move || format!("{} lines back; a key returns to the live screen", back())}
        </p>
        <div class="term-frame"><div class="term" data-testid="terminal" node_ref=area on:click=focus on:wheel=move |ev| on_wheel(shell, ev)>
            <span class="term-measure" node_ref=cell aria-hidden="true">"W"</span>
            <textarea class="term-input" data-testid="terminal-input" node_ref=input
                aria-label="Terminal input" autocomplete="off" spellcheck="false"
                on:keydown=move |ev| on_key(shell, ev) on:paste=move |ev| on_paste(shell, ev)></textarea>
            {move || (0..row_count.get()).map(|i| {
                let sig = rows.with_value(|r| r.get(i).cloned());
                view! { <div class="term-row" data-testid="term-row">{move || sig.as_ref().map(|s| draw(&s.get()))}</div> }
            }).collect_view()}
        </div></div>
    }
}

/// Redraws the rows that changed, once per frame of output (the shell's
/// `drawn`), and all of them for a new shell.
fn follow_screen(shell: Current, opened: Trigger, rows: Rows, row_count: RwSignal<usize>) {
    Effect::new(move |_| {
        opened.track();
        let Some(lines) = shell.with_value(|s| {
            s.as_ref().map(|s| {
                s.drawn.track();
                s.terminal.borrow().lines()
            })
        }) else {
            return;
        };
        rows.update_value(|r| {
            if r.len() != lines.len() {
                *r = lines.iter().map(|_| ArcRwSignal::new(Vec::new())).collect();
                row_count.set(r.len());
            }
            for (sig, line) in r.iter().zip(lines) {
                if sig.with_untracked(|l| *l != line) {
                    sig.set(line);
                }
            }
        });
    });
}

/// A key: the bytes a terminal sends, or the browser's (copy, paste).
fn on_key(shell: Current, ev: KeyboardEvent) {
    if ev.is_composing() {
        return;
    }
    let key = ev.key();
    let k = Key { key: &key, ctrl: ev.ctrl_key(), alt: ev.alt_key(), shift: ev.shift_key(), meta: ev.meta_key() };
    // Ctrl+C with text selected, and Ctrl+Shift+C, copy it.
    let selected = platform::page_selection();
    if k.ctrl && matches!(key.as_str(), "c" | "C") && (k.shift || !selected.is_empty()) {
        ev.prevent_default();
        platform::copy_text(&selected);
        return;
    }
    let app = shell.with_value(|s| s.as_ref().is_some_and(|s| s.terminal.borrow().application_cursor()));
    if let Some(bytes) = encode(k, app) {
        ev.prevent_default();
        ev.stop_propagation();
        shell.with_value(|s| s.as_ref().map(|s| s.write(&bytes)));
    }
}

/// A paste: its text as the program asked for it (bracketed or not).
fn on_paste(shell: Current, ev: ClipboardEvent) {
    ev.prevent_default();
    if let Some(text) = platform::pasted(&ev) {
        shell.with_value(|s| {
            s.as_ref().map(|s| {
                let bracketed = s.terminal.borrow().bracketed_paste();
                s.write(&paste(&text, bracketed));
            })
        });
    }
}

/// The wheel: through the scrollback, a row at a time per 18 px.
fn on_wheel(shell: Current, ev: WheelEvent) {
    let lines = (ev.delta_y() / 18.0).round() as isize;
    if lines != 0 {
        ev.prevent_default();
        shell.with_value(|s| s.as_ref().map(|s| s.scroll(-lines)));
    }
}

/// One row's runs as spans: the theme's colours as classes, the others
/// through the CSSOM (`style:`), which the page's CSP allows.
fn draw(line: &Line) -> impl IntoView + use<> {
    line.iter()
        .map(|run| {
            let fg = run.style.fg.css();
            let bg = run.style.bg.css();
            view! { <span class=run.style.classes() style:color=fg style:background-color=bg>{run.text.clone()}</span> }
        })
        .collect_view()
}
