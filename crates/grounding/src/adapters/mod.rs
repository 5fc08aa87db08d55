//! Source adapters: each turns a claim's key terms into requests to one
//! service's real API and its answers into [`Document`]s. Every adapter is
//! built on a `base_url` (the origin of the source's `url_pattern`), so
//! tests point it at a loopback server.

pub mod arxiv;
pub mod html;
pub mod http;
pub mod wikipedia;

use crate::client::{FetchError, HttpClient};
use crate::config::{AdapterKind, SourceConfig};
use serde::{Deserialize, Serialize};

/// Most documents taken from one search: the verifier needs the best few,
/// and each one becomes a wiki item.
pub const MAX_DOCS: usize = 3;

/// One fetched document, before capture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    /// The document's canonical URL (arXiv abs page, Wikipedia article,
    /// the fetched page). Recorded, never fetched by amem.
    pub url: String,
    /// Its title.
    pub title: String,
    /// Plain text: the abstract, the article extract, the page text.
    pub text: String,
    /// Publication time as the source states it.
    pub published: Option<String>,
    /// Last update as the source states it.
    pub updated: Option<String>,
    /// Authors, in the source's order.
    pub authors: Vec<String>,
}

/// Collapse runs of whitespace to one space and trim.
pub(crate) fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Search `source` for `terms`: the adapter's whole exchange with the
/// service (one request for arXiv and generic http, a search plus an
/// extract request for Wikipedia).
///
/// # Errors
/// A [`FetchError`] when the service could not be asked or answered with
/// an error; zero documents is `Ok(vec![])`.
pub async fn search(source: &SourceConfig, client: &HttpClient, terms: &[String], claim_sha256: &str) -> Result<Vec<Document>, FetchError> {
    let base = source.url_pattern.origin();
    match source.adapter {
        AdapterKind::Arxiv => arxiv::ArxivAdapter::new(base).search(client, terms, claim_sha256).await,
        AdapterKind::Wikipedia => wikipedia::WikipediaAdapter::new(base).search(client, terms, claim_sha256).await,
        AdapterKind::Http => {
            let template = source.search_url.as_deref().unwrap_or_default();
            http::HttpAdapter::new(template).search(client, terms, claim_sha256).await
        }
    }
}

/// Percent-encode a query component (RFC 3986 unreserved characters kept).
pub(crate) fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
