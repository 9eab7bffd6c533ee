//! Editing an object: its YAML in an editor, Review (the server's dry run of the patch of what the person changed, field by field, the server's own changes marked), Apply of that patch with the resourceVersion the edit started from, and on a conflict the three versions and a rebase.

use kubeglass_kubectl::actions::ActionKind;
use kubeglass_client::discovery::ResourceInfo;
use std::future::IntoFuture;

use leptos::prelude::*;
use serde_json::Value;

use crate::actions::{Actions, written};
use kubeglass_kubectl::actions::ActionResult;
use crate::components::diff::ReviewTable;
use crate::components::editor::CodeEditor;
use crate::components::problem::ProblemBox;
use crate::kube::requests::edit::{Refused, dry_run, read_now};
use crate::kube::{Kube, use_kube};
use crate::rules::edit::{
    EditError, Reviewed, edit_patch, editable_yaml, field_line, parse, rebase, review,
};
use crate::rules::problem::Problem;
use crate::rules::yaml::to_yaml;
use crate::platform::spawn;

/// Where an edit is.
#[derive(Debug, Clone, PartialEq)]
enum Stage {
    /// The person edits the text.
    Editing,
    /// Asking the server (a dry run, or the object now).
    Asking,
    /// The server's dry run, to review; `patch` is what Apply writes.
    Reviewing { rows: Vec<Reviewed>, patch: Value },
    /// Written, waiting for the answer.
    Writing,
    /// Someone else wrote first: the edit's base, the edit, and theirs.
    Conflict { yours: Value, theirs: Value },
}

/// What went wrong last, shown above the editor.
#[derive(Debug, Clone, PartialEq)]
enum Trouble {
    /// The text does not read, and where.
    Text(EditError),
    /// The server refused: its words, and each field it named, in words
    /// with the line it is on in the text.
    Server(Problem, Vec<(Option<usize>, String)>),
    /// Reading the server's object failed.
    Read(Problem),
}

/// One open edit: what it edits, where it is, and its text; every field is
/// a handle, so the editor's parts share it by copy.
#[derive(Clone, Copy)]
struct EditState {
    /// Apply: the patch's write through the action queue, its own answer
    /// held here (`value`) until the next.
    write: Action<Value, Option<ActionResult>>,
    kube: StoredValue<Kube, LocalStorage>,
    target: StoredValue<(ResourceInfo, Option<String>, String)>,
    /// The object, live.
    object: RwSignal<Option<Value>>,
    /// The editor is open.
    open: RwSignal<bool>,
    /// The object the edit started from.
    base: StoredValue<Value>,
    text: RwSignal<String>,
    stage: RwSignal<Stage>,
    trouble: RwSignal<Option<Trouble>>,
    note: RwSignal<Option<String>>,
}

impl EditState {
    /// The causes a server named, each with its line in the text.
    fn placed(self, r: &Refused) -> Vec<(Option<usize>, String)> {
        let t = self.text.get_untracked();
        r.causes
            .iter()
            .map(|(field, message)| {
                let line = field_line(&t, field);
                let words = match line {
                    Some(n) => format!("line {n}: {field}: {message}"),
                    None if field.is_empty() => message.clone(),
                    None => format!("{field}: {message}"),
                };
                (line, words)
            })
            .collect()
    }

    /// The server says the object changed: fetch theirs and show all three.
    fn show_conflict(self, yours: Value) {
        let (stage, trouble) = (self.stage, self.trouble);
        stage.set(Stage::Asking);
        let (kube, (info, ns, name)) = (self.kube.get_value(), self.target.get_value());
        spawn(async move {
            match read_now(&kube, &info, ns.as_deref(), &name).await {
                Ok(theirs) => {
                    let _ = stage.try_set(Stage::Conflict { yours, theirs });
                }
                Err(p) => {
                    let _ = trouble.try_set(Some(Trouble::Read(p)));
                    let _ = stage.try_set(Stage::Editing);
                }
            }
        });
    }

    /// Review: the server's dry run of the text.
    fn ask_dry_run(self) {
        let (stage, trouble, object) = (self.stage, self.trouble, self.object);
        trouble.set(None);
        self.note.set(None);
        let sent = match parse(&self.text.get_untracked()) {
            Ok(v) => v,
            Err(e) => {
                trouble.set(Some(Trouble::Text(e)));
                return;
            }
        };
        let patch = self.base.with_value(|b| edit_patch(b, &sent));
        stage.set(Stage::Asking);
        let (kube, (info, ns, name)) = (self.kube.get_value(), self.target.get_value());
        spawn(async move {
            match dry_run(&kube, &info, ns.as_deref(), &name, &patch).await {
                Ok(result) => {
                    let live = object.get_untracked().unwrap_or(Value::Null);
                    let rows = review(&live, &sent, &result, info.has_subresource("status"));
                    let _ = stage.try_set(Stage::Reviewing { rows, patch });
                }
                Err(r) if r.conflict => self.show_conflict(sent),
                Err(r) => {
                    let lines = self.placed(&r);
                    let _ = trouble.try_set(Some(Trouble::Server(r.problem, lines)));
                    let _ = stage.try_set(Stage::Editing);
                }
            }
        });
    }

    /// Apply: write what was reviewed.
    fn apply(self, patch: &Value) {
        self.stage.set(Stage::Writing);
        self.write.dispatch_local(patch.clone());
    }

    /// The written edit's answer: close, show the conflict, or say why not.
    fn written(self, result: Result<(), Refused>) {
        match result {
            Ok(()) => self.open.set(false),
            Err(r) if r.conflict => match parse(&self.text.get_untracked()) {
                Ok(yours) => self.show_conflict(yours),
                Err(_) => self.stage.set(Stage::Editing),
            },
            Err(r) => {
                let lines = self.placed(&r);
                self.trouble.set(Some(Trouble::Server(r.problem, lines)));
                self.stage.set(Stage::Editing);
            }
        }
    }

    /// Put the edit on the server's newer object, and back to the text.
    fn put_on_theirs(self, yours: &Value, theirs: &Value) {
        let (rebased, clashes) = self.base.with_value(|b| rebase(b, yours, theirs));
        self.base.set_value(theirs.clone());
        self.text.set(to_yaml(&rebased));
        self.note.set(Some(if clashes.is_empty() {
            "Your changes are now on the server's newer object. Review them again.".to_string()
        } else {
            format!(
                "Your changes are now on the server's newer object. You and the server both changed {}; yours are kept. Review them again.",
                clashes.join(", ")
            )
        }));
        self.stage.set(Stage::Editing);
    }
}

/// The editor of one object; `open` closes it.
#[component]
pub fn ObjectEditor(
    info: ResourceInfo,
    namespace: Option<String>,
    name: String,
    object: RwSignal<Option<Value>>,
    open: RwSignal<bool>,
) -> impl IntoView {
    let actions = expect_context::<Actions>();
    let kube = StoredValue::new_local(use_kube());
    let target = StoredValue::new((info, namespace, name));
    let write = Action::new_unsync_local(move |patch: &Value| {
        let answer = target.with_value(|(info, ns, name)| {
            actions.submit(
                info.api_resource(),
                ns.as_deref(),
                name,
                ActionKind::Edit(patch.clone()),
            )
        });
        answer.into_future()
    });
    // The object the edit started from, and the text.
    let base = StoredValue::new(object.get_untracked().unwrap_or(Value::Null));
    let text = RwSignal::new(base.with_value(editable_yaml));
    let edit = EditState {
        write,
        kube,
        target,
        object,
        open,
        base,
        text,
        stage: RwSignal::new(Stage::Editing),
        trouble: RwSignal::new(None::<Trouble>),
        note: RwSignal::new(None::<String>),
    };
    // The written edit's own answer.
    Effect::new(move |_| {
        let Some(done) = write.value().get() else {
            return;
        };
        if edit.stage.get_untracked() == Stage::Writing && !write.pending().get_untracked() {
            edit.written(written(done));
        }
    });

    let body = move || match edit.stage.get() {
        Stage::Editing => view! { <EditText edit/> }.into_any(),
        Stage::Asking => view! { <p class="muted">"Asking the server…"</p> }.into_any(),
        Stage::Writing => {
            view! { <p class="muted" data-testid="edit-writing">"Writing…"</p> }.into_any()
        }
        Stage::Reviewing { rows, patch } => view! { <EditReview edit rows patch/> }.into_any(),
        Stage::Conflict { yours, theirs } => {
            view! { <ConflictPanel edit yours theirs/> }.into_any()
        }
    };
    let note = edit.note;
    view! {
        <section class="editor" data-testid="editor">
            <h3>"Edit"</h3>
            <EditTrouble trouble=edit.trouble/>
            {move || note.get().map(|n| view! { <p class="muted" data-testid="edit-note">{n}</p> })}
            {body}
        </section>
    }
}

/// What went wrong last: the text, the server's refusal with its causes, or a failed read.
#[component]
fn EditTrouble(trouble: RwSignal<Option<Trouble>>) -> impl IntoView {
    move || {
        trouble.get().map(|t| match t {
            Trouble::Text(e) => view! {
                <p class="error-box" data-testid="edit-error" role="alert">{format!("The text does not read: {e}")}</p>
            }
            .into_any(),
            Trouble::Server(p, lines) => view! {
                <div data-testid="edit-error">
                    <ProblemBox problem=p doing="write this edit".to_string() testid="edit-problem"/>
                    <ul class="edit-causes">
                        {lines.into_iter().map(|(_, l)| view! { <li data-testid="edit-cause">{l}</li> }).collect_view()}
                    </ul>
                </div>
            }
            .into_any(),
            Trouble::Read(p) => view! {
                <div data-testid="edit-error"><ProblemBox problem=p doing="read the object as the server holds it now".to_string() testid="edit-problem"/></div>
            }
            .into_any(),
        })
    }
}

/// The text in the editor (the lines an error names marked), and Review and Cancel.
#[component]
fn EditText(edit: EditState) -> impl IntoView {
    let trouble = edit.trouble;
    let bad = Signal::derive(move || {
        trouble.with(|t| match t {
            Some(Trouble::Text(e)) => e.line.into_iter().collect(),
            Some(Trouble::Server(_, causes)) => {
                causes.iter().filter_map(|(line, _)| *line).collect()
            }
            _ => Vec::new(),
        })
    });
    view! {
        <CodeEditor text=edit.text testid="edit-text" label="The object, as YAML" bad/>
        <div class="actions">
            <button data-testid="edit-review" on:click=move |_| edit.ask_dry_run()>"Review"</button>
            <button on:click=move |_| edit.open.set(false)>"Cancel"</button>
        </div>
    }
}

/// The server's dry run to review, field by field, with Apply (of `patch`) and Back.
#[component]
fn EditReview(edit: EditState, rows: Vec<Reviewed>, patch: Value) -> impl IntoView {
    let empty = rows.is_empty();
    view! {
        <p class="muted small">"What the server would store, compared with the object now. Fields marked "
            <span class="badge">"server"</span>" were changed by the server (defaults, admission), not by you."</p>
        {empty.then(|| view! { <p data-testid="review-empty">"Nothing would change."</p> })}
        <ReviewTable rows testid="review"/>
        <div class="actions">
            <button data-testid="edit-apply" disabled=empty on:click=move |_| edit.apply(&patch)>"Apply"</button>
            <button on:click=move |_| edit.stage.set(Stage::Editing)>"Back to the text"</button>
        </div>
    }
}

/// Someone else wrote first: the three versions, and rebase or discard.
#[component]
fn ConflictPanel(edit: EditState, yours: Value, theirs: Value) -> impl IntoView {
    let base_text = edit.base.with_value(editable_yaml);
    let yours_text = to_yaml(&yours);
    let theirs_text = editable_yaml(&theirs);
    view! {
        <p class="error-box" data-testid="edit-conflict" role="alert">
            "The object changed on the server after your edit began, so nothing was written. Your edit can be put on top of the newer object and reviewed again."
        </p>
        <div class="three-col">
            <div><h4>"When you began"</h4><pre class="yaml">{base_text}</pre></div>
            <div><h4>"Yours"</h4><pre class="yaml">{yours_text}</pre></div>
            <div><h4>"The server's now"</h4><pre class="yaml" data-testid="edit-theirs">{theirs_text}</pre></div>
        </div>
        <div class="actions">
            <button data-testid="edit-rebase" on:click=move |_| edit.put_on_theirs(&yours, &theirs)>"Put my edit on the newer object"</button>
            <button on:click=move |_| edit.open.set(false)>"Discard my edit"</button>
        </div>
    }
}
