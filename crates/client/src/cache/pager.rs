//! The pager: reads one collection as a LIST in pages (client-go's `tools/pager`).
//!
//! A [`Pager`] is a small state machine: each [`Pager::next_page`] sends
//! exactly one LIST request and returns either the pager again, ready for
//! the next page, or the whole list. A reflector steps it one request at a
//! time (so the X-ray page and the tests see each page); anyone else may
//! call [`Pager::list`] for the whole list at once.
//!
//! - Items are decoded as the body arrives and go through the store's
//!   transform one by one, so a long list of whole objects trimmed to a few
//!   fields never holds them whole.
//! - Items that do not decode are collected by name
//!   ([`Undecodable`]) instead of failing the list.
//! - A continue token that expires mid-list (410 Gone: the list took longer
//!   than the server's compaction interval) is answered with one full,
//!   unpaged list at the version first asked for, instead of starting over
//!   page by page (client-go's `FullListIfExpired`).
//! - The first page of a `resourceVersion=0` list carries both the version
//!   and the limit, as client-go sends them (kube-core would drop the
//!   version): any cached state, paged when the server has no watch cache.

use std::cell::RefCell;
use std::rc::Rc;

use kube_core::params::ListParams;
use serde::de::DeserializeOwned;

use super::store::Transform;
use crate::rest::list::{ListDecoder, Undecodable};
use crate::rest::table::TableColumn;
use crate::rest::{Error, RestClient};
use crate::transport::Request;

/// What each page is asked for as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFormat {
    /// Whole objects.
    Objects,
    /// `PartialObjectMetadata` only.
    MetadataOnly,
    /// Server-side Table rows (kubectl's columns) with each row's metadata.
    Table,
}

/// A whole list, every page read.
#[derive(Debug)]
pub struct FullList<K> {
    /// The items that decoded (through the transform), in the server's order.
    pub items: Vec<K>,
    /// The items that did not decode.
    pub undecodable: Vec<Undecodable>,
    /// The list's resourceVersion, as the last page gave it (empty when
    /// the server gave none: the caller decides whether that is an error).
    pub resource_version: String,
    /// The answer came in more than one page.
    pub paginated: bool,
}

/// What one [`Pager::next_page`] brought.
pub enum Paged<K> {
    /// More pages to read: the pager, ready for the next one.
    More(Box<Pager<K>>),
    /// The list is complete.
    Done(FullList<K>),
}

/// A list in progress: what the next request asks for and what came so far.
pub struct Pager<K> {
    /// The collection path.
    url_path: String,
    format: ListFormat,
    /// The parameters of the first page (kept for the full-list fallback).
    first: ListParams,
    /// The parameters of the next request.
    next: ListParams,
    /// The next request is the full list after an expired continue token:
    /// whatever it answers ends the list.
    full_list: bool,
    transform: Option<Transform<K>>,
    items: Vec<K>,
    undecodable: Vec<Undecodable>,
    /// A page so far came with a continue token.
    paginated: bool,
    /// Where a Table page's columns are written, as each page arrives.
    columns: Option<Rc<RefCell<Vec<TableColumn>>>>,
}

impl<K> std::fmt::Debug for Pager<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pager")
            .field("url_path", &self.url_path)
            .field("continue_token", &self.continue_token())
            .field("full_list", &self.full_list)
            .field("items", &self.items.len())
            .field("undecodable", &self.undecodable.len())
            .finish()
    }
}

impl<K> Pager<K> {
    /// A list of the collection at `url_path` with `params` (limit,
    /// resourceVersion, selectors) for the first page; each item goes
    /// through `transform` as it is decoded.
    pub fn new(
        url_path: impl Into<String>,
        format: ListFormat,
        params: ListParams,
        transform: Option<Transform<K>>,
    ) -> Self {
        Self {
            url_path: url_path.into(),
            format,
            first: params.clone(),
            next: params,
            full_list: false,
            transform,
            items: Vec::new(),
            undecodable: Vec::new(),
            paginated: false,
            columns: None,
        }
    }

    /// Writes each Table page's columns into `columns` as the page arrives.
    pub fn sharing_columns(mut self, columns: Rc<RefCell<Vec<TableColumn>>>) -> Self {
        self.columns = Some(columns);
        self
    }

    /// The continue token the next request sends (None for the first page
    /// and for the full list after an expired token).
    pub fn continue_token(&self) -> Option<&str> {
        self.next.continue_token.as_deref()
    }

    /// True when the next request is the one full list that replaces a
    /// paged list whose continue token expired.
    pub fn is_full_list(&self) -> bool {
        self.full_list
    }

    /// How many items have decoded so far.
    pub fn items_so_far(&self) -> usize {
        self.items.len()
    }
}

impl<K: DeserializeOwned + 'static> Pager<K> {
    /// Reads every page: the whole list, or the first failure.
    pub async fn list(mut self, client: &RestClient) -> Result<FullList<K>, Error> {
        loop {
            match self.next_page(client).await? {
                Paged::More(p) => self = *p,
                Paged::Done(list) => return Ok(list),
            }
        }
    }

    /// Sends the next LIST request (exactly one) and takes in its page.
    ///
    /// A 410 Gone on a continued page is not an error: the items so far
    /// are dropped and the pager returns, set to ask for the whole list at
    /// the version first asked for. Any other failure ends the list.
    pub async fn next_page(mut self, client: &RestClient) -> Result<Paged<K>, Error> {
        let metadata = match self.read_page(client).await {
            Ok(m) => m,
            Err(e) if self.expired_mid_list(&e) => {
                self.items.clear();
                self.undecodable.clear();
                let mut full = self.first.clone();
                full.limit = None;
                full.continue_token = None;
                self.next = full;
                self.full_list = true;
                return Ok(Paged::More(Box::new(self)));
            }
            Err(e) => return Err(e),
        };
        let token = metadata.continue_.filter(|c| !c.is_empty());
        match token {
            Some(token) if !self.full_list => {
                self.paginated = true;
                self.next.continue_token = Some(token);
                // The version is in the token; the server refuses both.
                self.next.resource_version = None;
                self.next.version_match = None;
                Ok(Paged::More(Box::new(self)))
            }
            _ => Ok(Paged::Done(FullList {
                items: self.items,
                undecodable: self.undecodable,
                resource_version: metadata.resource_version.unwrap_or_default(),
                paginated: self.paginated,
            })),
        }
    }

    /// A continue token that expired mid-list (client-go's pager checks
    /// for an expired error on a continued page only).
    fn expired_mid_list(&self, e: &Error) -> bool {
        !self.full_list
            && self.next.continue_token.is_some()
            && e.api().is_some_and(|a| a.is_gone())
    }

    /// One LIST request with the next parameters; its items are appended
    /// (through the transform), its undecodable items named.
    async fn read_page(
        &mut self,
        client: &RestClient,
    ) -> Result<k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta, Error> {
        let request = self.request()?;
        // The items are decoded as the body arrives, each through the
        // transform as soon as it is in: the decode runs while the rest of a
        // large list is still on its way.
        let keep = |o: K| o;
        let each: &dyn Fn(K) -> K = match &self.transform {
            Some(t) => &**t,
            None => &keep,
        };
        let table = self.format == ListFormat::Table;
        let page = client
            .receive(request, || ListDecoder::new(table, each))
            .await?;
        if !page.columns.is_empty()
            && let Some(columns) = &self.columns
        {
            *columns.borrow_mut() = page.columns;
        }
        self.items.extend(page.items);
        self.undecodable.extend(page.undecodable);
        Ok(page.metadata)
    }

    /// The next request, as the format asks.
    fn request(&self) -> Result<Request, Error> {
        let params = &self.next;
        // kube-core leaves out resourceVersion=0 when a limit is set; client-go
        // sends both (any cached state, paged when there is no watch cache).
        let rv0 = params.continue_token.is_none()
            && params.limit.is_some()
            && params.resource_version.as_deref() == Some("0");
        let with_rv0 = |r: Request| {
            if rv0 {
                crate::api::with_query(r, "resourceVersion", "0")
            } else {
                r
            }
        };
        let collection = kube_core::Request::new(self.url_path.clone());
        Ok(match self.format {
            ListFormat::Table => as_table(with_rv0(collection.list(params)?)),
            ListFormat::MetadataOnly => with_rv0(collection.list_metadata(params)?),
            ListFormat::Objects => with_rv0(collection.list(params)?),
        })
    }
}

/// Asks for kubectl's columns: `as=Table` with each row's metadata.
pub(crate) fn as_table(request: Request) -> Request {
    crate::api::with_table_accept(crate::api::with_query(request, "includeObject", "Metadata"))
}
