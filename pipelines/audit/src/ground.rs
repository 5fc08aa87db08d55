//! The network stage's seam: what the pipeline asks of the trust list.
//!
//! The pipeline only needs "ground this claim text": fetch from the user's
//! sources under their rate limits and capture what was found into the
//! wiki, so the regrade stage decides locally. [`TrustListGrounding`] is the
//! fact-check crate's grounder behind this seam; tests can count calls with
//! their own implementation.

use crate::capture::RecallStore;
use amem_grounding::{GroundOutcome, Grounder, GrounderOptions, GroundingConfig};
use amem_records::Digest;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

/// What grounding one claim did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grounded {
    /// Documents were fetched (or found in the capture cache) and are in the wiki now.
    Captured {
        /// Item revisions a re-fetch replaced: assessments citing them become stale.
        stale: Vec<Digest>,
    },
    /// The sources were searched and returned nothing relevant.
    NoEvidence,
    /// A source could not be reached: never reported as "no evidence".
    Unavailable(String),
}

/// A boxed future, so the trait stays object-safe without extra crates.
pub type GroundFuture<'a> = Pin<Box<dyn Future<Output = Grounded> + Send + 'a>>;

/// Ground one claim text on the trust list.
pub trait Grounding: Send + Sync {
    /// Search the trust list for `claim` and capture what is found.
    fn ground(&self, claim: String) -> GroundFuture<'_>;
    /// Requests sent so far (the run's `fetches` figure).
    fn requests(&self) -> u64;
}

/// The user's trust list (`[grounding]` in config.toml), capturing into the
/// indexed wiki of the home.
pub struct TrustListGrounding(Grounder);

impl Grounding for TrustListGrounding {
    fn ground(&self, claim: String) -> GroundFuture<'_> {
        Box::pin(async move {
            match self.0.ground(&claim).await {
                GroundOutcome::Captured { stale, .. } => Grounded::Captured { stale: stale.iter().map(|s| s.old_digest).collect() },
                GroundOutcome::NoEvidence { .. } => Grounded::NoEvidence,
                GroundOutcome::Unavailable { reasons, .. } => {
                    Grounded::Unavailable(reasons.iter().map(|r| format!("{}: {}", r.source, r.reason)).collect::<Vec<_>>().join("; "))
                }
            }
        })
    }

    fn requests(&self) -> u64 {
        self.0.requests_sent()
    }
}

/// The grounder a home's `[grounding]` table asks for.
///
/// # Errors
/// The wiki cannot be opened or the HTTP client cannot be built.
pub fn from_config(home: &Path, grounding: &GroundingConfig, meaning: Option<amem_recall::Meaning>) -> anyhow::Result<Arc<dyn Grounding>> {
    let store = Arc::new(RecallStore::open(home, meaning)?);
    let g = Grounder::new(home, grounding, store, GrounderOptions::default())?;
    Ok(Arc::new(TrustListGrounding(g)))
}
