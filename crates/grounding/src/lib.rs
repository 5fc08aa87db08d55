//! `amem-grounding`: grounds a claim that local recall missed in the trust
//! list the user chose.
//!
//! Where it sits (docs/architecture.md, "Data flow"): `recall ──miss──▶ factcheck ──▶
//! verify`. Input: a claim's text. Output: a [`GroundOutcome`] — documents
//! captured into `$AMEM_HOME/wiki/captured/` (so the same claim is a local
//! hit next run), "no evidence" with the sources searched, or "unavailable"
//! with the reasons (an unreachable source is never "no evidence").
//! `amem-verify` then judges the claim against evidence, deterministically.
//!
//! The parts:
//! - [`config`]: the `[grounding]` table of `$AMEM_HOME/config.toml` (the CLI
//!   reads the file), strict, errors naming line and key.
//! - [`client`]: the run's one `reqwest` client (rustls with ring), the trust
//!   list checked on every request and redirect hop, per-host `governor`
//!   limiters and connection semaphores, a global cap, retries honouring
//!   `Retry-After`, the [`outbound`] log.
//! - [`adapters`]: arXiv (Atom), Wikipedia (Action API + REST summary),
//!   generic http (HTML / JSON text); each on a base URL.
//! - [`store`] and [`cache`]: capture back into the wiki, revision tracking
//!   (stale items) and the positive / negative cache with TTLs.
//! - [`grounder`]: the [`Grounder`] tying them together.
//!
//! ```no_run
//! use amem_grounding::{Grounder, GrounderOptions, GroundingConfig, DirStore, GroundOutcome};
//! use std::{path::Path, sync::Arc};
//! # async fn run() -> amem_grounding::Result<()> {
//! let home = Path::new("/home/me/.amem");
//! let grounding = GroundingConfig::default(); // the CLI reads it from config.toml
//! let store = Arc::new(DirStore::in_home(home));
//! let grounder = Grounder::new(home, &grounding, store, GrounderOptions::default())?;
//! match grounder.ground("Fermat's Last Theorem was proved by Andrew Wiles in 1994").await {
//!     GroundOutcome::Captured { items, .. } => println!("{} documents", items.len()),
//!     GroundOutcome::NoEvidence { searched } => println!("nothing in {searched:?}"),
//!     GroundOutcome::Unavailable { reasons, .. } => println!("unavailable: {reasons:?}"),
//! }
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

pub mod adapters;
pub mod cache;
pub mod client;
pub mod config;
mod error;
pub mod grounder;
pub mod outbound;
pub mod rate;
pub mod store;
pub mod terms;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod trust;

pub use adapters::Document;
pub use client::{ClientOptions, FetchError, HostPolicy, HttpClient, JsonPost};
pub use config::{AdapterKind, DefaultAction, GroundingConfig, GroundingTable, SourceConfig};
pub use error::{Error, Result};
pub use grounder::{CapturedItem, GroundOutcome, Grounder, GrounderOptions, SourceFailure, StaleRevision, UrlCaptureError};
pub use outbound::{LogLine, OutboundLog};
pub use rate::Rate;
pub use store::{CaptureStore, DirStore, StoredItem};
pub use trust::{TrustList, UrlPattern};

#[cfg(test)]
mod tests;
