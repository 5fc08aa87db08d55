//! `amem-text`: the one reading of text that every stage shares.
//!
//! Where it sits: under every stage (extract, recall, verify, gate, factcheck
//! and the importers' HTML bodies), so that the gate, the verifier and recall
//! read a sentence the same way. It depends on nothing of amem's but
//! `amem-records` (spans, cue classes) and the word lists it carries as data
//! files (`lexicons/`).
//!
//! - [`sentence`]: the sentence splitter (prose, chat, notes and line layouts);
//! - [`words`]: words, the stemmer, the fast word hash, clauses;
//! - [`stopwords`] and [`lexicon`]: the word lists and the one automaton over them;
//! - [`html`]: HTML to text, with every HTML5 character reference decoded;
//! - [`cues`]: negation, hedge, attribution, condition and temporal cues;
//! - [`quantity`]: the value reader (numbers with scale, unit or currency, anchor,
//!   bound, range, stated precision) and [`dates`], the date reader;
//! - [`spelled`]: numbers written as words, with their values (both readers above ask it);
//! - [`numbers`]: the gate's number scanner (value, canonical unit, date part).
//! - [`relations`]: WordNet antonyms and the kinds of thing nouns name.
//!
//! ```
//! assert!(amem_text::stopwords::FUNCTION_WORDS.contains(&"the"));
//! let cues = amem_text::cues::detect_cues("Alice may not have admin.");
//! assert!(!cues.is_empty());
//! ```
#![deny(missing_docs)]

pub mod claim_words;
pub mod cues;
pub mod dates;
pub mod html;
pub mod lexicon;
pub mod mail_words;
pub mod memory;
pub mod numbers;
pub mod quantity;
pub mod relations;
pub mod sentence;
pub mod signature;
pub mod spelled;
pub mod stopwords;
pub mod text_words;
pub mod tokens;
pub mod verify_words;
pub mod words;

pub use lexicon::{FILES as LEXICON_FILES, all_terms, unit_canonical};
