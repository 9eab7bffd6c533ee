//! The YAML editor of Edit and Create: a text area over a painted copy of its text (colours, search matches, the lines an error names), line numbers, Tab to indent, and search (Ctrl+F or Find; Enter, Shift+Enter, Escape).

use leptos::html::{Div, Input, Textarea};
use leptos::prelude::*;

use crate::platform::{focus_area, indent_on_tab, reveal, select_range, selected_text};
use crate::rules::editor::{Hit, Mark, PaintedLine, Piece, find, paint, utf16_range};

/// The search's signals (cheap to copy).
#[derive(Clone, Copy)]
struct Search {
    open: RwSignal<bool>,
    query: RwSignal<String>,
    /// Index of the current match in `hits`.
    current: RwSignal<usize>,
    hits: Memo<Vec<Hit>>,
    input: NodeRef<Input>,
}

impl Search {
    fn new(text: RwSignal<String>) -> Self {
        let open = RwSignal::new(false);
        let query = RwSignal::new(String::new());
        let hits = Memo::new(move |_| {
            if !open.get() {
                return Vec::new();
            }
            query.with(|q| text.with(|t| find(t, q)))
        });
        Self {
            open,
            query,
            current: RwSignal::new(0),
            hits,
            input: NodeRef::new(),
        }
    }

    /// The current match's index, kept inside the matches there are.
    fn at(self) -> Option<usize> {
        let n = self.hits.with(Vec::len);
        (n > 0).then(|| self.current.get().min(n - 1))
    }

    /// Opens the bar, starting from `seed` (the selection) when given.
    fn show(self, seed: Option<String>) {
        if let Some(s) = seed.filter(|s| !s.contains('\n')) {
            self.query.set(s);
            self.current.set(0);
        }
        self.open.set(true);
        request_animation_frame(move || {
            if let Some(i) = self.input.get_untracked() {
                let _ = i.focus();
                i.select();
            }
        });
    }

    /// Moves to the next (or, `back`, the previous) match, round the end.
    fn step(self, back: bool) {
        let n = self.hits.with_untracked(Vec::len);
        if n == 0 {
            return;
        }
        let c = self.current.get_untracked().min(n - 1);
        self.current
            .set(if back { (c + n - 1) % n } else { (c + 1) % n });
    }

    /// Closes the bar and selects the current match in the text.
    fn close(self, text: RwSignal<String>, area: NodeRef<Textarea>) {
        let hit = self
            .at()
            .and_then(|i| self.hits.with_untracked(|h| h.get(i).copied()));
        self.open.set(false);
        match hit {
            Some(h) => {
                let (start, end) = text.with_untracked(|t| utf16_range(t, h));
                select_range(area, start, end);
            }
            None => focus_area(area),
        }
    }
}

/// An editor of `text`. The text area is `testid`, named `label` for
/// assistive technology; `min_lines` tall at least; `bad` lines (1-based)
/// are marked as the ones an error names.
#[component]
pub fn CodeEditor(
    text: RwSignal<String>,
    testid: &'static str,
    label: &'static str,
    #[prop(optional)] min_lines: usize,
    #[prop(optional)] placeholder: &'static str,
    #[prop(optional, into)] bad: Option<Signal<Vec<usize>>>,
) -> impl IntoView {
    let search = Search::new(text);
    let area = NodeRef::<Textarea>::new();
    let scroller = NodeRef::<Div>::new();
    let painted = Memo::new(move |_| {
        let bad = bad.map(|b| b.get()).unwrap_or_default();
        let at = search.at();
        text.with(|t| search.hits.with(|h| paint(t, h, at, &bad)))
    });
    let shown_lines = move || painted.with(Vec::len).max(min_lines.max(1));
    let numbers = move || {
        (1..=shown_lines())
            .map(|n| format!("{n}\n"))
            .collect::<String>()
    };
    // The current match, brought into view when it moves.
    Effect::new(move |_| {
        if search.at().is_some() {
            painted.track();
            reveal(scroller, "mark[data-mark=current]");
        }
    });
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if (ev.ctrl_key() || ev.meta_key()) && ev.key().eq_ignore_ascii_case("f") {
            ev.prevent_default();
            search.show(selected_text(area));
        } else if let Some(t) = indent_on_tab(&ev) {
            text.set(t);
        }
    };
    view! {
        <div class="code-editor">
            <div class="editor-tools">
                {move || search.open.get().then(|| view! { <SearchBar search text area/> })}
                <button class="link-button small" title="Search the text (Ctrl+F)" data-testid="editor-find"
                    on:click=move |_| search.show(selected_text(area))>"Find"</button>
            </div>
            <div class="editor-scroll" node_ref=scroller>
                <pre class="editor-lines" aria-hidden="true">{numbers}</pre>
                <div class="editor-stack">
                    <div class="editor-paint" aria-hidden="true" data-testid="editor-paint">
                        <For each=move || painted.get() key=|l: &PaintedLine| l.key let:line>
                            <div class=if line.bad { "line bad" } else { "line" }>
                                {line.pieces.into_iter().map(piece).collect_view()}
                            </div>
                        </For>
                    </div>
                    <textarea class="editor-text" node_ref=area data-testid=testid aria-label=label
                        spellcheck="false" wrap="off" placeholder=placeholder rows=shown_lines
                        prop:value=move || text.get()
                        on:input=move |ev| text.set(event_target_value(&ev))
                        on:keydown=on_keydown></textarea>
                </div>
            </div>
        </div>
    }
}

/// One painted piece: a coloured span, or a search match.
fn piece(p: Piece) -> AnyView {
    match p.mark {
        Mark::None => view! { <span class=p.ink.class()>{p.text}</span> }.into_any(),
        Mark::Hit => view! { <mark class=p.ink.class() data-mark="hit">{p.text}</mark> }.into_any(),
        Mark::Current => {
            view! { <mark class=p.ink.class() data-mark="current">{p.text}</mark> }.into_any()
        }
    }
}

/// The search box, how many matches and which, and its buttons.
#[component]
fn SearchBar(search: Search, text: RwSignal<String>, area: NodeRef<Textarea>) -> impl IntoView {
    let count = move || match (search.at(), search.hits.with(Vec::len)) {
        (Some(i), n) => format!("{} of {n}", i + 1),
        _ if search.query.with(String::is_empty) => String::new(),
        _ => "no matches".to_string(),
    };
    view! {
        <div class="editor-search" role="search">
            <input data-testid="editor-search" node_ref=search.input aria-label="Search the text"
                placeholder="Search" prop:value=move || search.query.get()
                on:input=move |ev| {
                    search.query.set(event_target_value(&ev));
                    search.current.set(0);
                }
                on:keydown=move |ev| match ev.key().as_str() {
                    "Enter" => {
                        ev.prevent_default();
                        search.step(ev.shift_key());
                    }
                    "Escape" => {
                        ev.prevent_default();
                        search.close(text, area);
                    }
                    _ => {}
                }/>
            <span class="muted small" data-testid="editor-search-count" role="status">{count}</span>
            <button class="link-button small" title="Previous (Shift+Enter)" on:click=move |_| search.step(true)>"↑"</button>
            <button class="link-button small" title="Next (Enter)" on:click=move |_| search.step(false)>"↓"</button>
            <button class="link-button small" title="Close (Escape)" on:click=move |_| search.close(text, area)>"✕"</button>
        </div>
    }
}
