//! The mail parser's word lists (`crates/text/lexicons/mail/`): what marks bulk and automated mail, disclaimer openings, reply and forward prefixes.
//! One constant per file of `crates/text/lexicons/mail/`, compiled in, each read as a
//! [`crate::stopwords::WordList`] (or [`crate::stopwords::WordPairs`] for `a = b` lines), the one
//! loader of word-list files. The folder's README says what the files are.

/// `mail/automated_local_words.txt`.
pub const AUTOMATED_LOCAL_WORDS: &str = include_str!("../lexicons/mail/automated_local_words.txt");

/// `mail/role_local_words.txt`.
pub const ROLE_LOCAL_WORDS: &str = include_str!("../lexicons/mail/role_local_words.txt");

/// `mail/automated_local_pairs.txt`.
pub const AUTOMATED_LOCAL_PAIRS: &str = include_str!("../lexicons/mail/automated_local_pairs.txt");

/// `mail/list_domain_labels.txt`.
pub const LIST_DOMAIN_LABELS: &str = include_str!("../lexicons/mail/list_domain_labels.txt");

/// `mail/gmail_bulk_categories.txt`.
pub const GMAIL_BULK_CATEGORIES: &str = include_str!("../lexicons/mail/gmail_bulk_categories.txt");

/// `mail/bulk_phrases.txt`.
pub const BULK_PHRASES: &str = include_str!("../lexicons/mail/bulk_phrases.txt");

/// `mail/disclaimer_triggers.txt`.
pub const DISCLAIMER_TRIGGERS: &str = include_str!("../lexicons/mail/disclaimer_triggers.txt");

/// `mail/prefixes.txt`.
pub const PREFIXES: &str = include_str!("../lexicons/mail/prefixes.txt");
