//! The verifier's word lists (`crates/text/lexicons/verify/`): cues of denial, scope, hearsay and direction, the admission test's words, honorifics.
//! One constant per file of `crates/text/lexicons/verify/`, compiled in, each read as a
//! [`crate::stopwords::WordList`] (or [`crate::stopwords::WordPairs`] for `a = b` lines), the one
//! loader of word-list files. The folder's README says what the files are.

/// `verify/denial.txt`.
pub const DENIAL: &str = include_str!("../lexicons/verify/denial.txt");

/// `verify/scope.txt`.
pub const SCOPE: &str = include_str!("../lexicons/verify/scope.txt");

/// `verify/counter_claim_antonyms.txt`.
pub const COUNTER_CLAIM_ANTONYMS: &str = include_str!("../lexicons/verify/counter_claim_antonyms.txt");

/// `verify/passes_on.txt`.
pub const PASSES_ON: &str = include_str!("../lexicons/verify/passes_on.txt");

/// `verify/ordinals.txt`.
pub const ORDINALS: &str = include_str!("../lexicons/verify/ordinals.txt");

/// `verify/direction.txt`.
pub const DIRECTION: &str = include_str!("../lexicons/verify/direction.txt");

/// `verify/deixis.txt`.
pub const DEIXIS: &str = include_str!("../lexicons/verify/deixis.txt");

/// `verify/hearsay.txt`.
pub const HEARSAY: &str = include_str!("../lexicons/verify/hearsay.txt");

/// `verify/object_openers.txt`.
pub const OBJECT_OPENERS: &str = include_str!("../lexicons/verify/object_openers.txt");

/// `verify/not_verbs.txt`.
pub const NOT_VERBS: &str = include_str!("../lexicons/verify/not_verbs.txt");

/// `verify/softeners.txt`.
pub const SOFTENERS: &str = include_str!("../lexicons/verify/softeners.txt");

/// `verify/second_person_words.txt`.
pub const SECOND_PERSON_WORDS: &str = include_str!("../lexicons/verify/second_person_words.txt");

/// `verify/system_nouns.txt`.
pub const SYSTEM_NOUNS: &str = include_str!("../lexicons/verify/system_nouns.txt");

/// `verify/meta_nouns.txt`.
pub const META_NOUNS: &str = include_str!("../lexicons/verify/meta_nouns.txt");

/// `verify/directive_modals.txt`.
pub const DIRECTIVE_MODALS: &str = include_str!("../lexicons/verify/directive_modals.txt");

/// `verify/verdicts.txt`.
pub const VERDICTS: &str = include_str!("../lexicons/verify/verdicts.txt");

/// `verify/search_page_words.txt`.
pub const SEARCH_PAGE_WORDS: &str = include_str!("../lexicons/verify/search_page_words.txt");

/// `verify/relative.txt`.
pub const RELATIVE: &str = include_str!("../lexicons/verify/relative.txt");

/// `verify/periods.txt`.
pub const PERIODS: &str = include_str!("../lexicons/verify/periods.txt");

/// `verify/deictic.txt`.
pub const DEICTIC: &str = include_str!("../lexicons/verify/deictic.txt");

/// `verify/document_subject_pronouns.txt`.
pub const DOCUMENT_SUBJECT_PRONOUNS: &str = include_str!("../lexicons/verify/document_subject_pronouns.txt");

/// `verify/honorifics.txt`.
pub const HONORIFICS: &str = include_str!("../lexicons/verify/honorifics.txt");
