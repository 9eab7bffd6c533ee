//! Metrics graphs that outlive the tab: the usage polls' points kept in
//! the same store as the saved tables (`kubeglass_kubectl::usage::History`),
//! under `usage.pods[.<namespace>]` and `usage.nodes`. Forget on the X-ray
//! page removes them with the tables. A store that fails reads as no
//! history and keeps nothing; the graphs go on live.

use std::rc::Rc;

use futures::FutureExt;
use futures::future::LocalBoxFuture;
use kubeglass_kubectl::usage::{History, Target};

use crate::kube::host::SavedStore;

/// The saved tables' store as the polls' history.
pub struct SavedUsage(pub Rc<dyn SavedStore>);

impl History for SavedUsage {
    fn load(&self, target: &Target) -> LocalBoxFuture<'static, Option<String>> {
        let load = self.0.load(&target.history_key());
        async move { load.await.ok().flatten() }.boxed_local()
    }

    fn save(&self, target: &Target, text: String) -> LocalBoxFuture<'static, ()> {
        let save = self.0.save(&target.history_key(), text);
        async move {
            let _ = save.await;
        }
        .boxed_local()
    }
}
