//! The reflector's list steps: one LIST request each, through the pager.

use kube_core::Resource;
use kube_core::params::ListParams;
use serde::de::DeserializeOwned;

use super::{ListFrom, Listing, MAX_UNDECODABLE, Phase, Reflector, ReflectorState};
use crate::cache::pager::{FullList, ListFormat, Paged, Pager};
use crate::rest::Error;

impl<K> Reflector<K>
where
    K: Resource + DeserializeOwned + Clone + 'static,
{
    /// The first request of a list from `from`.
    pub(super) async fn start_list(&mut self, from: ListFrom) -> Phase<K> {
        self.update(|s| s.state = ReflectorState::Listing);
        // Each item goes through the store's transform as it is decoded.
        let transform = self.store.borrow().transform();
        let format = if self.config.table {
            ListFormat::Table
        } else if self.config.metadata_only {
            ListFormat::MetadataOnly
        } else {
            ListFormat::Objects
        };
        let pager = Pager::new(
            self.config.url_path.clone(),
            format,
            self.list_params(&from),
            transform,
        )
        .sharing_columns(self.columns.clone());
        self.continue_list(Listing { from, pager }).await
    }

    /// The next request of a list in progress; the store is replaced once
    /// the last page is in.
    pub(super) async fn continue_list(&mut self, listing: Listing<K>) -> Phase<K> {
        let Listing { from, pager } = listing;
        let listed = match pager.next_page(&self.client).await {
            Ok(Paged::More(pager)) => {
                return Phase::Listing(Listing {
                    from,
                    pager: *pager,
                });
            }
            Ok(Paged::Done(list)) => self.store_list(&from, list),
            Err(e) => Err(e),
        };
        match listed {
            Ok(()) => Phase::Watch,
            Err(e) => {
                let expired = e
                    .api()
                    .is_some_and(|a| a.is_gone() || a.is_too_large_resource_version());
                if expired && matches!(from, ListFrom::NotOlderThan(_)) {
                    // The version we asked for is gone too: read the latest, now.
                    self.record_error(&e);
                    Phase::List(ListFrom::Latest)
                } else {
                    self.fail_then(&e, Phase::List(from))
                }
            }
        }
    }

    /// The first page's parameters, paging as client-go's reflector does
    /// (its list() and pager):
    /// - rv=0 pages at 500; client-go takes an answer that came back in
    ///   pages to mean the resource has no watch cache (older watch caches
    ///   answer in one piece whatever the limit), and later lists page too.
    ///   Kubernetes 1.37's watch cache pages rv=0 lists itself, so there
    ///   every list pages, as client-go's do.
    /// - rv=X (not "" or "0") with a limit would be an Exact read from etcd
    ///   at that old revision, answering with the old version; with no
    ///   limit the watch cache answers "not older than X". So paging is off
    ///   there, unless the server has shown it has no watch cache.
    /// - rv unset is a consistent read from etcd, paged.
    fn list_params(&self, from: &ListFrom) -> ListParams {
        let mut params = ListParams {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            ..ListParams::default()
        };
        let page = Some(self.config.page_size);
        match from {
            ListFrom::Any => {
                params.resource_version = Some("0".into());
                params.limit = page;
            }
            ListFrom::NotOlderThan(rv) => {
                params.resource_version = Some(rv.clone());
                params.limit = page.filter(|_| self.paginated_result);
            }
            ListFrom::Latest => params.limit = page,
        }
        params
    }

    /// Replaces the store with a complete list.
    fn store_list(&mut self, from: &ListFrom, list: FullList<K>) -> Result<(), Error> {
        let FullList {
            items,
            mut undecodable,
            resource_version,
            paginated,
        } = list;
        if matches!(from, ListFrom::Any) && paginated {
            self.paginated_result = true;
        }
        if resource_version.is_empty() {
            return Err(Error::Decode("the list has no resourceVersion".into()));
        }
        // The items that did not decode go along: the store keeps what it
        // holds for them (the list does not say they are gone).
        self.store
            .borrow_mut()
            .replace_transformed(items, &resource_version, &undecodable);
        self.update(|s| {
            s.lists += 1;
            s.synced = true;
            s.resuming = false;
            s.last_resource_version = Some(resource_version);
            s.undecodable_more = undecodable.len().saturating_sub(MAX_UNDECODABLE);
            undecodable.truncate(MAX_UNDECODABLE);
            s.undecodable = undecodable;
            s.last_error = None;
            s.last_error_code = None;
            s.unreachable = false;
        });
        Ok(())
    }
}
