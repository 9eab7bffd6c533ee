//! The lines of a log view: only those in view are in the DOM, each drawn as text with ANSI colours as classes, filter matches marked, kept at the bottom while following.

use leptos::prelude::*;

use crate::components::scroll::ScrollWindow;
use crate::rules::filter::{Filter, Finder};
use crate::rules::logs::{LogLine, LogRing, cut_mark, pieces, strip_ansi};
use crate::pages::logs::state::LogState;

/// Height of one line, px (`.log-line` in style/main.css).
const LINE: f64 = 18.0;
/// Height of the list before it is first measured, px.
const VIEWPORT: f64 = 600.0;
/// Lines kept in the DOM above and below the visible ones.
const OVERSCAN: usize = 20;
/// Lines drawn when wrapping (rows then have no fixed height to
/// virtualize by): the last ones that pass the filter.
pub const WRAPPED_LINES: usize = 2_000;

/// A case-insensitive JavaScript RegExp finding every match, or why
/// `pattern` is not one.
fn compile_finder(pattern: &str) -> Result<Finder, String> {
    crate::platform::finder(pattern)
}

/// The filter box's text, compiled: None for no filter.
fn current_finder(text: &str) -> Option<Result<Finder, String>> {
    Filter::parse(text).finder(compile_finder)
}

/// The indexes of the lines to show: every line, or those the filter finds.
fn shown(ring: &LogRing, find: &Option<Result<Finder, String>>) -> Option<Vec<usize>> {
    match find {
        None => None,
        Some(Err(_)) => Some(Vec::new()),
        Some(Ok(f)) => Some(
            ring.iter()
                .enumerate()
                .filter(|(_, l)| l.marker || !f(&strip_ansi(&l.text).0).is_empty())
                .map(|(i, _)| i)
                .collect(),
        ),
    }
}

/// How many lines are shown, read untracked.
fn len_untracked(state: LogState, indexes: Memo<Option<Vec<usize>>>) -> usize {
    indexes.with_untracked(|ix| match ix {
        Some(v) => v.len(),
        None => state.ring.with_untracked(LogRing::len),
    })
}

/// The list of lines.
#[component]
pub fn LogLines(state: LogState) -> impl IntoView {
    let options = state.options;
    let filter_text = Memo::new(move |_| options.with(|o| o.filter.clone()));
    let find = Memo::new(move |_| filter_text.with(|t| current_finder(t).map(|r| r.map(|_| ()))));
    // Indexes passing the filter, recomputed when lines or the filter change.
    let indexes = Memo::new(move |_| {
        let f = filter_text.with(|t| current_finder(t));
        state.ring.with(|r| shown(r, &f))
    });
    let wrap = Memo::new(move |_| options.with(|o| o.wrap));
    let timestamps = Memo::new(move |_| options.with(|o| o.timestamps));
    let lines = ShownLines {
        state,
        indexes,
        wrap,
    };
    let len = move || lines.len();
    let scroll = ScrollWindow::new(VIEWPORT);
    // At the bottom: new lines keep it there. Scrolled up: it stays put.
    // Only the person scrolls up (the view itself scrolls down), so moving
    // up lets go of the bottom, and reaching it again holds it.
    let stick = RwSignal::new(true);
    let span = Memo::new(move |_| {
        if wrap.get() {
            let n = len();
            (n.saturating_sub(WRAPPED_LINES), WRAPPED_LINES)
        } else if stick.get() {
            // The last lines, drawn in the frame they arrive in rather than
            // after the scroll that follows them.
            scroll.rows_at_end(len(), LINE, OVERSCAN)
        } else {
            scroll.rows(len(), LINE, OVERSCAN)
        }
    });
    let body = NodeRef::<leptos::html::Div>::new();
    let on_scroll = follow_scroll(scroll, body, stick, lines);
    keep_at_bottom(lines, stick, body);
    let window = move || {
        let (first, count) = span.get();
        let f = filter_text.with(|t| current_finder(t));
        let ts = timestamps.get();
        let many = state.names.with(|n| n.len() > 1);
        lines_in(state, indexes, first, count)
            .into_iter()
            .map(|(_, l)| line_view(l, &f, ts, many, state.names))
            .collect_view()
    };
    view! {
        <FilterError find/>
        <NoLinesYet state/>
        <div class="log-body" class:log-wrap=move || wrap.get() node_ref=body on:scroll=on_scroll
            data-testid="log-body" tabindex="0" aria-label="Log lines, oldest first">
            {move || if wrap.get() {
                view! { <div class="log-rows">{window}</div> }.into_any()
            } else {
                view! {
                    <div class="log-rows" style:height=move || format!("{}px", len() as f64 * LINE)
                        style:padding-top=move || format!("{}px", span.get().0 as f64 * LINE)>
                        {window}
                    </div>
                }.into_any()
            }}
        </div>
    }
}

/// The lines shown, as far as their number and height go.
#[derive(Clone, Copy)]
struct ShownLines {
    state: LogState,
    indexes: Memo<Option<Vec<usize>>>,
    wrap: Memo<bool>,
}

impl ShownLines {
    /// How many lines are shown.
    fn len(self) -> usize {
        self.indexes.with(|ix| match ix {
            Some(v) => v.len(),
            None => self.state.ring.with(LogRing::len),
        })
    }

    /// The content's height: known from the line count unless wrapped, so
    /// following reads no layout.
    fn content_height(self, el: &crate::platform::Element) -> i32 {
        if self.wrap.get_untracked() {
            el.scroll_height()
        } else {
            (len_untracked(self.state, self.indexes) as f64 * LINE) as i32
        }
    }
}

/// The list's scroll handler: it moves the window, and moving up lets go
/// of the bottom (`stick`) while reaching it again holds it.
fn follow_scroll(
    scroll: ScrollWindow,
    body: NodeRef<leptos::html::Div>,
    stick: RwSignal<bool>,
    lines: ShownLines,
) -> impl Fn(leptos::ev::Event) + Copy + 'static {
    let last_top = StoredValue::new(0i32);
    move |ev: leptos::ev::Event| {
        scroll.on_scroll(&ev);
        if let Some(el) = body.get_untracked() {
            let top = el.scroll_top();
            let bottom = lines.content_height(&el) - top - el.client_height();
            if f64::from(bottom) < LINE * 2.0 {
                stick.set(true);
            } else if top < last_top.get_value() {
                stick.set(false);
            }
            last_top.set_value(top);
        }
    }
}

/// While the list holds the bottom (`stick`), new lines and a change of
/// wrapping scroll it there.
fn keep_at_bottom(lines: ShownLines, stick: RwSignal<bool>, body: NodeRef<leptos::html::Div>) {
    Effect::new(move |_| {
        lines.len();
        lines.wrap.track();
        if stick.get_untracked() {
            // After the frame's DOM changes, so the new height is there.
            request_animation_frame(move || {
                if let Some(el) = body.get_untracked() {
                    el.set_scroll_top(lines.content_height(&el));
                }
            });
        }
    });
}

/// Shown lines `first..first + count`, each with its index in the ring.
fn lines_in(
    state: LogState,
    indexes: Memo<Option<Vec<usize>>>,
    first: usize,
    count: usize,
) -> Vec<(usize, LogLine)> {
    state.ring.with(|r| {
        indexes.with(|ix| match ix {
            Some(v) => v
                .iter()
                .skip(first)
                .take(count)
                .filter_map(|i| r.get(*i).map(|l| (*i, l.clone())))
                .collect(),
            None => (first..(first + count).min(r.len()))
                .filter_map(|i| r.get(i).map(|l| (i, l.clone())))
                .collect(),
        })
    })
}

/// One line: its time stamp when `ts`, its source's name when `many`, its
/// text in colours with the filter's matches (`f`) marked, its cut mark.
fn line_view(
    l: LogLine,
    f: &Option<Result<Finder, String>>,
    ts: bool,
    many: bool,
    names: RwSignal<Vec<String>>,
) -> impl IntoView + use<> {
    let (plain, styles) = strip_ansi(&l.text);
    let matches = match f {
        Some(Ok(f)) if !l.marker => f(&plain),
        _ => Vec::new(),
    };
    let drawn = pieces(&plain, &styles, &matches)
        .into_iter()
        .map(|p| view! { <span class=p.class>{p.text}</span> })
        .collect_view();
    let stamp = ts.then(|| {
        l.stamp
            .as_deref()
            .map(|s| view! { <span class="log-ts">{s.to_string()}</span> })
    });
    let source = many.then(|| {
        let name = names.with_untracked(|n| n.get(l.source as usize).cloned().unwrap_or_default());
        let class = format!("log-src log-src-{}", l.source % 8);
        view! { <span class=class data-testid="log-source">{name}</span> }
    });
    let class = if l.marker {
        "log-line log-marker"
    } else {
        "log-line"
    };
    let cut = l.cut.map(
        |total| view! { <span class="log-cut" data-testid="log-cut">{cut_mark(total)}</span> },
    );
    view! { <div class=class data-testid="log-line">{stamp}{source}<span class="log-text">{drawn}</span>{cut}</div> }
}

/// Why the filter's pattern does not compile, when it does not.
#[component]
fn FilterError(find: Memo<Option<Result<(), String>>>) -> impl IntoView {
    move || {
        find.get().and_then(Result::err).map(|e| view! {
            <p class="error-box" data-testid="log-filter-error">{format!("The pattern does not compile: {e}")}</p>
        })
    }
}

/// A word while there are no lines.
#[component]
fn NoLinesYet(state: LogState) -> impl IntoView {
    move || {
        state
            .ring
            .with(LogRing::is_empty)
            .then(|| view! { <p class="muted small" data-testid="log-empty">"No lines yet."</p> })
    }
}
