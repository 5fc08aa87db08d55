//! `amem-rfc822`: RFC 822 mail into [`amem_records::Message`] records,
//! shared by the Gmail (mbox) and Enron (maildir, CSV) importers.
//!
//! Where it sits: the first stage of the data flow. `amem-importer-mbox`
//! cuts an mbox into raw messages with [`MboxSplitter`], `amem-importer-enron`
//! reads maildir files or CSV cells; both hand the bytes to
//! [`parse_message`], which splits the header block with its own reader
//! (identical to mailparse's, several times faster), reads the `Date:`
//! header first (messages outside the time window are dropped before their
//! bodies are decoded), then takes the body: for multipart mail it walks the
//! MIME tree with `mailparse` (text/plain preferred, else text/html
//! converted to text; attachments counted, not read), decodes the charset
//! through `encoding_rs` (lossy decodes recorded in `meta["charset_lossy"]`),
//! separates quoted and forwarded parts ([`split_quoted`]) and then the
//! signature and disclaimer ([`trim_signature`]) from the author's own text.
//!
//! Output: `Result<Option<Message>, Error>` per mail; importers turn an
//! [`Error`] into an [`amem_records::ImportError`] naming file and position.
//!
//! The research pools use [`split_quoted`] and [`normalize_subject`] directly.
//!
//! ```
//! use amem_rfc822::{MailContext, parse_message};
//! use amem_records::{SourceKind, TimeWindow};
//! let raw = b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nFrom: Ann <a@x.org>\nSubject: Re: launch\n\n\
//! It moved to Friday.\n\nOn Mon, 2 Feb 2026 at 09:00, Bob wrote:\n> When is the launch?\n";
//! let cx = MailContext {
//!     source: SourceKind::GMAIL,
//!     archive: "mail.mbox",
//!     locator: "mail.mbox:byte 0".into(),
//!     mailbox: "mail.mbox",
//!     gmail: true,
//!     keep_headers: &[],
//!     window: TimeWindow::default(),
//!     unterminated: false,
//! };
//! let m = parse_message(raw, &cx).unwrap().unwrap();
//! assert_eq!(m.text, "It moved to Friday.");
//! assert_eq!(m.quoted[0].author.as_deref(), Some("Bob"));
//! assert_eq!(m.conversation, "mail.mbox/subject:launch");
//! ```
#![deny(missing_docs)]

mod bulk;
pub mod charset;
mod date;
mod error;
mod forwarded;
mod headers;
pub mod mbox;
pub mod parallel;
mod parse;
pub mod probe;
mod qp;
mod quote;
mod signature;
mod subject;

pub use date::parse_date;
pub use error::{Error, Result};
pub use forwarded::{UNKNOWN_AUTHOR, forwarded_messages};
pub use mbox::{MboxItem, MboxSplitter, RawMessage};
pub use parse::{ENRON_X_HEADERS, MailContext, parse_labels, parse_message};
pub use quote::split_quoted;
pub use signature::{Trimmed, trim_signature};
pub use subject::{normalize_subject, strip_subject_prefixes};

#[cfg(test)]
mod tests {
    /// Every mail word list (`crates/text/lexicons/mail/`) is read by a rule of this crate.
    #[test]
    fn every_mail_word_list_is_read() {
        let readers = [include_str!("bulk.rs"), include_str!("signature.rs"), include_str!("subject.rs")];
        let module = include_str!("../../../crates/text/src/mail_words.rs");
        let unread = amem_text::stopwords::unread_constants(module, "amem_text::mail_words", &readers);
        assert!(unread.is_empty(), "read by no rule: {unread:?}");
    }
}
