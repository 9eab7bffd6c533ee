//! Tables that outlive the tab: a table's rows are saved with their
//! version once the server has confirmed them, and the next visit on the
//! same store draws them at once and resumes with a watch, no list.
//! Secrets are never saved; a store that fails is named and nothing else
//! changes.

use futures::future::LocalBoxFuture;
use kubeglass_client::rest::table::TableRowObject;

use super::*;
use crate::kube::Watch;
use crate::kube::host::SavedStore;
use crate::kube::stores::saved::{decode, key_of};

const PATH: &str = "/api/v1/namespaces/ns/configmaps";
const SECRETS: &str = "/api/v1/namespaces/ns/secrets";

/// Saved tables in memory, shared by two visits; `broken` fails saves;
/// with `slow`, a save writes only when [`Memory::release`] is called.
#[derive(Clone, Default)]
struct Memory {
    texts: Rc<RefCell<BTreeMap<String, String>>>,
    broken: Rc<Cell<bool>>,
    slow: Rc<Cell<bool>>,
    writing: Rc<RefCell<Vec<futures::channel::oneshot::Sender<()>>>>,
}

impl Memory {
    /// The saves under way end (and later ones are quick).
    fn release(&self) {
        self.slow.set(false);
        for w in self.writing.borrow_mut().drain(..) {
            let _ = w.send(());
        }
    }
}

impl SavedStore for Memory {
    fn load(&self, key: &str) -> LocalBoxFuture<'static, Result<Option<String>, String>> {
        let found = self.texts.borrow().get(key).cloned();
        async move { Ok(found) }.boxed_local()
    }
    fn save(&self, key: &str, text: String) -> LocalBoxFuture<'static, Result<(), String>> {
        if self.slow.get() {
            let (tx, rx) = futures::channel::oneshot::channel();
            self.writing.borrow_mut().push(tx);
            let (texts, key) = (self.texts.clone(), key.to_string());
            return async move {
                let _ = rx.await;
                texts.borrow_mut().insert(key, text);
                Ok(())
            }
            .boxed_local();
        }
        let answer = if self.broken.get() {
            Err("QuotaExceededError: the quota has been exceeded".to_string())
        } else {
            self.texts.borrow_mut().insert(key.into(), text);
            Ok(())
        };
        async move { answer }.boxed_local()
    }
    fn forget(&self) -> LocalBoxFuture<'static, Result<(), String>> {
        self.texts.borrow_mut().clear();
        async { Ok(()) }.boxed_local()
    }
    fn place(&self) -> &'static str {
        "memory"
    }
}

fn row(name: &str, rv: &str) -> Value {
    json!({"cells": [name, rv],
           "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                      "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv}}})
}

fn table(rv: &str, rows: Vec<Value>) -> Value {
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
           "metadata": {"resourceVersion": rv},
           "columnDefinitions": [
               {"name": "Name", "type": "string", "format": "name", "description": "", "priority": 0},
               {"name": "Version", "type": "string", "format": "", "description": "", "priority": 0}],
           "rows": rows})
}

fn view(rig: &Rig, path: &str) -> (Watch<TableRowObject>, Rc<RefCell<Vec<String>>>) {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    let watch = rig
        .kube
        .subscribe("table", path)
        .table()
        .frames(move |inf, mut keys| {
            keys.sort();
            for k in keys {
                let cell = inf
                    .indexer()
                    .borrow()
                    .get(&k)
                    .map(|r| r.row.cell_text(1).into_owned());
                s.borrow_mut()
                    .push(format!("{k}={}", cell.unwrap_or("gone".into())));
            }
        });
    (watch, seen)
}

#[test]
fn a_table_is_saved_and_the_next_visit_draws_it_and_resumes_without_a_list() {
    let memory = Memory::default();
    let key = key_of("table", PATH, None, None);
    // First visit: a list, then the rows are saved on the next look.
    let mut rig = rig_saving(
        MemoryStore::default(),
        Some(Rc::new(memory.clone())),
        expect_discovery,
    );
    rig.server.expect_get(PATH).reply(Reply::json(
        200,
        table("10", vec![row("a", "5"), row("b", "6")]),
    ));
    let feed = expect_watch(&rig.server, PATH, "10");
    let (watch, _) = view(&rig, PATH);
    rig.frame();
    assert!(watch.has_synced());
    assert!(
        memory.texts.borrow().is_empty(),
        "saved before the periodic look"
    );
    feed.event("MODIFIED", table("11", vec![row("b", "11")]));
    rig.advance(Duration::from_secs(5));
    let text = memory.texts.borrow().get(&key).cloned().expect("saved");
    let (_, seed) = decode::<TableRowObject>(PATH, &text).expect("reads back");
    assert_eq!(seed.resource_version, "11");
    assert_eq!(seed.items.len(), 2);
    assert_eq!(rig.kube.saved().stats().get_untracked().saves, 1);
    drop(watch);
    drop(rig);

    // Next visit on the same store: the rows at once, then a watch from
    // 11 (the fake fails on any list), and what changed meanwhile.
    let mut rig = rig_saving(
        MemoryStore::default(),
        Some(Rc::new(memory.clone())),
        expect_discovery,
    );
    let feed = expect_watch(&rig.server, PATH, "11");
    let (watch, seen) = view(&rig, PATH);
    rig.frame();
    assert_eq!(*seen.borrow(), ["ns/a=5", "ns/b=11"]);
    assert!(watch.status().get_untracked().reflector.resuming);
    assert!(rig.kube.saved().restored_at(&key).is_some());
    feed.event("DELETED", table("12", vec![row("a", "12")]));
    rig.frame();
    assert_eq!(seen.borrow().last().map(String::as_str), Some("ns/a=gone"));
    let status = watch.status().get_untracked().reflector;
    assert!(!status.resuming);
    assert_eq!((status.lists, status.resumes), (0, 1));
    // Caught up, it is saved again at the next look, not 30 s after the
    // save it was drawn from.
    rig.advance(Duration::from_secs(5));
    let text = memory.texts.borrow().get(&key).cloned().expect("saved");
    let (_, seed) = decode::<TableRowObject>(PATH, &text).expect("reads back");
    assert_eq!(seed.resource_version, "12");
    assert_eq!(seed.items.len(), 1);
    rig.server.verify();
}

#[test]
fn secrets_are_never_saved() {
    let memory = Memory::default();
    let mut rig = rig_saving(
        MemoryStore::default(),
        Some(Rc::new(memory.clone())),
        expect_discovery,
    );
    rig.server
        .expect_get(SECRETS)
        .reply(Reply::json(200, table("10", vec![row("token", "5")])));
    let _feed = expect_watch(&rig.server, SECRETS, "10");
    let (watch, _) = view(&rig, SECRETS);
    rig.frame();
    assert!(watch.has_synced());
    rig.advance(Duration::from_secs(5));
    rig.advance(Duration::from_secs(60));
    assert!(
        memory.texts.borrow().is_empty(),
        "{:?}",
        memory.texts.borrow().keys()
    );
    assert!(
        rig.kube
            .saved()
            .stats()
            .get_untracked()
            .kept
            .iter()
            .next()
            .is_none()
    );
}

#[test]
fn a_store_that_fails_is_named_and_the_table_stays_live() {
    let memory = Memory::default();
    memory.broken.set(true);
    let mut rig = rig_saving(
        MemoryStore::default(),
        Some(Rc::new(memory.clone())),
        expect_discovery,
    );
    rig.server
        .expect_get(PATH)
        .reply(Reply::json(200, table("10", vec![row("a", "5")])));
    let feed = expect_watch(&rig.server, PATH, "10");
    let (watch, seen) = view(&rig, PATH);
    rig.frame();
    rig.advance(Duration::from_secs(5));
    let error = rig.kube.saved().stats().get_untracked().last_error;
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.contains("QuotaExceededError") && e.contains(PATH)),
        "{error:?}"
    );
    feed.event("ADDED", table("12", vec![row("c", "12")]));
    rig.frame();
    assert_eq!(seen.borrow().last().map(String::as_str), Some("ns/c=12"));
    assert!(watch.snapshot().reflector.last_error.is_none());
}

// A tab hidden past its delay stops watching; shown again, the informer
// resumes with a watch from its version, no list. Hidden and shown again
// within the delay, nothing stops.
#[test]
fn a_hidden_tab_stops_watching_after_its_delay_and_resumes_without_a_list() {
    let memory = Memory::default();
    let mut rig = rig_saving(
        MemoryStore::default(),
        Some(Rc::new(memory.clone())),
        expect_discovery,
    );
    rig.server
        .expect_get(PATH)
        .reply(Reply::json(200, table("10", vec![row("a", "5")])));
    let first = expect_watch(&rig.server, PATH, "10");
    let (watch, seen) = view(&rig, PATH);
    rig.frame();
    let delay = Some(Duration::from_secs(60));
    rig.kube.tab_hidden(delay);
    rig.advance(Duration::from_secs(30));
    rig.kube.tab_shown();
    rig.advance(Duration::from_secs(60));
    assert!(
        !first.is_cancelled(),
        "shown within the delay: still watching"
    );
    assert!(!rig.kube.paused().get_untracked());

    rig.kube.tab_hidden(delay);
    // Saved as it is hidden.
    assert!(
        memory
            .texts
            .borrow()
            .contains_key(&key_of("table", PATH, None, None))
    );
    first.event("ADDED", table("11", vec![row("b", "11")]));
    rig.advance(Duration::from_secs(60));
    assert!(
        first.is_cancelled(),
        "hidden past the delay: the watch ended"
    );
    assert!(rig.kube.paused().get_untracked());
    assert!(
        rig.kube.usage_polls.paused(),
        "no metrics poll while paused"
    );
    assert_eq!(watch.snapshot().state_label(), "stopped");

    let again = expect_watch(&rig.server, PATH, "11");
    rig.kube.tab_shown();
    rig.run();
    assert!(watch.snapshot().reflector.resuming);
    again.event("MODIFIED", table("12", vec![row("a", "12")]));
    rig.frame();
    // The frame after the tab is shown: what came before the pause and after.
    let last: Vec<String> = seen.borrow().iter().rev().take(2).cloned().collect();
    assert_eq!(last, ["ns/b=11", "ns/a=12"]);
    let status = watch.snapshot().reflector;
    assert_eq!((status.lists, status.watches, status.resumes), (1, 2, 1));
    assert!(!rig.kube.paused().get_untracked());
    assert!(!rig.kube.usage_polls.paused());
    rig.server.verify();
}

#[test]
fn a_tab_hidden_while_a_save_is_writing_is_saved_again_after_it() {
    let memory = Memory::default();
    let key = key_of("table", PATH, None, None);
    let mut rig = rig_saving(
        MemoryStore::default(),
        Some(Rc::new(memory.clone())),
        expect_discovery,
    );
    rig.server
        .expect_get(PATH)
        .reply(Reply::json(200, table("10", vec![row("a", "5")])));
    let feed = expect_watch(&rig.server, PATH, "10");
    let (_watch, _) = view(&rig, PATH);
    rig.frame();
    rig.advance(Duration::from_secs(5));
    let saved_rv = || {
        let text = memory.texts.borrow().get(&key).cloned().expect("saved");
        decode::<TableRowObject>(PATH, &text)
            .expect("reads back")
            .1
            .resource_version
    };
    assert_eq!(saved_rv(), "10");
    memory.slow.set(true);
    feed.event("MODIFIED", table("11", vec![row("a", "11")]));
    rig.advance(crate::kube::stores::saved::SAVE_EVERY + Duration::from_secs(5));
    assert_eq!(
        memory.writing.borrow().len(),
        1,
        "the timed save of 11 is writing"
    );
    feed.event("MODIFIED", table("12", vec![row("a", "12")]));
    rig.frame();
    rig.kube.tab_hidden(None);
    rig.run();
    memory.release();
    rig.run();
    assert_eq!(
        saved_rv(),
        "12",
        "what the tab held when hidden, saved after the save that was writing"
    );
}
