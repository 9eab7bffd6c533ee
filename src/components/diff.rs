//! A field-by-field diff as a table: each field's path, its value before and after (cut short), "—" where it was absent.

use leptos::prelude::*;

use crate::model::history::{FieldChange, short};

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
