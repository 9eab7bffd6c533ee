//! One object, live: status and conditions, labels and annotations, owners
//! and owned objects (found through the owner-UID index of a shared
//! informer) as links, its events, a read-only YAML view (managedFields folded), and
//! the actions the person's RBAC allows (asked with SelfSubjectAccessReview),
//! each confirmed and recorded as an Event.

use crate::state::session::SessionState;
use kubeglass_client::access::{AccessQuery, can_i};
use kubeglass_client::actions::ActionKind;
use kubeglass_client::cache::indexer::{OWNER_UID_INDEX, owner_uid_index};
use kubeglass_client::cache::{InformerOptions, Notification, redact_secret_metadata};
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::rest::table::TableRowObject;
use kubeglass_web::{FrameQueue, spawn};
use leptos::prelude::*;
use serde_json::Value;

use crate::components::dialog::{ask_label_changes, confirm, prompt};
use crate::route::Route;
use crate::state::secrets::{RevealedValue, revealed_values};
use crate::state::table::{parse_time, short_age};
use crate::state::{ClusterState, Kube, Now, table_options, use_kube};
use kubeglass_client::typed::SecretsApi;

/// The page for `#/o/<resource>/<namespace>/<name>`.
#[component]
pub fn ObjectPage(resource: String, namespace: Option<String>, name: String) -> impl IntoView {
    let kube = use_kube();
    let info: RwSignal<Option<Result<ResourceInfo, String>>> = RwSignal::new(None);
    let query = resource.clone();
    spawn(async move {
        let r = match kube.resolve(&query).await {
            Ok(Some(i)) => Ok(i),
            Ok(None) => Err(format!("the server has no resource called “{query}”")),
            Err(e) => Err(e),
        };
        info.set(Some(r));
    });
    move || match info.get() {
        None => view! { <p class="muted">"Loading…"</p> }.into_any(),
        Some(Err(e)) => view! { <p class="error-box">{e}</p> }.into_any(),
        Some(Ok(i)) => {
            view! { <LiveObject info=i namespace=namespace.clone() name=name.clone()/> }.into_any()
        }
    }
}

/// Renders JSON as YAML (block style; strings quoted when they would be
/// misread), folding `metadata.managedFields`.
pub fn to_yaml(v: &Value) -> String {
    fn scalar(s: &str) -> String {
        let plain = !s.is_empty()
            && !s.starts_with(|c: char| " -?:,[]{}#&*!|>'\"%@`".contains(c) || c.is_ascii_digit())
            && !s.contains(": ")
            && !s.contains(" #")
            && !s.contains('\n')
            && !s.ends_with(' ')
            && !matches!(
                s,
                "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
            );
        if plain {
            s.to_string()
        } else {
            serde_json::to_string(s).unwrap_or_default()
        }
    }
    fn walk(v: &Value, indent: usize, out: &mut String, path: &str) {
        let pad = "  ".repeat(indent);
        match v {
            Value::Object(m) if !m.is_empty() => {
                for (k, child) in m {
                    let p = format!("{path}.{k}");
                    if p == ".metadata.managedFields" {
                        let n = child.as_array().map_or(0, Vec::len);
                        out.push_str(&format!("{pad}managedFields: # {n} entries, folded\n"));
                        continue;
                    }
                    match child {
                        Value::Object(c) if !c.is_empty() => {
                            out.push_str(&format!("{pad}{}:\n", scalar(k)));
                            walk(child, indent + 1, out, &p);
                        }
                        Value::Array(a) if !a.is_empty() => {
                            out.push_str(&format!("{pad}{}:\n", scalar(k)));
                            walk(child, indent, out, &p);
                        }
                        _ => {
                            out.push_str(&format!("{pad}{}: ", scalar(k)));
                            walk(child, 0, out, &p);
                        }
                    }
                }
            }
            Value::Array(a) if !a.is_empty() => {
                for item in a {
                    match item {
                        Value::Object(m) if !m.is_empty() => {
                            let mut inner = String::new();
                            walk(item, indent + 1, &mut inner, path);
                            let trimmed = inner.trim_start_matches(' ');
                            out.push_str(&format!("{pad}- {trimmed}"));
                        }
                        _ => {
                            out.push_str(&format!("{pad}- "));
                            walk(item, 0, out, path);
                        }
                    }
                }
            }
            Value::Object(_) => out.push_str("{}\n"),
            Value::Array(_) => out.push_str("[]\n"),
            Value::String(s) => out.push_str(&format!("{}\n", scalar(s))),
            other => out.push_str(&format!("{other}\n")),
        }
    }
    let mut out = String::new();
    walk(v, 0, &mut out, "");
    out
}

/// May the person `verb` this object (or its `sub`resource)? An error when
/// the cluster could not be asked, which is not the same as "no".
async fn may(
    kube: &Kube,
    verb: &str,
    info: &ResourceInfo,
    ns: Option<&str>,
    name: &str,
    sub: Option<&str>,
) -> Result<bool, String> {
    let query = AccessQuery {
        verb: verb.into(),
        group: info.group.clone(),
        resource: info.plural.clone(),
        namespace: ns.map(str::to_string),
        name: Some(name.to_string()),
        subresource: sub.map(str::to_string),
    };
    can_i(&kube.client, &query)
        .await
        .map(|a| a.allowed())
        .map_err(|e| e.to_string())
}

/// Where the objects a kind owns live: the child resource, and whether
/// they are the pods on a node (found by field selector) rather than by
/// owner reference.
fn children_of(info: &ResourceInfo) -> Option<(&'static str, bool)> {
    match (info.group.as_str(), info.plural.as_str()) {
        ("apps", "deployments") => Some(("replicasets.apps", false)),
        ("apps", "replicasets" | "statefulsets" | "daemonsets") | ("batch", "jobs") => {
            Some(("pods", false))
        }
        ("batch", "cronjobs") => Some(("jobs.batch", false)),
        ("", "services") => Some(("endpointslices.discovery.k8s.io", false)),
        ("", "nodes") => Some(("pods", true)),
        _ => None,
    }
}

/// The objects this one owns (or, for a node, the pods on it), live, from a
/// shared Table informer of the child resource in the same namespace,
/// looked up by the owner-UID index.
#[component]
fn Owned(
    child: ResourceInfo,
    on_node: bool,
    namespace: Option<String>,
    name: String,
    uid: Memo<Option<String>>,
) -> impl IntoView {
    let kube = use_kube();
    let now = expect_context::<Now>().0;
    let mut options = if on_node {
        let mut o = table_options("/api/v1/pods");
        o.reflector.field_selector = Some(format!("spec.nodeName={name}"));
        o
    } else {
        match child.collection_path(namespace.as_deref()) {
            Ok(path) => table_options(&path),
            Err(e) => return view! { <p class="error-box">{e.to_string()}</p> }.into_any(),
        }
    };
    options
        .indexers
        .push((OWNER_UID_INDEX.into(), owner_uid_index()));
    let tick = RwSignal::new(0u64);
    let watch = kube.watch_frames("owned", options, move |_, _| tick.update(|t| *t += 1));
    // The informer may be shared with a view that did not ask for the index.
    if !watch
        .indexer()
        .borrow()
        .index_names()
        .iter()
        .any(|n| n == OWNER_UID_INDEX)
    {
        // Checked just above, so it cannot conflict.
        let _ = watch.add_index(OWNER_UID_INDEX, owner_uid_index());
    }
    let watch = StoredValue::new_local(watch);
    // (synced, rows): name, namespace, kubectl's columns, created, being deleted.
    let rows = Memo::new(move |_| {
        tick.get();
        let uid = uid.get();
        watch.with_value(|inf| {
            let indexer = inf.indexer();
            let indexer = indexer.borrow();
            let mut found: Vec<std::rc::Rc<TableRowObject>> = if on_node {
                indexer.list()
            } else {
                uid.and_then(|u| indexer.by_index(OWNER_UID_INDEX, &u).ok())
                    .unwrap_or_default()
            };
            found.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
            let columns = inf.columns();
            let rows = found
                .iter()
                .map(|r| {
                    // kubectl's own columns, except the name and age shown apart.
                    let summary = columns
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| c.priority == 0 && c.name != "Name" && c.name != "Age")
                        .map(|(i, c)| format!("{} {}", c.name, r.row.cell_text(i)))
                        .collect::<Vec<_>>()
                        .join(" · ");
                    (
                        r.metadata.name.clone().unwrap_or_default(),
                        r.metadata.namespace.clone(),
                        summary,
                        r.metadata
                            .creation_timestamp
                            .as_ref()
                            .map(|t| t.0.as_second() as f64),
                        r.metadata.deletion_timestamp.is_some(),
                    )
                })
                .collect::<Vec<_>>();
            (inf.has_synced(), rows)
        })
    });
    let qualified = child.qualified_name();
    let kind = child.kind.clone();
    view! {
        <table class="grid" data-testid="owned">
            <tbody>
                {move || {
                    let (synced, rows) = rows.get();
                    if rows.is_empty() {
                        let text = if synced { "none" } else { "loading…" };
                        return view! { <tr><td class="muted">{text}</td></tr> }.into_any();
                    }
                    rows.into_iter().map(|(n, ns, summary, created, deleting)| {
                        let link = Route::Object { resource: qualified.clone(), namespace: ns, name: n.clone() }.link();
                        let age = created.map(|t| short_age(now.get_untracked() - t)).unwrap_or_default();
                        let cls = if deleting { "deleting" } else { "" };
                        let label = format!("{} {n}", kind.clone());
                        let name_cell = match link {
                            Some(href) => view! { <a href=href data-testid="owned-link">{label}</a> }.into_any(),
                            None => view! { <span>{label}</span> }.into_any(),
                        };
                        view! {
                            <tr class=cls data-testid="owned-object">
                                <td class="name">{name_cell}</td>
                                <td class="muted small">{summary}</td>
                                <td class="num">{age}</td>
                            </tr>
                        }
                    }).collect_view().into_any()
                }}
            </tbody>
        </table>
    }
    .into_any()
}

/// One of the object's events: last seen, type, reason, message, count.
type EventLine = (i64, String, String, String, i32);

/// What the person may do here.
#[derive(Debug, Clone, Default, PartialEq)]
struct Allowed {
    delete: bool,
    patch: bool,
    scale: bool,
    checked: bool,
    /// The cluster could not be asked (not the same as "not allowed").
    error: Option<String>,
}

#[component]
fn LiveObject(info: ResourceInfo, namespace: Option<String>, name: String) -> impl IntoView {
    let kube = use_kube();
    let cluster = expect_context::<ClusterState>();
    let now = expect_context::<Now>().0;

    // The object itself, live: a one-object informer (field selector on the name).
    let path = match info.collection_path(namespace.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            return view! { <p class="error-box" data-testid="route-error">{e.to_string()}</p> }
                .into_any();
        }
    };
    let is_secret = crate::state::secrets::is_secret(&info);
    let mut options = InformerOptions::<DynamicObject>::new(path);
    options.transform = None; // managedFields are folded in the YAML view, not dropped
    options.reflector.field_selector = Some(format!("metadata.name={name}"));
    if is_secret {
        // A Secret's data is fetched only when the person asks (Reveal),
        // and `kubectl apply`'s copy of it in an annotation is never kept.
        options.reflector = options.reflector.metadata_only();
        options.transform = Some(redact_secret_metadata::<DynamicObject>());
    }
    let informer = kube.factory.informer(options);
    let object: RwSignal<Option<Value>> = RwSignal::new(None);
    let gone = RwSignal::new(false);
    let inf = (*informer).clone();
    let key = match &namespace {
        Some(ns) if info.namespaced => format!("{ns}/{name}"),
        _ => name.clone(),
    };
    let k2 = key.clone();
    let (api_version, kind_name) = (info.api_version(), info.kind.clone());
    let frames = FrameQueue::new("object", move |_: Vec<()>| {
        let current = inf.indexer().borrow().get(&k2);
        match current {
            Some(o) => {
                // Listed items carry no apiVersion/kind: put them back, first.
                let mut v = serde_json::Map::new();
                v.insert("apiVersion".into(), api_version.clone().into());
                v.insert("kind".into(), kind_name.clone().into());
                if let Ok(Value::Object(m)) = serde_json::to_value(o.as_ref()) {
                    for (k, val) in m {
                        if k != "apiVersion" && k != "kind" {
                            v.insert(k, val);
                        }
                    }
                }
                object.set(Some(Value::Object(v)));
                gone.set(false);
            }
            None => gone.set(inf.has_synced()),
        }
    });
    let f2 = frames.clone();
    let reg = informer.add_handler(move |_: &Notification<DynamicObject>| frames.add(()), None);
    let inf2 = (*informer).clone();
    Effect::new(move |_| {
        now.track();
        if inf2.has_synced() {
            f2.add(());
        }
    });

    // Its events (core/v1, matched by the involved object's name and kind).
    let events: RwSignal<Vec<EventLine>> = RwSignal::new(Vec::new());
    let event_sub = namespace
        .clone()
        .filter(|_| info.namespaced)
        .or(Some("default".into()))
        .map(|ns| {
            let mut o =
                InformerOptions::<DynamicObject>::new(format!("/api/v1/namespaces/{ns}/events"));
            o.reflector.field_selector = Some(format!(
                "involvedObject.name={name},involvedObject.kind={}",
                info.kind
            ));
            let ev_informer = kube.factory.informer(o);
            let inf = (*ev_informer).clone();
            let frames = FrameQueue::new("object-events", move |_: Vec<()>| {
                let mut rows: Vec<_> = inf
                    .indexer()
                    .borrow()
                    .list()
                    .iter()
                    .map(|e| {
                        let text = |p: &str| {
                            e.data
                                .pointer(p)
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string()
                        };
                        let last = parse_time(&text("/lastTimestamp"))
                            .or_else(|| parse_time(&text("/eventTime")))
                            .unwrap_or_default() as i64;
                        let count = e
                            .data
                            .pointer("/count")
                            .and_then(Value::as_i64)
                            .unwrap_or(1) as i32;
                        (
                            last,
                            text("/type"),
                            text("/reason"),
                            text("/message"),
                            count,
                        )
                    })
                    .collect();
                rows.sort_by_key(|r| std::cmp::Reverse(r.0));
                events.set(rows);
            });
            let reg = ev_informer
                .add_handler(move |_: &Notification<DynamicObject>| frames.add(()), None);
            (ev_informer, reg)
        });
    let _keep = StoredValue::new_local((informer, reg, event_sub));
    on_cleanup(move || {
        _keep.try_with_value(|(_, r, e)| {
            r.remove();
            if let Some((_, r)) = e {
                r.remove();
            }
        });
    });

    // RBAC: which actions to offer.
    let allowed = RwSignal::new(Allowed::default());
    let read_only = expect_context::<SessionState>().read_only();
    if read_only {
        // The proxy refuses every write: nothing to ask RBAC about.
        allowed.set(Allowed {
            checked: true,
            ..Allowed::default()
        });
    } else {
        let (kube, info, ns, name) = (kube.clone(), info.clone(), namespace.clone(), name.clone());
        spawn(async move {
            let ns = ns.as_deref();
            let mut error = None;
            let mut answer = |r: Result<bool, String>| {
                r.unwrap_or_else(|e| {
                    error.get_or_insert(e);
                    false
                })
            };
            let delete = info.supports("delete")
                && answer(may(&kube, "delete", &info, ns, &name, None).await);
            let patch =
                info.supports("patch") && answer(may(&kube, "patch", &info, ns, &name, None).await);
            let scale = info.has_subresource("scale")
                && answer(may(&kube, "update", &info, ns, &name, Some("scale")).await);
            allowed.set(Allowed {
                delete,
                patch,
                scale,
                checked: true,
                error,
            });
        });
    }

    let w = cluster.workloads;
    let resource = StoredValue::new((
        info.api_resource(),
        namespace.clone().filter(|_| info.namespaced),
        name.clone(),
    ));
    let act = move |kind: ActionKind, question: String| {
        move |_| {
            if confirm(&question) {
                resource
                    .with_value(|(r, ns, n)| w.submit(r.clone(), ns.as_deref(), n, kind.clone()));
            }
        }
    };
    let kind = info.kind.clone();
    let title = format!("{} {}", info.kind, key);
    let target = key.clone();
    let is_node = info.group.is_empty() && info.plural == "nodes";
    let restartable = info.group == "apps"
        && matches!(
            info.plural.as_str(),
            "deployments" | "statefulsets" | "daemonsets"
        );
    let labels_prompt = {
        let target = target.clone();
        move |_| match ask_label_changes(&target) {
            Some(Ok(kind)) => {
                resource.with_value(|(r, ns, n)| w.submit(r.clone(), ns.as_deref(), n, kind))
            }
            Some(Err(e)) => w.last_action.set(Some(Err(e))),
            None => {}
        }
    };
    let scale_prompt = {
        let target = target.clone();
        move |_| {
            let current = object.with_untracked(|o| {
                o.as_ref()
                    .and_then(|o| o.pointer("/spec/replicas"))
                    .and_then(Value::as_i64)
                    .unwrap_or(0)
            });
            let Some(text) = prompt(
                &format!("Scale {target} to how many replicas?"),
                &current.to_string(),
            ) else {
                return;
            };
            match text.trim().parse::<i32>() {
                Ok(n) if n >= 0 => resource.with_value(|(r, ns, nm)| {
                    w.submit(r.clone(), ns.as_deref(), nm, ActionKind::Scale(n))
                }),
                _ => w.last_action.set(Some(Err(format!(
                    "{target}: “{text}” is not a number of replicas"
                )))),
            }
        }
    };
    let outcome = move || {
        w.last_action.get().map(|r| match r {
            Ok(m) => {
                view! { <div class="action-ok" data-testid="action-result">{m}</div> }.into_any()
            }
            Err(e) => {
                view! { <div class="action-err" data-testid="action-result" role="alert">{e}</div> }
                    .into_any()
            }
        })
    };

    let chips = move |field: &'static str| {
        move || {
            object.with(|o| {
                o.as_ref()
                    .and_then(|o| o.pointer(&format!("/metadata/{field}")))
                    .and_then(Value::as_object)
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| {
                                let text = format!("{k}={}", v.as_str().unwrap_or_default());
                                view! { <span class="chip" data-testid=format!("{field}-chip")>{text}</span> }
                            })
                            .collect_view()
                    })
            })
        }
    };
    let conditions = move || {
        object.with(|o| {
            o.as_ref()
                .and_then(|o| o.pointer("/status/conditions"))
                .and_then(Value::as_array)
                .map(|cs| {
                    cs.iter()
                        .map(|c| {
                            let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                            let status = s("status");
                            let cls = if status == "True" { "status-ok" } else { "status-warn" };
                            let since = parse_time(&s("lastTransitionTime"))
                                .map(|t| short_age(now.get_untracked() - t))
                                .unwrap_or_default();
                            view! {
                                <tr data-testid="condition"><td>{s("type")}</td><td class=cls>{status}</td>
                                <td>{s("reason")}</td><td>{s("message")}</td><td>{since}</td></tr>
                            }
                        })
                        .collect_view()
                })
        })
    };
    let ns_for_links = namespace.clone();
    let namespace_for_links = move || ns_for_links.clone();
    let discovered = kube.discovered;
    let kube_discovered = move || discovered.get().and_then(Result::ok);
    // Owners as links ("none" once the object is loaded and has none).
    let owners = move || {
        let d = kube_discovered();
        object.with(|o| {
            let o = o.as_ref()?;
            let refs = o
                .pointer("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .filter(|refs| !refs.is_empty());
            let Some(refs) = refs else {
                return Some(view! { <span class="muted small">"none"</span> }.into_any());
            };
            Some(
                    refs.iter()
                        .map(|r| {
                            let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                            let (api_version, kind, owner) = (s("apiVersion"), s("kind"), s("name"));
                            let (group, version) = api_version.rsplit_once('/').unwrap_or(("", &api_version));
                            let resource = d.as_ref().and_then(|d| {
                                d.mapper().resource_for_kind(group, Some(version), &kind).map(|r| r.qualified_name())
                            });
                            let label = format!("{kind} {owner}");
                            let link = resource.and_then(|res| {
                                Route::Object {
                                    resource: res,
                                    namespace: namespace_for_links(),
                                    name: owner.clone(),
                                }
                                .link()
                            });
                            match link {
                                Some(href) => view! { <a class="chip link" href=href data-testid="owner-link">{label}</a> }.into_any(),
                                None => view! { <span class="chip">{label}</span> }.into_any(),
                            }
                        })
                        .collect_view()
                        .into_any(),
            )
        })
    };
    // What it owns: the child resource resolved through discovery first.
    let uid = Memo::new(move |_| {
        object.with(|o| {
            o.as_ref()
                .and_then(|o| o.pointer("/metadata/uid"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
    });
    let owned_section = children_of(&info).map(|(child, on_node)| {
        let found: RwSignal<Option<ResourceInfo>> = RwSignal::new(None);
        let kube = kube.clone();
        spawn(async move {
            if let Ok(Some(i)) = kube.resolve(child).await {
                found.set(Some(i));
            }
        });
        let (ns, name) = (namespace.clone(), name.clone());
        let heading = if on_node { "Pods on this node" } else { "Owns" };
        view! {
            <h3>{heading}</h3>
            {move || found.get().map(|child| view! {
                <Owned child=child on_node=on_node namespace=ns.clone() name=name.clone() uid=uid/>
            })}
        }
    });
    // A Secret's values: fetched once when the person confirms Reveal, kept
    // in this page's signal only, gone with the page.
    let revealed: RwSignal<Option<Result<Vec<RevealedValue>, String>>> = RwSignal::new(None);
    let unmasked: RwSignal<std::collections::BTreeSet<String>> = RwSignal::new(Default::default());
    let secret_section = is_secret.then(|| {
        let api = StoredValue::new_local(SecretsApi::new(
            kube.client.clone(),
            namespace.as_deref(),
        ));
        let (name, target) = (name.clone(), key.clone());
        let reveal = move |_| {
            if !confirm(&format!(
                "Reveal the values of Secret {target}? They are fetched once and shown on this page until you leave it."
            )) {
                return;
            }
            let api = api.get_value();
            let name = name.clone();
            spawn(async move {
                let r = api
                    .reveal(&name)
                    .await
                    .map(|s| revealed_values(s.data.as_ref()))
                    .map_err(|e| format!("could not read the Secret: {e}"));
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
                    Some(Err(e)) => view! { <p class="error-box" role="alert">{e}</p> }.into_any(),
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
    });
    let yaml = move || object.with(|o| o.as_ref().map(to_yaml).unwrap_or_default());
    let copy = move |_| {
        let text = yaml();
        let _ = window().navigator().clipboard().write_text(&text);
    };
    let age = move || {
        object.with(|o| {
            o.as_ref()
                .and_then(|o| o.pointer("/metadata/creationTimestamp"))
                .and_then(Value::as_str)
                .and_then(parse_time)
                .map(|t| short_age(now.get() - t))
        })
    };

    view! {
        <section class="panel object-page" data-testid="object-page">
            <div class="resource-head">
                <h2 data-testid="object-title">{title}</h2>
                <span class="muted small">{move || age().map(|a| format!("created {a} ago"))}</span>
                {move || gone.get().then(|| view! { <span class="badge status-bad" data-testid="object-gone">"deleted"</span> })}
            </div>
            {outcome}
            <div class="actions" data-testid="object-actions">
                {move || {
                    let a = allowed.get();
                    if !a.checked {
                        return view! { <span class="muted small">"checking what you may do…"</span> }.into_any();
                    }
                    if read_only {
                        return view! { <span class="muted small" data-testid="no-actions">"This session is read-only: its proxy refuses every write."</span> }.into_any();
                    }
                    if let Some(e) = a.error.clone() {
                        return view! { <span class="muted small" data-testid="access-error" role="alert">"Could not ask the cluster what you may do here: " {e}</span> }.into_any();
                    }
                    if !(a.delete || a.patch || a.scale) {
                        return view! { <span class="muted small" data-testid="no-actions">"Your access is read-only here."</span> }.into_any();
                    }
                    let t = target.clone();
                    view! {
                        {a.scale.then(|| view! { <button data-testid="action-scale" on:click=scale_prompt.clone()>"Scale…"</button> })}
                        {(a.patch && restartable).then(|| view! { <button data-testid="action-restart" on:click=act(ActionKind::RestartRollout, format!("Restart the rollout of {t}?"))>"Restart rollout"</button> })}
                        {(a.patch && is_node).then(|| view! {
                            <button data-testid="action-cordon" on:click=act(ActionKind::Cordon(true), format!("Cordon {}?", target.clone()))>"Cordon"</button>
                            <button data-testid="action-uncordon" on:click=act(ActionKind::Cordon(false), format!("Uncordon {}?", target.clone()))>"Uncordon"</button>
                        })}
                        {a.patch.then(|| view! { <button data-testid="action-labels" on:click=labels_prompt.clone()>"Labels…"</button> })}
                        {a.delete.then(|| view! { <button class="danger" data-testid="action-delete" on:click=act(ActionKind::Delete, format!("Delete {} {}?", kind.clone(), target.clone()))>"Delete"</button> })}
                    }
                    .into_any()
                }}
            </div>
            <div class="two-col">
                <div>
                    <h3>"Labels"</h3>
                    <div class="chips" data-testid="labels">{chips("labels")}</div>
                    <h3>"Annotations"</h3>
                    <div class="chips" data-testid="annotations">{chips("annotations")}</div>
                    {secret_section}
                    <h3>"Owners"</h3>
                    <div class="chips" data-testid="owners">{owners}</div>
                    {owned_section}
                    <h3>"Conditions"</h3>
                    <table class="grid" data-testid="conditions">
                        <thead><tr><th>"Type"</th><th>"Status"</th><th>"Reason"</th><th>"Message"</th><th>"Since"</th></tr></thead>
                        <tbody>{conditions}</tbody>
                    </table>
                    <h3>"Events"</h3>
                    <table class="grid" data-testid="object-events">
                        <thead><tr><th>"Type"</th><th>"Reason"</th><th>"Message"</th><th class="num">"Count"</th><th>"Last seen"</th></tr></thead>
                        <tbody>
                            {move || events.get().into_iter().map(|(last, type_, reason, message, count)| {
                                let cls = if type_ == "Warning" { "status-bad" } else { "" };
                                view! {
                                    <tr data-testid="object-event"><td class=cls>{type_}</td><td>{reason}</td><td>{message}</td>
                                    <td class="num">{count}</td><td>{short_age(now.get_untracked() - last as f64)}</td></tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                </div>
                <div>
                    <div class="resource-head">
                        <h3>"YAML"</h3>
                        <button data-testid="copy-yaml" on:click=copy>"Copy"</button>
                    </div>
                    <pre class="yaml" data-testid="yaml">{yaml}</pre>
                </div>
            </div>
        </section>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_reads_like_kubectl_and_folds_managed_fields() {
        let v = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "x", "labels": {"app": "web"}, "managedFields": [{"manager": "k"}]},
            "data": {"a": "1", "b": "two words", "c": "<img src=x>"},
            "list": [{"name": "c", "ports": [80, 443]}, "plain"]});
        let y = to_yaml(&v);
        assert!(y.contains("apiVersion: v1\n"), "{y}");
        assert!(y.contains("  labels:\n    app: web\n"), "{y}");
        assert!(y.contains("managedFields: # 1 entries, folded"), "{y}");
        assert!(y.contains("  a: \"1\"\n"), "{y}");
        assert!(y.contains("  b: two words\n"), "{y}");
        assert!(
            y.contains("- name: c\n  ports:\n  - 80\n  - 443\n- plain\n"),
            "{y}"
        );
    }
}
