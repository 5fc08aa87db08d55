//! `amem-text`: the one reading of text that every stage shares.
//!
//! Where it sits: under every stage (extract, recall, verify, gate, factcheck
//! and the importers' HTML bodies), so that the gate, the verifier and recall
//! read a sentence the same way. It depends on nothing of amem's but the
//! word lists it carries as data files (`lexicons/`).
//!
//! ```
//! assert!(amem_text::stopwords::FUNCTION_WORDS.contains(&"the"));
//! ```
#![deny(missing_docs)]

pub mod stopwords;
