//! The marked rows' bar: how many are marked, the verbs the kind has and the person may use on some of them, and the one confirmation (what it asks, each object's review, then each object's result).

use std::time::Duration;

use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::kube_core::ApiResource;
use kubeglass_kubectl::access::Reviews;
use kubeglass_kubectl::drain::{Allow, DrainOptions};
use leptos::prelude::*;

use super::state::Table;
use crate::actions::Actions;
use crate::actions::bulk::{self, BulkRun};
use crate::kube::stores::session::SessionState;
use crate::kube::use_kube;
use crate::rules::bulk::{BulkVerb, Fate, Input, question, tally, tally_words};
use crate::rules::objects::KindActions;

/// How many marked objects the bar asks about by name to decide which
/// verbs to offer (their answers are kept for the confirmation).
const OFFER_SAMPLE: usize = 200;
/// Of those, how many at most by name.
const OFFER_NAMED: usize = 20;
/// The most result rows drawn (the counts cover them all).
const ROWS_SHOWN: usize = 1000;

/// The bar over a table whose rows are marked.
#[component]
pub fn BulkBar(table: Table, info: ResourceInfo) -> impl IntoView {
    let read_only = expect_context::<SessionState>().read_only();
    let offered = if read_only { Vec::new() } else { BulkVerb::offered(&KindActions::of(&info)) };
    let resource = StoredValue::new(info.api_resource());
    let kube = StoredValue::new_local(use_kube());
    let reviews = table.reviews;
    let usable = offered_to_person(table, resource, reviews, offered.clone());
    let open: RwSignal<Option<BulkRun>, LocalStorage> = RwSignal::new_local(None);
    let plural = info.plural.clone();
    // A run's signals belong to the bar, not to the button that started
    // it: the button goes when the marks left are ones the person may not
    // act on, and the run must outlive it.
    let owner = StoredValue::new_local(Owner::current());
    let begin = move |verb: BulkVerb| {
        let keys = table.marks.with_untracked(|m| m.in_order(&table.all_keys()));
        let Some(k) = kube.try_get_value() else { return };
        let check = || bulk::check(&k, reviews.get_value(), &resource.get_value(), verb, keys);
        let run = match owner.get_value() {
            Some(o) => o.with(check),
            None => check(),
        };
        open.set(Some(run));
    };
    let count = move || table.marks.with(|m| m.len());
    let any_marked = move || count() != 0;
    view! {
        <Show when=move || any_marked() || open.with(Option::is_some)>
            <div class="bulk-bar" data-testid="bulk-bar">
                <span data-testid="bulk-count">{move || format!("{} marked", count())}</span>
                <button data-testid="bulk-clear" on:click=move |_| table.marks.update(|m| m.clear())>"Clear"</button>
                {read_only.then(|| view! { <span class="muted small" data-testid="bulk-read-only">"This session is read-only: its proxy refuses every write."</span> })}
                {offered.iter().map(|&verb| view! {
                    <Show when=move || usable.with(|u| u.contains(&verb))>
                        <button data-testid=format!("bulk-{}", verb.name()) class:danger=verb == BulkVerb::Delete
                            disabled=move || open.with(Option::is_some)
                            on:click=move |_| begin(verb)>{verb.button()}</button>
                    </Show>
                }).collect_view()}
                <Show when=move || !read_only && any_marked() && usable.with(Vec::is_empty)>
                    <span class="muted small" data-testid="bulk-none">"You may not change these."</span>
                </Show>
            </div>
        </Show>
        {move || open.get().map(|run| view! { <Confirm run resource plural=plural.clone() open/> })}
    }
}

/// The verbs (of `offered`) the person may use on at least one marked row,
/// asked again as the marks change (the answers are kept).
fn offered_to_person(
    table: Table,
    resource: StoredValue<ApiResource>,
    reviews: StoredValue<Reviews, LocalStorage>,
    offered: Vec<BulkVerb>,
) -> RwSignal<Vec<BulkVerb>> {
    let usable = RwSignal::new(Vec::new());
    let asked = StoredValue::new(0u64);
    let kube = use_kube();
    Effect::new(move |_| {
        let mut sample: Vec<String> = table.marks.with(|m| m.iter().take(OFFER_SAMPLE).cloned().collect());
        sample.sort();
        asked.update_value(|n| *n += 1);
        let this = asked.get_value();
        if sample.is_empty() || offered.is_empty() {
            usable.set(Vec::new());
            return;
        }
        let (reviews, resource, offered) = (reviews.get_value(), resource.get_value(), offered.clone());
        kube.spawn(async move {
            let mut may = Vec::new();
            for verb in offered {
                if bulk::may_some(&reviews, &resource, verb, &sample, OFFER_NAMED).await {
                    may.push(verb);
                }
            }
            // Only the latest marks' answer is shown.
            if asked.try_get_value() == Some(this) {
                let _ = usable.try_set(may);
            }
        });
    });
    usable
}

/// What the person typed or ticked for a verb.
#[derive(Clone, Copy)]
struct Typed {
    text: RwSignal<String>,
    force: RwSignal<bool>,
    emptydir: RwSignal<bool>,
    timeout: RwSignal<String>,
}

impl Typed {
    fn new() -> Self {
        Self {
            text: RwSignal::new(String::new()),
            force: RwSignal::new(false),
            emptydir: RwSignal::new(false),
            timeout: RwSignal::new("300".to_string()),
        }
    }

    /// A drain's options from the boxes (kubectl's flags) and the timeout.
    fn drain(self) -> DrainOptions {
        let secs = self.timeout.get_untracked().trim().parse::<u64>().unwrap_or(300).max(1);
        DrainOptions {
            allow: Allow { unmanaged: self.force.get_untracked(), emptydir_data: self.emptydir.get_untracked() },
            timeout: Duration::from_secs(secs),
        }
    }
}

/// The one confirmation of a bulk action: the question, what the verb
/// needs typed, each object's review and then its result.
#[component]
fn Confirm(
    run: BulkRun,
    resource: StoredValue<ApiResource>,
    plural: String,
    open: RwSignal<Option<BulkRun>, LocalStorage>,
) -> impl IntoView {
    let verb = run.verb;
    let typed = Typed::new();
    let started = RwSignal::new(false);
    let mistake = RwSignal::new(None::<String>);
    let fates = StoredValue::new(run.fates.clone());
    let counts = Memo::new(move |_| {
        let now: Vec<_> = fates.with_value(|fs| fs.iter().map(|f| f.get()).collect());
        tally(&now)
    });
    let kube = StoredValue::new_local(use_kube());
    let actions = expect_context::<Actions>();
    let held = StoredValue::new_local(run.clone());
    let go = move |_| {
        let work = match verb.work(&typed.text.get_untracked()) {
            Ok(w) => w,
            Err(e) => return mistake.set(Some(e)),
        };
        mistake.set(None);
        let Some(k) = kube.try_get_value() else { return };
        started.set(true);
        held.with_value(|run| bulk::start(&k, actions, resource.get_value(), run, work, typed.drain()));
    };
    let question = question(verb, &plural, &run.keys);
    let checking = move || counts.with(|c| !started.get() && c.pending > 0);
    view! {
        <section class="bulk-confirm panel" data-testid="bulk-confirm" data-verb=verb.name() role="dialog" aria-label="Confirm the action on the marked rows">
            <p class="bulk-question" data-testid="bulk-question">{question}</p>
            <Show when=move || !started.get()>
                <VerbInput verb typed/>
            </Show>
            <p class="small" data-testid="bulk-tally" role="status">{move || tally_words(&counts.get(), started.get(), verb)}</p>
            {move || mistake.get().map(|m| view! { <p class="error-box" data-testid="bulk-mistake" role="alert">{m}</p> })}
            <div class="actions">
                <Show when=move || !started.get()>
                    <button class:danger=verb == BulkVerb::Delete data-testid="bulk-go" on:click=go
                        disabled=move || checking() || counts.with(|c| c.allowed == 0)>
                        {move || format!("{} {}", verb.button().trim_end_matches('…'), counts.with(|c| c.allowed))}
                    </button>
                </Show>
                <button data-testid="bulk-close" on:click=move |_| open.set(None)>
                    {move || if started.get() { "Close" } else { "Cancel" }}
                </button>
            </div>
            <Results run/>
        </section>
    }
}

/// What `verb` asks the person for: replicas, label or annotation changes,
/// a drain's boxes.
#[component]
fn VerbInput(verb: BulkVerb, typed: Typed) -> impl IntoView {
    let Typed { text, force, emptydir, timeout } = typed;
    match verb.input() {
        Input::None => ().into_any(),
        Input::Replicas => view! { <label>"Replicas " <input data-testid="bulk-input" size="5" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))/></label> }.into_any(),
        Input::Labels => view! { <label>"Labels (key=value to set, key- to remove) " <input data-testid="bulk-input" size="40" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))/></label> }.into_any(),
        Input::Annotations => view! { <label>"Annotations, one a line (key=value to set, key- to remove)" <textarea data-testid="bulk-input" rows="3" cols="50" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea></label> }.into_any(),
        Input::Drain => view! {
            <label><input type="checkbox" data-testid="bulk-drain-force" prop:checked=move || force.get() on:change=move |ev| force.set(event_target_checked(&ev))/>" pods with no controller (--force)"</label>
            <label><input type="checkbox" data-testid="bulk-drain-emptydir" prop:checked=move || emptydir.get() on:change=move |ev| emptydir.set(event_target_checked(&ev))/>" delete emptyDir data (--delete-emptydir-data)"</label>
            <label>"timeout a node (s) "<input data-testid="bulk-drain-timeout" size="5" prop:value=move || timeout.get() on:input=move |ev| timeout.set(event_target_value(&ev))/></label>
        }.into_any(),
    }
}

/// Each object of `run` with its fate (the first [`ROWS_SHOWN`]).
#[component]
fn Results(run: BulkRun) -> impl IntoView {
    let shown: Vec<(String, RwSignal<Fate>)> = run.keys.iter().cloned().zip(run.fates.iter().copied()).take(ROWS_SHOWN).collect();
    let more = run.keys.len().saturating_sub(ROWS_SHOWN);
    view! {
        <ol class="bulk-results">
            {shown.into_iter().map(|(key, fate)| {
                let k = key.clone();
                view! {
                    <li data-testid="bulk-result" data-key=k data-state=move || fate.with(|f| f.state())
                        data-sent=move || fate.with(|f| matches!(f, Fate::Refused { sent: true, .. } | Fate::Done(_) | Fate::Failed(_)).to_string())>
                        <span class="name">{key}</span>" "<span class="bulk-fate">{move || fate.with(|f| f.words())}</span>
                    </li>
                }
            }).collect_view()}
        </ol>
        {(more > 0).then(|| view! { <p class="muted small">{format!("and {more} more (counted above)")}</p> })}
    }
}
