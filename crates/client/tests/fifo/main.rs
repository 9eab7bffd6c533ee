//! DeltaFIFO and the in-order FIFO, with client-go's DeltaFIFO test cases
//! ported by name (the name of each client-go test is in the comment).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::FutureExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeglass_client::cache::fifo::{KnownObjects, Wakeup};
use kubeglass_client::cache::{
    DeltaFifo, DeltaObject, DeltaType, InformerQueue, Popped, RealFifo, ReflectorStore,
};
use kubeglass_client::rest::list::Undecodable;

mod delta_fifo;
mod real_fifo;

fn cm(name: &str, rv: &str) -> ConfigMap {
    let mut c = ConfigMap::default();
    c.metadata.namespace = Some("ns".into());
    c.metadata.name = Some(name.into());
    c.metadata.resource_version = Some(rv.into());
    c
}

fn key(name: &str) -> String {
    format!("ns/{name}")
}

/// What the consumer holds, for `knownObjects`.
#[derive(Default)]
struct Known(RefCell<BTreeMap<String, Rc<ConfigMap>>>);

impl Known {
    fn with(objs: &[ConfigMap]) -> Rc<Self> {
        let k = Self::default();
        for o in objs {
            k.0.borrow_mut().insert(
                key(o.metadata.name.as_deref().expect("present")),
                Rc::new(o.clone()),
            );
        }
        Rc::new(k)
    }
}

impl KnownObjects<ConfigMap> for Known {
    fn known_keys(&self) -> Vec<String> {
        self.0.borrow().keys().cloned().collect()
    }
    fn known(&self, key: &str) -> Option<Rc<ConfigMap>> {
        self.0.borrow().get(key).cloned()
    }
}

/// One delta as "Type:name@rv", tombstones as "Deleted:~name@rv", a
/// stale mark as "Stale:!key".
fn show(kind: DeltaType, object: &DeltaObject<ConfigMap>) -> String {
    let (mark, obj) = match object {
        DeltaObject::Object(o) => ("", Some(o.clone())),
        DeltaObject::Tombstone(t) => ("~", t.last_known.clone()),
        DeltaObject::Undecodable(u) => return format!("{kind:?}:!{}", u.key),
    };
    let name = obj
        .as_ref()
        .and_then(|o| o.metadata.name.clone())
        .unwrap_or_else(|| "?".into());
    let rv = obj
        .as_ref()
        .and_then(|o| o.metadata.resource_version.clone())
        .unwrap_or_default();
    format!("{kind:?}:{mark}{name}@{rv}")
}

fn pop(f: &mut DeltaFifo<ConfigMap>) -> (String, Vec<String>) {
    let (k, deltas) = f.pop().expect("something queued");
    (k, deltas.iter().map(|d| show(d.kind, &d.object)).collect())
}

/// The item of `name` a list held but could not decode.
fn unreadable(name: &str) -> Undecodable {
    Undecodable {
        key: key(name),
        error: "invalid type: integer `42`, expected a string".into(),
    }
}
