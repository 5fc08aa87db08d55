//! The [`Grounder`]: what the audit pipeline and `amem factcheck` call when
//! local recall missed. It walks the trust list by priority, answers from
//! the cache when it can (zero requests), otherwise asks the source through
//! the run's one [`HttpClient`], captures what came back into the wiki, and
//! says which earlier revisions became stale.

use crate::adapters::{self, Document};
use crate::cache::{Cache, DocumentEntry, QueryEntry};
use crate::client::{ClientOptions, FetchError, HttpClient};
use crate::config::{GroundingConfig, SourceConfig};
use crate::outbound::OutboundLog;
use crate::store::{CaptureStore, StoredItem, content_digest, item_text};
use crate::terms::{cache_key, key_terms};
use crate::{Error, Result};
use amem_records::{AmemUri, Digest};
use serde::Serialize;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How a [`Grounder`] behaves.
#[derive(Clone, Debug)]
pub struct GrounderOptions {
    /// Make no request at all: answer from the cache or report the trust
    /// list as unavailable.
    pub offline: bool,
    /// Ignore positive cache entries (re-fetch, detecting changed documents).
    pub refresh: bool,
    /// How long "nothing at this source" is believed.
    pub negative_ttl: Duration,
    /// How long a positive answer is reused before it is fetched again.
    pub positive_ttl: Duration,
    /// Client settings.
    pub client: ClientOptions,
}

impl Default for GrounderOptions {
    fn default() -> Self {
        GrounderOptions {
            offline: false,
            refresh: false,
            // A week: sources add pages slowly, and a re-ask is cheap later.
            negative_ttl: Duration::from_secs(7 * 24 * 3600),
            // A month, after which changed pages are noticed and the old
            // revision's assessments marked stale.
            positive_ttl: Duration::from_secs(30 * 24 * 3600),
            client: ClientOptions::default(),
        }
    }
}

/// One captured (or previously captured) document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CapturedItem {
    /// The source (trust-list name) it came from.
    pub source: String,
    /// The wiki item id.
    pub item: String,
    /// `amem://<item>`.
    pub uri: AmemUri,
    /// The document's URL.
    pub source_url: String,
    /// Its title.
    pub title: String,
    /// The item's text.
    pub text: String,
    /// Content digest of what was fetched (title and text): a re-fetch
    /// with another content digest is a new revision.
    pub digest: Digest,
    /// The item revision digest evidence from it carries
    /// (`Evidence::item_digest`).
    pub item_digest: Digest,
    /// When it was fetched, RFC 3339.
    pub retrieved_at: String,
}

/// A document whose content changed since it was captured: assessments
/// that used the old item revision are now `stale`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StaleRevision {
    /// The document's URL.
    pub source_url: String,
    /// The earlier item.
    pub old_item: String,
    /// Its revision digest, as the evidence cited in earlier assessments
    /// carries it (`Evidence::item_digest`).
    pub old_digest: Digest,
    /// The item now holding the document.
    pub new_item: String,
    /// Its revision digest.
    pub new_digest: Digest,
}

/// A source that could not be asked, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceFailure {
    /// The source's name.
    pub source: String,
    /// Why, in words (never the claim).
    pub reason: String,
    /// The fetch error, when a request was attempted.
    #[serde(skip)]
    pub error: Option<FetchError>,
}

/// What grounding one claim came to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum GroundOutcome {
    /// Documents from the first source that had any, captured into the wiki.
    Captured {
        /// The items, best first.
        items: Vec<CapturedItem>,
        /// Earlier revisions that the re-fetch replaced.
        stale: Vec<StaleRevision>,
        /// True when answered from the cache with no request.
        cached: bool,
        /// Sources whose search failed before this one answered.
        failures: Vec<SourceFailure>,
    },
    /// Every source was searched (or is known empty) and none had anything.
    NoEvidence {
        /// The sources searched, in order.
        searched: Vec<String>,
    },
    /// At least one source could not be asked and none had evidence:
    /// never reported as "no evidence".
    Unavailable {
        /// Why, per source.
        reasons: Vec<SourceFailure>,
        /// The sources that were searched and had nothing.
        searched: Vec<String>,
    },
}

impl GroundOutcome {
    /// The captured items, if any.
    pub fn items(&self) -> &[CapturedItem] {
        match self {
            GroundOutcome::Captured { items, .. } => items,
            _ => &[],
        }
    }
}

/// Why [`Grounder::capture_url`] captured nothing.
#[derive(Debug, thiserror::Error)]
pub enum UrlCaptureError {
    /// The text is not an absolute URL.
    #[error("{0} is not an absolute URL")]
    BadUrl(String),
    /// No trust-list source's pattern matches it: nothing was sent.
    #[error("{0} is on no trust-list source's url_pattern: nothing was sent (amem fetches only from hosts you listed)")]
    OffList(String),
    /// Grounding is off, offline or has no sources.
    #[error("the trust list is off here (offline, disabled or no sources): nothing can be fetched")]
    Disabled,
    /// The request failed.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The host answered with a status that is not a success.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL.
        url: String,
        /// The status.
        status: u16,
    },
    /// The store could not keep it.
    #[error(transparent)]
    Store(#[from] Error),
}

/// Grounds claims in the trust list. `Send + Sync`: share it behind an
/// `Arc` and call [`Grounder::ground`] from many tasks (the client's
/// limiters and semaphores bound what reaches each host).
pub struct Grounder {
    enabled: bool,
    sources: Vec<SourceConfig>,
    client: Option<HttpClient>,
    store: Arc<dyn CaptureStore>,
    cache: Mutex<Cache>,
    opts: GrounderOptions,
}

fn now_unix() -> i64 {
    jiff::Timestamp::now().as_second()
}

fn ttl_secs(d: Duration) -> i64 {
    i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 2)
}

impl Grounder {
    /// A grounder for `home` with the `[grounding]` config, capturing into
    /// `store`. Builds the run's one HTTP client (unless offline or
    /// disabled) with the outbound log at `home/grounding.log`, and loads
    /// the cache `home/grounding-cache.json`.
    ///
    /// # Errors
    /// The client cannot be built; the cache is unreadable.
    pub fn new(home: &Path, config: &GroundingConfig, store: Arc<dyn CaptureStore>, opts: GrounderOptions) -> Result<Grounder> {
        let enabled = config.enabled && !config.sources.is_empty();
        let client = if enabled && !opts.offline {
            Some(HttpClient::build(&config.sources, opts.client.clone(), Some(OutboundLog::in_home(home)))?)
        } else {
            None
        };
        let cache = Cache::load(Cache::path_in(home))?;
        Ok(Grounder { enabled, sources: config.sources.clone(), client, store, cache: Mutex::new(cache), opts })
    }

    /// Fetch one page the user named (an agent's `amem_capture` with a URL)
    /// and capture it into the store: only from a host of the trust list,
    /// through the same client, rate limits, circuit breakers and outbound
    /// log as every search (a URL off the list is refused before anything
    /// is sent). The page's text is its visible HTML text, or the body as
    /// sent when it is not HTML.
    ///
    /// # Errors
    /// [`UrlCaptureError`]: not a URL, off the list, the trust list off,
    /// the fetch failed or was not a success, the store refused it.
    pub async fn capture_url(&self, url: &str) -> std::result::Result<StoredItem, UrlCaptureError> {
        let parsed = reqwest::Url::parse(url).map_err(|_| UrlCaptureError::BadUrl(url.to_string()))?;
        let client = self.client.as_ref().ok_or(UrlCaptureError::Disabled)?;
        let Some(source) = self.sources.iter().find(|s| s.url_pattern.matches(&parsed)) else {
            return Err(UrlCaptureError::OffList(url.to_string()));
        };
        let url_sha = Digest::of(url.as_bytes()).to_hex();
        let fetched = client.get(parsed, source.adapter, &url_sha).await?;
        if !fetched.is_success() {
            return Err(UrlCaptureError::Status { url: url.to_string(), status: fetched.status });
        }
        let body = fetched.text();
        let html = fetched.content_type.contains("html");
        let doc = Document {
            url: fetched.url.to_string(),
            title: if html { adapters::html::title(&body) } else { None }.unwrap_or_else(|| fetched.url.to_string()),
            text: if html { adapters::html::to_text(&body) } else { body },
            published: None,
            updated: None,
            authors: Vec::new(),
        };
        let retrieved_at = jiff::Timestamp::from_second(now_unix()).map(|t| t.to_string()).unwrap_or_default();
        Ok(self.store.capture(&doc, &retrieved_at)?)
    }

    /// Requests sent by this grounder so far.
    pub fn requests_sent(&self) -> u64 {
        self.client.as_ref().map_or(0, HttpClient::requests_sent)
    }

    /// True when grounding is on and has at least one source.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ground one claim. Never fails as a whole: a source that cannot be
    /// asked is reported in [`GroundOutcome::Unavailable`] (or in
    /// `failures` beside another source's evidence).
    pub async fn ground(&self, claim: &str) -> GroundOutcome {
        let mut searched = Vec::new();
        let mut failures = Vec::new();
        if !self.enabled {
            return GroundOutcome::NoEvidence { searched };
        }
        let terms = key_terms(claim);
        if terms.is_empty() {
            return GroundOutcome::NoEvidence { searched };
        }
        let claim_sha = Digest::of(claim.as_bytes()).to_hex();
        for source in &self.sources {
            let key = cache_key(&source.name, &terms);
            let now = now_unix();
            // 1. The cache: a live negative entry means "searched, nothing";
            //    a live positive one is answered from the wiki.
            let cached = self.lock_cache().query(&key, now).cloned();
            match cached {
                Some(QueryEntry::Negative { .. }) => {
                    searched.push(source.name.clone());
                    continue;
                }
                Some(QueryEntry::Positive { urls, .. }) if !self.opts.refresh => {
                    let items = self.cached_items(&urls);
                    if !items.is_empty() {
                        return GroundOutcome::Captured { items, stale: Vec::new(), cached: true, failures };
                    }
                }
                _ => {}
            }
            // 2. The network.
            let Some(client) = &self.client else {
                failures.push(SourceFailure {
                    source: source.name.clone(),
                    reason: "offline: the trust list was not consulted".into(),
                    error: None,
                });
                continue;
            };
            match adapters::search(source, client, &terms, &claim_sha).await {
                Ok(docs) if docs.is_empty() => {
                    searched.push(source.name.clone());
                    let mut cache = self.lock_cache();
                    cache
                        .file
                        .queries
                        .insert(key, QueryEntry::Negative { source: source.name.clone(), expires: now + ttl_secs(self.opts.negative_ttl) });
                    if let Err(e) = cache.changed() {
                        tracing::warn!(error = %e, "cannot save the grounding cache");
                    }
                }
                Ok(docs) => match self.capture(source, &key, docs) {
                    Ok((items, stale)) => return GroundOutcome::Captured { items, stale, cached: false, failures },
                    Err(e) => {
                        failures.push(SourceFailure { source: source.name.clone(), reason: format!("capture failed: {e}"), error: None })
                    }
                },
                Err(e) => {
                    tracing::warn!(source = %source.name, error = %e, "source unavailable");
                    failures.push(SourceFailure { source: source.name.clone(), reason: e.to_string(), error: Some(e) });
                }
            }
        }
        if failures.is_empty() {
            GroundOutcome::NoEvidence { searched }
        } else {
            GroundOutcome::Unavailable { reasons: failures, searched }
        }
    }

    /// Write pending cache changes now (they are also written every
    /// [`crate::cache::SAVE_INTERVAL`] and when the grounder is dropped).
    ///
    /// # Errors
    /// The cache file cannot be written.
    pub fn flush(&self) -> Result<()> {
        self.lock_cache().flush()
    }

    fn cached_items(&self, urls: &[String]) -> Vec<CapturedItem> {
        let cache = self.lock_cache();
        urls.iter()
            .filter_map(|u| {
                let d = cache.file.documents.get(u)?;
                let digest = Digest::from_hex(&d.digest)?;
                Some(CapturedItem {
                    source: d.source.clone(),
                    item: d.item.clone(),
                    uri: AmemUri::item(d.item.clone()),
                    source_url: u.clone(),
                    title: d.title.clone(),
                    text: d.text.clone(),
                    digest,
                    item_digest: Digest::from_hex(&d.item_digest).unwrap_or(digest),
                    retrieved_at: d.retrieved_at.clone(),
                })
            })
            .collect()
    }

    fn capture(&self, source: &SourceConfig, key: &str, docs: Vec<Document>) -> Result<(Vec<CapturedItem>, Vec<StaleRevision>)> {
        let retrieved_at = jiff::Timestamp::now().round(jiff::Unit::Second).map(|t| t.to_string()).unwrap_or_default();
        let mut items = Vec::new();
        let mut stale = Vec::new();
        let mut cache = self.lock_cache();
        for doc in docs {
            let digest = content_digest(&doc);
            let previous = cache.file.documents.get(&doc.url).cloned();
            let (item, item_digest, at) = match &previous {
                // Same content as last time: the existing item still holds it.
                Some(p) if p.digest == digest.to_hex() => {
                    (p.item.clone(), Digest::from_hex(&p.item_digest).unwrap_or(digest), p.retrieved_at.clone())
                }
                _ => {
                    let stored = self.store.capture(&doc, &retrieved_at)?;
                    (stored.item, stored.item_digest, retrieved_at.clone())
                }
            };
            if let Some(p) = previous.as_ref().filter(|p| p.digest != digest.to_hex()) {
                let old_digest = Digest::from_hex(&p.item_digest).or_else(|| Digest::from_hex(&p.digest)).ok_or_else(|| {
                    Error::Corrupt { path: Cache::path_in(Path::new("$AMEM_HOME")), detail: format!("bad digest for {}", doc.url) }
                })?;
                stale.push(StaleRevision {
                    source_url: doc.url.clone(),
                    old_item: p.item.clone(),
                    old_digest,
                    new_item: item.clone(),
                    new_digest: item_digest,
                });
            }
            let text = item_text(&doc);
            cache.file.documents.insert(
                doc.url.clone(),
                DocumentEntry {
                    item: item.clone(),
                    digest: digest.to_hex(),
                    item_digest: item_digest.to_hex(),
                    retrieved_at: at.clone(),
                    source: source.name.clone(),
                    title: doc.title.clone(),
                    text: text.clone(),
                },
            );
            items.push(CapturedItem {
                source: source.name.clone(),
                uri: AmemUri::item(item.clone()),
                item,
                source_url: doc.url,
                title: doc.title,
                text,
                digest,
                item_digest,
                retrieved_at: at,
            });
        }
        cache.file.queries.insert(
            key.to_string(),
            QueryEntry::Positive {
                source: source.name.clone(),
                urls: items.iter().map(|i| i.source_url.clone()).collect(),
                expires: now_unix() + ttl_secs(self.opts.positive_ttl),
            },
        );
        cache.changed()?;
        Ok((items, stale))
    }
}

impl Drop for Grounder {
    fn drop(&mut self) {
        if let Err(e) = self.lock_cache().flush() {
            tracing::warn!(error = %e, "cannot save the grounding cache");
        }
    }
}
