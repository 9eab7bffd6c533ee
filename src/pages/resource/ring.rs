//! A table's rows: the sortable header and a ring of DOM rows over a virtualized body, with j/k/Enter/w and / from the keyboard.
//!
//! DOM rows are slots in a ring: row `index` goes to slot `index % slots`,
//! placed at `index × ROW_HEIGHT`, so scrolling by a few rows rewrites only
//! the slots of the rows that came into view; the others keep their
//! elements, text and place.

use kubeglass_client::rest::table::TableColumn;
use leptos::ev::{Event, KeyboardEvent};
use leptos::prelude::*;

use super::shell::{ShellLink, ask_namespaces, open_shell};
use super::state::Table;
use crate::components::keys::{modified, on_keys, typing};
use crate::components::scroll::ScrollWindow;
use crate::kube::Now;
use crate::kube::Stale;
use crate::rules::cells::{cell_class, cell_text};
use crate::rules::live_rows::{LiveRows, RowState};
use crate::rules::usage::is_usage_column;
use crate::rules::time::Seconds;
use crate::rules::unread::stale_words;

/// Height of one row in pixels (style/main.css `.vrow` agrees).
const ROW_HEIGHT: f64 = 30.0;
/// Rows rendered above and below the viewport.
const OVERSCAN: usize = 10;

/// Numbers each table's ring of rows, so their element ids are unique.
static NEXT_RING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The element id of one slot of one table's ring.
fn slot_id(ring: usize, slot: usize) -> String {
    format!("ring{ring}-{slot}")
}

/// What one on-screen row shows.
#[derive(Clone, PartialEq)]
struct RowView {
    index: usize,
    key: String,
    class: String,
    namespace: String,
    /// Marked for an action on many rows.
    marked: bool,
    /// Its `Status` column says Running (a pod a shell can open in).
    running: bool,
    /// Why the row is shown as its last good copy, when it is stale.
    stale: Option<String>,
    /// (text, class) of each cell shown.
    cells: Vec<(String, String)>,
}

/// The header and the rows of `table`.
#[component]
pub fn Ring(table: Table, show_namespace: bool) -> impl IntoView {
    let now = expect_context::<Now>().0;
    let scroll = ScrollWindow::new(600.0);
    let rows_shown = Memo::new(move |_| table.visible.with(|k| k.len));
    let rows_shown = move || rows_shown.get();
    // Only the rows in view (plus overscan) are in the DOM.
    let ring = NEXT_RING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // The rows in the window, as data (the DOM rows read them).
    let window_rows = window_rows(table, scroll, now);
    let on_scroll = move |ev: Event| scroll.on_scroll(&ev);
    let body_ref = NodeRef::<leptos::html::Div>::new();
    on_table_keys(table, body_ref);
    // A pod table asks, for each namespace in view, whether a shell may open there.
    if table.shell.is_some() {
        Effect::new(move |_| {
            let mut spaces: Vec<String> = window_rows.with(|(_, rows)| rows.iter().map(|r| r.namespace.clone()).collect());
            spaces.sort();
            spaces.dedup();
            ask_namespaces(table, spaces);
        });
    }
    view! {
        <div class="vtable" role="table" aria-rowcount=move || (rows_shown() + 1).to_string()>
            <RingHeader table show_namespace/>
            <div class="vbody" node_ref=body_ref on:scroll=on_scroll data-testid="table-body">
                // The rows' DOM order is slot order; aria-owns gives
                // assistive technology their screen order. (ARIA frowns on
                // owning one's own children; Chromium orders them by it, as
                // e2e checks; an engine that keeps DOM order still has
                // aria-rowindex to number them.)
                <div class="vspacer" role="rowgroup" data-testid="row-group"
                    style:height=move || format!("{}px", rows_shown() as f64 * ROW_HEIGHT)
                    aria-owns=move || window_rows.with(|(slots, rows)| {
                        rows.iter().map(|r| slot_id(ring, r.index % slots)).collect::<Vec<_>>().join(" ")
                    })>
                    // A ring of DOM rows (see RowView): scrolling moves few of them.
                    <For
                        each=move || window_rows.with(|(slots, rows)| {
                            // In slot order: the set rarely changes as the window
                            // moves, so no element is moved in the DOM.
                            let mut s: Vec<usize> = rows.iter().map(|r| r.index % slots).collect();
                            s.sort_unstable();
                            s
                        })
                        key=|slot| *slot
                        children=move |slot| view! { <RingRow table window_rows ring slot_index=slot show_namespace/> }
                    />
                </div>
            </div>
        </div>
    }
}

/// The rows in the scroll window as data, with the number of ring slots.
fn window_rows(
    table: Table,
    scroll: ScrollWindow,
    now: RwSignal<Seconds>,
) -> Memo<(usize, Vec<RowView>)> {
    Memo::new(move |_| {
        let len = table.visible.with(|k| k.len);
        let (first, count) = scroll.rows(len, ROW_HEIGHT, OVERSCAN);
        let end = (first + count).min(len);
        let keys = table.keys_in(first..end);
        let slots = count.max(1);
        let t = now.get();
        let cols = table.shown_columns();
        let sel = table.selected.get();
        let stale = table.stale.get();
        table.changed.track();
        let rows = table.marks.with(|marks| {
            table.with_rows(|l| {
                keys.into_iter()
                    .enumerate()
                    .filter_map(|(j, k)| {
                        let mut row = row_view(l, first + j, k, sel, &cols, t)?;
                        mark_stale(&mut row, &stale);
                        if marks.contains(&row.key) {
                            row.marked = true;
                            row.class.push_str(" marked");
                        }
                        Some(row)
                    })
                    .collect::<Vec<_>>()
            })
        });
        (slots, rows)
    })
}

/// What row `key`, at `index` of the table, shows at time `t` (None when
/// it is gone); `selected` is the selected row's index.
fn row_view(
    l: &LiveRows,
    index: usize,
    key: String,
    selected: usize,
    cols: &[(usize, TableColumn)],
    t: Seconds,
) -> Option<RowView> {
    let row = l.model().get(&key)?;
    let mut class = String::from("vrow");
    match l.state(&key, t) {
        RowState::Fading => class.push_str(" gone"),
        RowState::Flashing => class.push_str(" flash"),
        RowState::Alive => {}
    }
    if row.metadata.deletion_timestamp.is_some() {
        class.push_str(" deleting");
    }
    if index == selected {
        class.push_str(" selected");
    }
    let cells = cols
        .iter()
        .map(|(i, c)| {
            let text = cell_text(&row, *i, c, t);
            let name = if *i == 0 || c.format == "name" {
                " name"
            } else if is_usage_column(c) {
                " usage"
            } else {
                ""
            };
            let cls = format!("vcell{name} {}", cell_class(c, &text));
            (text, cls)
        })
        .collect::<Vec<(String, String)>>();
    let running = cols
        .iter()
        .position(|(_, c)| c.name == "Status")
        .is_some_and(|j| cells.get(j).is_some_and(|c| c.0 == "Running"));
    Some(RowView {
        index,
        namespace: row.metadata.namespace.clone().unwrap_or_default(),
        key,
        class,
        marked: false,
        running,
        stale: None,
        cells,
    })
}

/// Marks `row` stale when `stale` names it: the server's copy no longer
/// decodes, and the row is the last good copy.
fn mark_stale(row: &mut RowView, stale: &Stale) {
    if let Some(why) = stale.get(&row.key) {
        row.class.push_str(" stale");
        row.stale = Some(stale_words(why));
    }
}

/// Scrolls the body just enough to show row `i`.
fn scroll_row_into_view(body_ref: NodeRef<leptos::html::Div>, i: usize) {
    if let Some(el) = body_ref.get_untracked() {
        let top = i as f64 * ROW_HEIGHT;
        let h = el.client_height() as f64;
        let cur = el.scroll_top() as f64;
        if top < cur {
            el.set_scroll_top(top as i32);
        } else if top + ROW_HEIGHT > cur + h {
            el.set_scroll_top((top + ROW_HEIGHT - h) as i32);
        }
    }
}

/// Keys: / filter, j/k move, Space marks, Enter opens, s a shell (pods), w wide, Esc clears.
fn on_table_keys(table: Table, body_ref: NodeRef<leptos::html::Div>) {
    on_keys(move |ev: KeyboardEvent| {
        let typing = typing(&ev);
        let n = table.visible.with_untracked(|k| k.len);
        let select = |i: usize| {
            table.selected.set(i);
            scroll_row_into_view(body_ref, i);
        };
        match ev.key().as_str() {
            "/" if !typing => {
                ev.prevent_default();
                if let Some(i) = table.filter_input.get_untracked() {
                    let _ = i.focus();
                }
            }
            "Escape" => {
                table.filter.set(String::new());
                if let Some(i) = table.filter_input.get_untracked() {
                    let _ = i.blur();
                }
            }
            "j" | "ArrowDown" if !typing && n > 0 => {
                ev.prevent_default();
                select((table.selected.get_untracked() + 1).min(n - 1));
            }
            "k" | "ArrowUp" if !typing && n > 0 => {
                ev.prevent_default();
                select(table.selected.get_untracked().saturating_sub(1));
            }
            " " if !typing && n > 0 => {
                // k9s's mark: Space marks the cursor's row and moves on.
                ev.prevent_default();
                let i = table.selected.get_untracked().min(n - 1);
                if let Some(k) = untrack(|| table.keys_in(i..i + 1)).pop() {
                    table.mark(&k, false);
                }
                select((i + 1).min(n - 1));
            }
            "s" if !typing && !modified(&ev) && n > 0 && table.shell.is_some() => {
                let i = table.selected.get_untracked().min(n - 1);
                if let Some(k) = untrack(|| table.keys_in(i..i + 1)).pop() {
                    open_shell(table, &k);
                }
            }
            "w" if !typing && !modified(&ev) && untrack(|| table.has_wide()) => table.toggle_wide(),
            "Enter" if !typing && n > 0 => {
                let i = table.selected.get_untracked().min(n - 1);
                if let Some(k) = untrack(|| table.keys_in(i..i + 1)).pop() {
                    table.open(&k);
                }
            }
            _ => {}
        }
    });
}

/// The header row: a sortable button per column shown (and the namespace's).
#[component]
fn RingHeader(table: Table, show_namespace: bool) -> impl IntoView {
    let sort_by = move |i: usize| table.sort.update(|s| *s = s.toggled(Some(i)));
    let arrow = move |i: usize| table.sort.get().arrow(Some(i));
    view! {
        <div class="vrow vhead" role="row" aria-rowindex="1">
            <span class="vcell mark" role="columnheader">
                <input type="checkbox" data-testid="mark-all" aria-label="Mark every row that matches the filter"
                    title="Mark every row that matches the filter"
                    prop:checked=move || all_marked(table)
                    on:change=move |ev| {
                        let keys = table.all_keys();
                        if event_target_checked(&ev) {
                            table.marks.update(|m| m.mark_all(keys));
                        } else {
                            table.marks.update(|m| m.clear());
                        }
                    }/>
            </span>
            {show_namespace.then(|| view! {
                <button class="vcell sortable ns" role="columnheader" data-testid="column-header"
                    on:click=move |_| table.sort.update(|s| *s = s.toggled(None))>
                    "Namespace" {move || table.sort.get().arrow(None)}
                </button>
            })}
            <For
                each=move || table.shown_columns()
                key=|(i, c)| (*i, c.name.clone())
                children=move |(i, c)| view! {
                    <button class=if i == 0 || c.format == "name" { "vcell sortable name-col" } else if is_usage_column(&c) { "vcell sortable usage" } else { "vcell sortable" }
                        role="columnheader" data-testid="column-header" title=c.description.clone()
                        on:click=move |_| sort_by(i)>
                        {c.name.clone()} {move || arrow(i)}
                    </button>
                }
            />
            {table.shell.is_some().then(|| view! { <span class="vcell shell-cell" role="columnheader"></span> })}
        </div>
    }
}

/// True when every row shown is marked (and there is one).
fn all_marked(table: Table) -> bool {
    let n = table.visible.with(|k| k.len);
    let marked = table.marks.with(|m| m.len());
    n > 0 && marked >= n && table.marks.with(|m| table.all_keys().iter().all(|k| m.contains(k)))
}

/// One slot of the ring: a DOM row showing whichever row of the window
/// falls in slot `slot_index`.
#[component]
fn RingRow(
    table: Table,
    window_rows: Memo<(usize, Vec<RowView>)>,
    ring: usize,
    slot_index: usize,
    show_namespace: bool,
) -> impl IntoView {
    let slot = slot_index;
    let row = Memo::new(move |_| {
        window_rows.with(|(slots, rows)| rows.iter().find(|r| r.index % slots == slot).cloned())
    });
    let cells = Memo::new(move |_| row.with(|r| r.as_ref().map_or(0, |r| r.cells.len())));
    let field = move |f: fn(&RowView) -> String| {
        move || row.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    view! {
        <div class=field(|r| r.class.clone()) role="row" data-testid="resource-row"
            id=slot_id(ring, slot)
            data-key=field(|r| r.key.clone())
            data-marked=move || row.with(|r| r.as_ref().is_some_and(|r| r.marked).then_some("true"))
            data-stale=move || row.with(|r| r.as_ref().is_some_and(|r| r.stale.is_some()).then_some("true"))
            title=move || row.with(|r| r.as_ref().and_then(|r| r.stale.clone()))
            aria-rowindex=field(|r| (r.index + 2).to_string())
            style:transform=field(|r| format!("translateY({}px)", r.index as f64 * ROW_HEIGHT))
            on:click=move |ev: leptos::ev::MouseEvent| {
                let Some(k) = row.with_untracked(|r| r.as_ref().map(|r| r.key.clone())) else { return };
                // Shift-click marks a range, Ctrl- or Cmd-click one row;
                // a plain click opens it.
                if ev.shift_key() || ev.ctrl_key() || ev.meta_key() {
                    ev.prevent_default();
                    table.mark(&k, ev.shift_key());
                } else {
                    table.open(&k);
                }
            }>
            <span class="vcell mark" role="cell" on:click=move |ev: leptos::ev::MouseEvent| {
                ev.stop_propagation();
                if let Some(k) = row.with_untracked(|r| r.as_ref().map(|r| r.key.clone())) {
                    table.mark(&k, ev.shift_key());
                }
            }>
                <input type="checkbox" data-testid="row-mark" tabindex="-1" aria-label="Mark this row"
                    prop:checked=move || row.with(|r| r.as_ref().is_some_and(|r| r.marked))
                    on:click=|ev: leptos::ev::MouseEvent| ev.prevent_default()/>
            </span>
            {show_namespace.then(|| view! { <span class="vcell ns" role="cell">{field(|r| r.namespace.clone())}</span> })}
            <For
                each=move || 0..cells.get()
                key=|i| *i
                children=move |i| {
                    let cell = move |pick: fn(&(String, String)) -> String| move || {
                        row.with(|r| r.as_ref().and_then(|r| r.cells.get(i)).map(pick).unwrap_or_default())
                    };
                    view! { <span class=cell(|c| c.1.clone()) role="cell">{cell(|c| c.0.clone())}</span> }
                }
            />
            {table.shell.is_some().then(|| {
                let key = Signal::derive(move || row.with(|r| r.as_ref().map(|r| (r.key.clone(), r.running))));
                view! { <ShellLink table key/> }
            })}
        </div>
    }
}
