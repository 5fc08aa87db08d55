//! amem-extract (bootstrap).
#![deny(missing_docs)]
pub mod segment;
pub mod strip;
pub use segment::{Layout, SetAsideReason, Segmentation, segment, split_sentences, split_sentences_as};
pub use strip::find_signature;
