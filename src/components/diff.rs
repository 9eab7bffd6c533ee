//! Field-by-field tables: a diff (each field's path, its value before and after, cut short, "—" where it was absent), and a dry run's review with the server's own changes marked.

use leptos::prelude::*;

use crate::rules::edit::Reviewed;
use crate::rules::versions::{FieldChange, short};

/// The table of `changes`; its rows carry `{testid}-row`.
#[component]
pub fn FieldDiff(changes: Vec<FieldChange>, testid: &'static str) -> impl IntoView {
    let row_testid = format!("{testid}-row");
    view! {
        <div class="table-scroll">
            <table class="grid" data-testid=testid>
                <thead><tr><th>"Field"</th><th>"Before"</th><th>"After"</th></tr></thead>
                <tbody>
                    {changes.into_iter().map(|c| {
                        let before = c.old.as_ref().map(short).unwrap_or_else(|| "—".into());
                        let after = c.new.as_ref().map(short).unwrap_or_else(|| "—".into());
                        view! {
                            <tr data-testid=row_testid.clone()>
                                <td><code>{c.path}</code></td>
                                <td class="diff-old">{before}</td>
                                <td class="diff-new">{after}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// A dry run's review: each field now and after, marked where the server
/// (defaulting, admission), not the person, set it; rows carry `{testid}-row`
/// and `data-by` (`server` or `you`).
#[component]
pub fn ReviewTable(rows: Vec<Reviewed>, testid: &'static str) -> impl IntoView {
    let row_testid = format!("{testid}-row");
    view! {
        <div class="table-scroll">
            <table class="grid" data-testid=testid>
                <thead><tr><th>"Field"</th><th>"Now"</th><th>"After"</th><th></th></tr></thead>
                <tbody>
                    {rows.into_iter().map(|r| {
                        let by = if r.by_server { "server" } else { "you" };
                        let now = r.change.old.as_ref().map(short).unwrap_or_else(|| "—".into());
                        let after = r.change.new.as_ref().map(short).unwrap_or_else(|| "—".into());
                        view! {
                            <tr data-testid=row_testid.clone() data-by=by>
                                <td><code>{r.change.path}</code></td>
                                <td class="diff-old">{now}</td>
                                <td class="diff-new">{after}</td>
                                <td>{r.by_server.then(|| view! { <span class="badge" title="The server set this: defaulting or an admission webhook">"server"</span> })}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
