//! One release's revisions: each revealed only when the person asks (one
//! Secret read, confirmed first, the answer kept in this view's signal and
//! gone with it), then its chart, values, notes and manifest; two revealed
//! revisions compare field by field.

use std::collections::BTreeMap;

use leptos::prelude::*;

use crate::components::dialog::confirm;
use crate::components::diff::FieldDiff;
use crate::kube::requests::reads::reveal_secret;
use crate::kube::use_kube;
use crate::platform::spawn;
use crate::rules::helm::{Decoded, Release, Revision, comparable, decode};
use crate::rules::versions::diff;
use crate::rules::yaml::to_yaml;

type Revealed = RwSignal<BTreeMap<u64, Result<Decoded, String>>>;

/// Reads and decodes one revision's payload.
async fn read(kube: &crate::kube::Kube, rev: &Revision) -> Result<Decoded, String> {
    let secret = reveal_secret(kube, Some(&rev.namespace), &rev.secret)
        .await
        .map_err(|p| p.detail().to_string())?;
    let value = secret
        .values
        .into_iter()
        .find(|v| v.key == "release")
        .and_then(|v| v.text)
        .ok_or_else(|| "the Secret holds no release value".to_string())?;
    decode(value.as_bytes())
}

/// The revisions of `release`, newest first, and what was revealed.
#[component]
pub fn Revisions(release: Release) -> impl IntoView {
    let kube = StoredValue::new_local(use_kube());
    let revealed: Revealed = RwSignal::new(BTreeMap::new());
    let shown = RwSignal::new(None::<u64>);
    let picked = RwSignal::new(Vec::<u64>::new());
    let name = release.name.clone();
    let reveal = move |rev: Revision| {
        let question = format!(
            "Reveal revision {} of {}? Its values may hold secrets: they are read once and kept on this page only.",
            rev.version, rev.release
        );
        if !confirm(&question) {
            return;
        }
        let Some(kube) = kube.try_get_value() else { return };
        spawn(async move {
            let got = read(&kube, &rev).await;
            let _ = revealed.try_update(|m| m.insert(rev.version, got));
            let _ = shown.try_set(Some(rev.version));
        });
    };
    let rows = release
        .revisions
        .iter()
        .cloned()
        .map(|rev| revision_row(rev, revealed, shown, picked, reveal))
        .collect_view();
    view! {
        <h3 data-testid="helm-revisions-of">{format!("Revisions of {name}")}</h3>
        <table class="grid compact" data-testid="helm-revisions">
            <thead><tr><th class="num">"Revision"</th><th>"Status"</th><th>"Secret"</th><th></th><th>"Compare"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
        {move || compared(revealed, picked)}
        {move || {
            let v = shown.get()?;
            Some(revealed.with(|m| m.get(&v).cloned()).map(|d| detail(v, d)))
        }}
    }
}

/// One revision's row: Reveal (or Show once revealed) and its compare box.
fn revision_row(
    rev: Revision,
    revealed: Revealed,
    shown: RwSignal<Option<u64>>,
    picked: RwSignal<Vec<u64>>,
    reveal: impl Fn(Revision) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let v = rev.version;
    let known = move || revealed.with(|m| m.contains_key(&v));
    let button = {
        let rev = rev.clone();
        move || {
            let rev = rev.clone();
            if known() {
                view! { <button data-testid="helm-show" on:click=move |_| shown.set(Some(v))>"Show"</button> }.into_any()
            } else {
                view! { <button data-testid="helm-reveal" on:click=move |_| reveal(rev.clone())>"Reveal"</button> }.into_any()
            }
        }
    };
    let toggle = move |_| {
        picked.update(|p| {
            if let Some(i) = p.iter().position(|x| *x == v) {
                p.remove(i);
            } else {
                p.push(v);
                if p.len() > 2 {
                    p.remove(0);
                }
            }
        })
    };
    view! {
        <tr data-testid="helm-revision" data-revision=v.to_string() data-status=rev.status.clone()>
            <td class="num">{v}</td>
            <td>{rev.status.clone()}</td>
            <td class="mono muted">{rev.secret.clone()}</td>
            <td class="actions">{button}</td>
            <td><input type="checkbox" data-testid="helm-compare" disabled=move || !known()
                prop:checked=move || picked.with(|p| p.contains(&v)) on:change=toggle/></td>
        </tr>
    }
}

/// The diff of the two picked revisions, older first, once both are revealed.
fn compared(revealed: Revealed, picked: RwSignal<Vec<u64>>) -> Option<AnyView> {
    let mut pair = picked.get();
    if pair.len() != 2 {
        return None;
    }
    pair.sort_unstable();
    let (a, b) = revealed.with(|m| {
        let get = |v: u64| m.get(&v).and_then(|d| d.as_ref().ok()).map(comparable);
        (get(pair[0]), get(pair[1]))
    });
    let (a, b) = (a?, b?);
    let changes = diff(&a, &b);
    Some(view! {
        <h3>{format!("Revision {} → {}", pair[0], pair[1])}</h3>
        {changes.is_empty().then(|| view! { <p class="muted" data-testid="helm-same">"No difference in the chart, values or manifest."</p> })}
        <FieldDiff changes testid="helm-diff"/>
    }.into_any())
}

/// A revealed revision: its chart, values, notes and manifest, or why it
/// could not be read.
fn detail(v: u64, d: Result<Decoded, String>) -> AnyView {
    let d = match d {
        Err(e) => {
            return view! { <p class="error-text" role="alert" data-testid="helm-error">{format!("Revision {v} could not be read: {e}")}</p> }.into_any();
        }
        Ok(d) => d,
    };
    view! {
        <section class="helm-revision" data-testid="helm-detail" data-revision=v.to_string()>
            <h3>{format!("Revision {v}: {} {} (app {})", d.chart, d.chart_version, d.app_version)}</h3>
            <p class="muted small">{format!("{} · {} · deployed {}", d.status, d.description, d.deployed)}</p>
            <h4>"Values"</h4>
            <pre class="yaml" data-testid="helm-values">{to_yaml(&d.values)}</pre>
            <details><summary>"The chart's defaults"</summary><pre class="yaml">{to_yaml(&d.defaults)}</pre></details>
            <details data-testid="helm-notes"><summary>"Notes"</summary><pre>{d.notes.clone()}</pre></details>
            <details data-testid="helm-manifest"><summary>"Manifest"</summary><pre class="yaml">{d.manifest.clone()}</pre></details>
        </section>
    }
    .into_any()
}
