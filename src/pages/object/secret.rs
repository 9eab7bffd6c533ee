//! A Secret's data: not fetched until the person confirms Reveal, then kept in this component's signal only, masked until clicked.

use crate::platform::spawn;
use leptos::prelude::*;

use crate::components::dialog::confirm;
use crate::components::problem::ProblemBox;
use crate::kube::reads::reveal_secret;
use crate::kube::use_kube;
use crate::model::problem::Problem;
use crate::model::secrets::RevealedValue;

/// The "Data" section of a Secret's page.
#[component]
pub fn SecretData(namespace: Option<String>, name: String) -> impl IntoView {
    // A Secret's values: fetched once when the person confirms Reveal, kept
    // in this page's signal only, gone with the page.
    let revealed: RwSignal<Option<Result<Vec<RevealedValue>, Problem>>> = RwSignal::new(None);
    let unmasked: RwSignal<std::collections::BTreeSet<String>> = RwSignal::new(Default::default());
    let kube = StoredValue::new_local(use_kube());
    let target = match &namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.clone(),
    };
    {
        let reveal = move |_| {
            if !confirm(&format!(
                "Reveal the values of Secret {target}? They are fetched once and shown on this page until you leave it."
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
                        <p class="muted small">"The values are not fetched until you ask. "
                            <button data-testid="secret-reveal" on:click=reveal.clone()>"Reveal…"</button>
                        </p>
                    }.into_any(),
                    Some(Err(p)) => view! {
                        <ProblemBox problem=p doing="read the Secret's values".to_string() testid="secret-error"/>
                    }.into_any(),
                    Some(Ok(values)) if values.is_empty() => view! { <p class="muted small">"no data"</p> }.into_any(),
                    Some(Ok(values)) => view! {
                        <table class="grid">
                            <tbody>
                                {values.into_iter().map(|v| {
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
}
