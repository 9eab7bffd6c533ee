//! What a reflector lists and watches, and how long it waits.

use std::time::Duration;

/// What to watch and how.
#[derive(Debug, Clone)]
pub struct ReflectorConfig {
    /// Collection path, e.g. `/api/v1/pods` or `/api/v1/namespaces/x/pods`.
    pub url_path: String,
    /// Ask for `PartialObjectMetadata` instead of whole objects.
    pub metadata_only: bool,
    /// Ask for server-side Table rows (kubectl's columns); the objects are
    /// then [`crate::rest::table::TableRowObject`]s.
    pub table: bool,
    /// Label selector, if any.
    pub label_selector: Option<String>,
    /// Field selector, if any.
    pub field_selector: Option<String>,
    /// Page size for lists that page (client-go: 500).
    pub page_size: u32,
    /// Shortest watch timeout (client-go: 5 minutes).
    pub min_watch_timeout: Duration,
    /// A watch that ends sooner than this with no event is a failure (client-go: 1 s).
    pub min_watch_duration: Duration,
    /// Extra time past the server-side timeout before a silent watch is abandoned.
    pub watch_grace: Duration,
    /// Get the initial state as a streaming list (`sendInitialEvents`)
    /// instead of a LIST, falling back to a LIST when that is refused.
    pub watch_list: bool,
    /// A streaming list that goes this long without an event before its
    /// end bookmark is given up for a plain list.
    pub watch_list_idle: Duration,
    /// A watch resumed from a saved version ([`super::ReflectorStatus::resuming`])
    /// that stays open this long with no event has caught up: the server
    /// sends what changed since that version at once.
    pub resume_quiet: Duration,
}

impl ReflectorConfig {
    /// client-go's defaults for the collection at `url_path`.
    pub fn new(url_path: impl Into<String>) -> Self {
        Self {
            url_path: url_path.into(),
            metadata_only: false,
            table: false,
            label_selector: None,
            field_selector: None,
            page_size: 500,
            min_watch_timeout: Duration::from_secs(300),
            min_watch_duration: Duration::from_secs(1),
            watch_grace: Duration::from_secs(30),
            watch_list: false,
            watch_list_idle: Duration::from_secs(30),
            resume_quiet: Duration::from_secs(1),
        }
    }

    /// Lists and watches server-side Table rows (kubectl's columns).
    pub fn tables(mut self) -> Self {
        self.table = true;
        self
    }

    /// Gets the initial state as a streaming list (client-go's WatchListClient).
    pub fn streaming(mut self) -> Self {
        self.watch_list = true;
        self
    }

    /// Lists and watches metadata only (`PartialObjectMetadata`).
    pub fn metadata_only(mut self) -> Self {
        self.metadata_only = true;
        self
    }
}
