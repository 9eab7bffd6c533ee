//! The X-ray page's part about the other tabs: which of this tab's watches
//! it holds for them, which it follows, and which it keeps alone.

use kubeglass_client::tabs::Role;
use leptos::prelude::*;

use super::KubeValue;
use crate::rules::time::Seconds;

/// The watches open now, each with this tab's part in it, on each tick.
#[component]
pub(super) fn XrayShared(kube: KubeValue, now: RwSignal<Seconds>) -> impl IntoView {
    let rows = move || {
        now.track();
        let shares = kube.with_value(|k| k.shared_watches());
        if shares.is_empty() {
            return view! { <p class="small" data-testid="xray-shared-none">"No watch is open."</p> }
                .into_any();
        }
        let rows = shares
            .into_iter()
            .map(|s| {
                let (role, part) = match s.role {
                    Role::Holding { answered, took_over } => (
                        "holding",
                        format!(
                            "this tab holds it for the others ({}{answered} caught up)",
                            if took_over { "taken over; " } else { "" }
                        ),
                    ),
                    Role::Following => ("following", "another tab holds it; this one reads its events".to_string()),
                    Role::Alone(why) => ("alone", format!("this tab's own: {why}")),
                };
                view! {
                    <tr data-testid="xray-shared" data-role=role>
                        <td><code>{s.what}</code></td><td>{part}</td>
                    </tr>
                }
            })
            .collect_view();
        view! { <table class="grid compact"><tbody>{rows}</tbody></table> }.into_any()
    };
    view! {
        <h3>"Watches shared with other tabs"</h3>
        <p class="small">"One watch per collection for every tab of this cluster: the tab holding it relays its events; when it goes, the next takes over from its version."</p>
        {rows}
    }
}
