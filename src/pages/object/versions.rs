//! An object's versions, under the heading "History" (its testids say `history`): the versions this tab has seen, each with who changed what in one line, and the field-by-field difference between any two.

use leptos::prelude::*;

use crate::components::diff::FieldDiff;
use crate::kube::stores::versions::use_versions;
use crate::rules::versions::{Kind, ObjectVersions, diff};

/// The versions seen, and the two compared (indexes).
#[derive(Clone, Copy)]
struct Compared {
    seen: Memo<ObjectVersions>,
    from: RwSignal<Option<usize>>,
    to: RwSignal<Option<usize>>,
}

impl Compared {
    /// The two versions compared; by default the last change.
    fn chosen(self) -> (usize, usize) {
        let n = self.seen.with(|h| h.versions.len());
        let to = self
            .to
            .get()
            .filter(|i| *i < n)
            .unwrap_or(n.saturating_sub(1));
        let from = self
            .from
            .get()
            .filter(|i| *i < n)
            .unwrap_or(to.saturating_sub(1));
        (from, to)
    }
}

/// The History section of an object's page; `key` is its versions' key (`VersionStore::key`); the heading keeps the word History.
#[component]
pub fn VersionsView(key: String) -> impl IntoView {
    let store = use_versions();
    let seen = Memo::new(move |_| store.get(&key).unwrap_or_default());
    // Status-only versions (a controller reporting) are folded unless asked.
    let show_status = RwSignal::new(false);
    // The two versions compared (indexes); by default the last change.
    let compared = Compared {
        seen,
        from: RwSignal::new(None::<usize>),
        to: RwSignal::new(None::<usize>),
    };
    let heading = move || seen.with(heading_text);
    let folded = move || seen.with(|h| h.versions.iter().filter(|v| v.status_only).count());
    view! {
        <div data-testid="history">
            <p class="muted small" data-testid="history-heading">{heading}</p>
            <label class="small">
                <input type="checkbox" data-testid="history-status" prop:checked=move || show_status.get()
                    on:change=move |_| show_status.update(|s| *s = !*s)/>
                {move || format!(" show status-only changes ({})", folded())}
            </label>
            <div class="table-scroll">
                <table class="grid">
                    <thead><tr><th>"From"</th><th>"To"</th><th>"Seen"</th><th>"resourceVersion"</th><th>"Change"</th></tr></thead>
                    <tbody><VersionRows compared show_status/></tbody>
                </table>
            </div>
            <VersionDiff compared/>
        </div>
    }
}

/// "3 versions seen since this tab opened", with those dropped and whether the object is gone.
fn heading_text(h: &ObjectVersions) -> String {
    let mut s = match h.versions.len() {
        1 => "1 version".to_string(),
        n => format!("{n} versions"),
    };
    s.push_str(" seen since this tab opened");
    if h.dropped > 0 {
        s.push_str(&format!(" · {} older dropped", h.dropped));
    }
    if h.deleted() {
        s.push_str(" · the object is gone");
    }
    s
}

/// A row per version, newest first; status-only ones folded unless `show_status` or compared.
#[component]
fn VersionRows(compared: Compared, show_status: RwSignal<bool>) -> impl IntoView {
    let Compared { seen, from, to } = compared;
    move || {
        let (f, t) = compared.chosen();
        let all = show_status.get();
        seen.with(|h| {
            h.versions
                .iter()
                .enumerate()
                .rev()
                .filter(|(i, v)| all || !v.status_only || *i == f || *i == t)
                .map(|(i, v)| {
                    let kind = match v.kind {
                        Kind::First => "first",
                        Kind::Updated => "changed",
                        Kind::Deleted => "deleted",
                    };
                    let seen = crate::platform::local_time(v.seen);
                    view! {
                        <tr data-testid="history-version" data-rv=v.resource_version.clone() data-kind=kind>
                            <td><input type="radio" name="history-from" title="compare from this version"
                                prop:checked=move || i == f on:change=move |_| from.set(Some(i))/></td>
                            <td><input type="radio" name="history-to" title="compare to this version"
                                prop:checked=move || i == t on:change=move |_| to.set(Some(i))/></td>
                            <td class="muted">{seen}</td>
                            <td><code>{v.resource_version.clone()}</code></td>
                            <td data-testid="history-summary">{v.summary.clone()}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    }
}

/// What differs between the two versions compared, field by field.
#[component]
fn VersionDiff(compared: Compared) -> impl IntoView {
    let seen = compared.seen;
    let changes = move || {
        let (f, t) = compared.chosen();
        seen.with(|h| match (h.versions.get(f), h.versions.get(t)) {
            (Some(a), Some(b)) if f != t => diff(&a.object, &b.object),
            _ => Vec::new(),
        })
    };
    let between = move || {
        let (f, t) = compared.chosen();
        seen.with(|h| {
            let rv = |i: usize| {
                h.versions
                    .get(i)
                    .map(|v| v.resource_version.clone())
                    .unwrap_or_default()
            };
            (h.versions.len() > 1).then(|| format!("from resourceVersion {} to {}", rv(f), rv(t)))
        })
    };
    move || {
        between().map(|c| {
            view! {
                <p class="muted small">{format!("What differs {c}:")}</p>
                <FieldDiff changes=changes() testid="history-diff"/>
            }
        })
    }
}
