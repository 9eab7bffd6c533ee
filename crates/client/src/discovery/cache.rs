//! A discovery cache with a 10-minute TTL in any key-value store (the browser's localStorage in the app).
//!
//! Entries are kept per scope (the API's base URL: one `kubectl proxy` and
//! its capability token, so one cluster and context; stored only as a
//! digest, so the token never reaches storage) and checked when read:
//! an entry for another scope, one that does not parse, or one whose
//! groups, versions, plurals or kinds are malformed is dropped and fetched
//! again. Whatever the cache says, a write confirms its mapping against
//! live discovery first ([`super::DiscoveryClient::confirm`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Discovery, DiscoveryClient, ResourceInfo};
use crate::clock::PassiveClock;
use crate::rest::Error;

/// How long cached discovery is used without asking the server (kubectl: 10 minutes).
pub const DISCOVERY_TTL: Duration = Duration::from_secs(600);

/// The key prefix; the scope follows it.
const KEY_PREFIX: &str = "kubeglass.discovery.v2 ";
/// The first version's single key, shared by every server ever served on
/// the origin: never read, removed when seen.
const OLD_KEY: &str = "kubeglass.discovery.v1";

/// The name a scope (an API base URL, which holds the capability token) is
/// stored under: the first 128 bits of its SHA-256, in hex. Telling scopes
/// apart needs no more, and nothing stored can give the token back.
pub fn scope_id(scope: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::new()
        .chain_update(b"kubeglass discovery scope\0")
        .chain_update(scope.as_bytes())
        .finalize();
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// A place to keep strings between page loads.
pub trait KeyValueStore {
    /// The value under `key`.
    fn load(&self, key: &str) -> Option<String>;
    /// Stores `value` under `key` (best effort: a full store may drop it).
    fn save(&self, key: &str, value: &str);
    /// Forgets `key`.
    fn remove(&self, key: &str);
    /// Every key held (best effort: a store that cannot list says none).
    fn keys(&self) -> Vec<String>;
}

/// An in-memory store, for tests and when browser storage is unavailable.
#[derive(Debug, Default, Clone)]
pub struct MemoryStore {
    map: Rc<RefCell<HashMap<String, String>>>,
}

impl KeyValueStore for MemoryStore {
    fn load(&self, key: &str) -> Option<String> {
        self.map.borrow().get(key).cloned()
    }
    fn save(&self, key: &str, value: &str) {
        self.map.borrow_mut().insert(key.into(), value.into());
    }
    fn remove(&self, key: &str) {
        self.map.borrow_mut().remove(key);
    }
    fn keys(&self) -> Vec<String> {
        self.map.borrow().keys().cloned().collect()
    }
}

#[derive(Serialize, Deserialize)]
struct Entry {
    /// The scope it was fetched for; an entry under another scope's key is foreign.
    scope: String,
    /// When the discovery was fetched, in ms since the epoch.
    fetched_at_ms: u64,
    discovery: Discovery,
}

/// Discovery served from a store while fresh, fetched when stale or missing.
pub struct CachedDiscovery {
    client: DiscoveryClient,
    store: Rc<dyn KeyValueStore>,
    clock: Rc<dyn PassiveClock>,
    ttl: Duration,
    /// Whose discovery this is ([`scope_id`] of the API's base URL); part
    /// of the key.
    scope: String,
}

impl std::fmt::Debug for CachedDiscovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedDiscovery")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl CachedDiscovery {
    /// A cache over `client`, kept in `store`.
    pub fn new(
        client: DiscoveryClient,
        store: Rc<dyn KeyValueStore>,
        clock: Rc<dyn PassiveClock>,
    ) -> Self {
        store.remove(OLD_KEY);
        Self {
            client,
            store,
            clock,
            ttl: DISCOVERY_TTL,
            scope: String::new(),
        }
    }

    /// Keeps this cache under `scope` (the API's base URL), apart from any
    /// other server's. The base URL holds the capability token, so only a
    /// digest of it is ever stored: the key and the entry name the scope by
    /// [`scope_id`], and the token itself never reaches storage.
    pub fn with_scope(mut self, scope: impl AsRef<str>) -> Self {
        self.scope = scope_id(scope.as_ref());
        self
    }

    /// The stored name of this cache's scope (a digest of the base URL).
    pub fn scope(&self) -> &str {
        &self.scope
    }

    /// The store key of this scope.
    pub fn key(&self) -> String {
        format!("{KEY_PREFIX}{}", self.scope)
    }

    fn now_ms(&self) -> u64 {
        self.clock.now().as_millis() as u64
    }

    /// The cached discovery and its age, if any. Entries that do not parse,
    /// belong to another scope or hold malformed names are dropped.
    pub fn cached(&self) -> Option<(Discovery, Duration)> {
        let key = self.key();
        let raw = self.store.load(&key)?;
        match serde_json::from_str::<Entry>(&raw) {
            Ok(e) if e.scope == self.scope && e.discovery.validate().is_ok() => {
                let age = Duration::from_millis(self.now_ms().saturating_sub(e.fetched_at_ms));
                Some((e.discovery, age))
            }
            _ => {
                self.store.remove(&key);
                None
            }
        }
    }

    /// Fresh cached discovery, or a fetch (stored for next time) when stale or missing.
    pub async fn get(&self) -> Result<Discovery, Error> {
        if let Some((d, age)) = self.cached()
            && age < self.ttl
        {
            return Ok(d);
        }
        self.refresh().await
    }

    /// Whatever the cache holds, at once, and whether it should be refreshed
    /// (stale or missing); with nothing cached, fetches. The app shows the
    /// cached tree immediately and refreshes it in the background.
    pub async fn get_stale_while_revalidate(&self) -> Result<(Discovery, bool), Error> {
        match self.cached() {
            Some((d, age)) => Ok((d, age >= self.ttl)),
            None => Ok((self.refresh().await?, false)),
        }
    }

    /// Fetches from the server and stores the result.
    pub async fn refresh(&self) -> Result<Discovery, Error> {
        let d = self.client.fetch().await?;
        let entry = Entry {
            scope: self.scope.clone(),
            fetched_at_ms: self.now_ms(),
            discovery: d,
        };
        if let Ok(json) = serde_json::to_string(&entry) {
            self.forget_other_scopes();
            self.store.save(&self.key(), &json);
        }
        Ok(entry.discovery)
    }

    /// Removes every other scope's entry. One origin serves one proxy at a
    /// time, and each `kubectl proxy` run gets a fresh token and so a fresh
    /// scope: older entries belong to proxies that are gone, and would pile
    /// up (each holding its token) until the origin's storage quota is full.
    fn forget_other_scopes(&self) {
        let mine = self.key();
        for k in self.store.keys() {
            if k.starts_with(KEY_PREFIX) && k != mine {
                self.store.remove(&k);
            }
        }
    }

    /// Forgets the cached discovery.
    pub fn invalidate(&self) {
        self.store.remove(&self.key());
    }

    /// Resolves `query` with the cached discovery; when nothing matches, the
    /// cache may predate the resource (a CRD created since), so it refetches
    /// once and tries again.
    pub async fn resolve(&self, query: &str) -> Result<Option<ResourceInfo>, Error> {
        let d = self.get().await?;
        if let Some(r) = d.mapper().resource_for(query) {
            return Ok(Some(r.clone()));
        }
        let d = self.refresh().await?;
        Ok(d.mapper().resource_for(query).cloned())
    }
}
