//! A Secret's data and annotation values: not fetched until the person confirms Reveal, then kept in this page's signal only, data masked until clicked.

use std::collections::BTreeSet;

use crate::platform::spawn;
use leptos::prelude::*;
use serde_json::Value;

use super::meta::chip;
use crate::components::dialog::confirm;
use crate::components::problem::ProblemBox;
use crate::kube::requests::reads::reveal_secret;
use crate::kube::use_kube;
use crate::rules::objects::string_map;
use crate::rules::problem::Problem;
use crate::rules::secrets::Revealed;

/// What a Secret's page holds once the person revealed it: fetched once,
/// gone with the page.
pub type RevealSignal = RwSignal<Option<Result<Revealed, Problem>>>;

/// A Secret's annotations: keys only (the metadata cache holds no value,
/// since tools keep the whole Secret in one) until Reveal brings them.
#[component]
pub fn SecretAnnotations(object: RwSignal<Option<Value>>, revealed: RevealSignal) -> impl IntoView {
    let chips = move || {
        let revealed = revealed.with(|r| {
            r.as_ref()
                .and_then(|r| r.as_ref().ok())
                .map(|r| r.annotations.clone())
        });
        match revealed {
            Some(a) => a
                .iter()
                .map(|(k, v)| chip(k, v, "annotations-chip".into()))
                .collect_view()
                .into_any(),
            None => object
                .with(|o| o.as_ref().map(|o| string_map(o, "annotations")))
                .unwrap_or_default()
                .into_iter()
                .map(|(k, _)| {
                    view! {
                        <span class="chip" data-testid="annotations-chip" title="hidden until Reveal">
                            {k}<span class="muted">"=•••"</span>
                        </span>
                    }
                })
                .collect_view()
                .into_any(),
        }
    };
    view! { <div class="chips" data-testid="annotations">{chips}</div> }
}

/// The "Data" section of a Secret's page, with the Reveal that also brings
/// the annotations' values.
#[component]
pub fn SecretData(
    namespace: Option<String>,
    name: String,
    revealed: RevealSignal,
) -> impl IntoView {
    let unmasked: RwSignal<BTreeSet<String>> = RwSignal::new(Default::default());
    let kube = StoredValue::new_local(use_kube());
    let target = match &namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.clone(),
    };
    let reveal = move |_| {
        if !confirm(&format!(
            "Reveal the values of Secret {target}, its annotations' with them? They are fetched once and shown on this page until you leave it."
        )) {
            return;
        }
        let (kube, ns, name) = (kube.get_value(), namespace.clone(), name.clone());
        spawn(async move {
            let r = reveal_secret(&kube, ns.as_deref(), &name).await;
            let _ = revealed.try_set(Some(r));
        });
    };
    view! {
        <h3>"Data"</h3>
        <div data-testid="secret-data">
            {move || match revealed.get() {
                None => view! {
                    <p class="muted small">"The values (and the annotations') are not fetched until you ask. "
                        <button data-testid="secret-reveal" on:click=reveal.clone()>"Reveal…"</button>
                    </p>
                }.into_any(),
                Some(Err(p)) => view! {
                    <ProblemBox problem=p doing="read the Secret's values".to_string() testid="secret-error"/>
                }.into_any(),
                Some(Ok(r)) if r.values.is_empty() => view! { <p class="muted small">"no data"</p> }.into_any(),
                Some(Ok(r)) => view! {
                    <table class="grid">
                        <tbody>
                            {r.values.into_iter().map(|v| {
                                let key = v.key.clone();
                                let k2 = key.clone();
                                let shown = move || unmasked.with(|u| u.contains(&k2));
                                let toggle = {
                                    let key = key.clone();
                                    move |_| unmasked.update(|u| if !u.remove(&key) { u.insert(key.clone()); })
                                };
                                let text = v.shown();
                                view! {
                                    <tr data-testid="secret-key">
                                        <td class="name">{key}</td>
                                        <td><button class="secret-value" data-testid="secret-value" on:click=toggle>
                                            {move || if shown() { text.clone() } else { "•••••• (click to show)".to_string() }}
                                        </button></td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any(),
            }}
        </div>
    }
}
