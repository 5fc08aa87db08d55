//! The `Message` record: one message out of an archive, normalised.

use crate::Digest;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Which importer a message came from, and what that says about reading it: whether a line is
/// a unit of its own (chat) or wrapped prose (mail), and how its authors are named. An importer
/// names its kind with a constant ([`SourceKind::new`]); the five shipped are the associated
/// constants. Two kinds are the same when their names are. Stored and reported by name.
#[derive(Clone, Copy)]
pub struct SourceKind(&'static KindInfo);

/// What a [`SourceKind`] is.
#[derive(Debug)]
pub struct KindInfo {
    /// The name used on the command line, in reports and in the ledger.
    pub name: &'static str,
    /// Other names the command line accepts (`mbox` for `gmail`).
    pub aliases: &'static [&'static str],
    /// A line is a unit of its own (chat); otherwise the text is wrapped prose (mail).
    pub chat: bool,
    /// How an author is named, and so how `[me]` recognises one.
    pub authors: AuthorForm,
}

/// Kinds other than the shipped ones, made known by their importers
/// ([`SourceKind::register`]) so that [`SourceKind::parse`] reads their names back.
static REGISTERED: std::sync::RwLock<Vec<SourceKind>> = std::sync::RwLock::new(Vec::new());

impl SourceKind {
    /// A Slack workspace export (folder or zip).
    pub const SLACK: SourceKind = SourceKind::new(&KindInfo { name: "slack", aliases: &[], chat: true, authors: AuthorForm::SlackUser });
    /// An iMessage `chat.db`.
    pub const IMESSAGE: SourceKind = SourceKind::new(&KindInfo { name: "imessage", aliases: &[], chat: true, authors: AuthorForm::Handle });
    /// An mbox file (Gmail Takeout or any other mbox).
    pub const GMAIL: SourceKind = SourceKind::new(&KindInfo { name: "gmail", aliases: &["mbox"], chat: false, authors: AuthorForm::Email });
    /// An Enron-style maildir tree.
    pub const ENRON: SourceKind =
        SourceKind::new(&KindInfo { name: "enron", aliases: &["maildir"], chat: false, authors: AuthorForm::Email });
    /// The Enron CSV form (`file,message` columns).
    pub const ENRON_CSV: SourceKind =
        SourceKind::new(&KindInfo { name: "enron-csv", aliases: &["csv"], chat: false, authors: AuthorForm::Email });

    /// The kinds amem's own importers read.
    pub const SHIPPED: [SourceKind; 5] =
        [SourceKind::SLACK, SourceKind::IMESSAGE, SourceKind::GMAIL, SourceKind::ENRON, SourceKind::ENRON_CSV];

    /// A kind described by `info`.
    pub const fn new(info: &'static KindInfo) -> SourceKind {
        SourceKind(info)
    }

    /// Make this kind's name known to [`SourceKind::parse`] (a ledger read back, a report merged);
    /// the shipped kinds need not be. Idempotent.
    pub fn register(self) {
        if SourceKind::parse(self.0.name).is_some() {
            return;
        }
        if let Ok(mut kinds) = REGISTERED.write()
            && !kinds.contains(&self)
        {
            kinds.push(self);
        }
    }

    /// The name used on the command line and in reports.
    pub fn as_str(&self) -> &'static str {
        self.0.name
    }

    /// True for chat (Slack, iMessage): a line is a unit of its own. Mail is wrapped prose.
    pub fn is_chat(&self) -> bool {
        self.0.chat
    }

    /// How an author is named in this kind's messages, and so how `[me]` recognises one.
    pub fn authors(&self) -> AuthorForm {
        self.0.authors
    }

    /// The kind a command-line name or an alias names (`slack`, `imessage`, `gmail`/`mbox`,
    /// `enron`/`maildir`, `enron-csv`/`csv`, or a registered kind's).
    pub fn parse(s: &str) -> Option<Self> {
        let named = |k: &SourceKind| k.0.name == s || k.0.aliases.contains(&s);
        SourceKind::SHIPPED
            .iter()
            .copied()
            .find(named)
            .or_else(|| REGISTERED.read().ok().and_then(|kinds| kinds.iter().copied().find(named)))
    }
}

impl fmt::Debug for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SourceKind").field(&self.0.name).finish()
    }
}

impl PartialEq for SourceKind {
    fn eq(&self, other: &SourceKind) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for SourceKind {}

impl std::hash::Hash for SourceKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.name.hash(state);
    }
}

impl PartialOrd for SourceKind {
    fn partial_cmp(&self, other: &SourceKind) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SourceKind {
    fn cmp(&self, other: &SourceKind) -> std::cmp::Ordering {
        self.0.name.cmp(other.0.name)
    }
}

impl Serialize for SourceKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.name)
    }
}

impl<'de> Deserialize<'de> for SourceKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<SourceKind, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        SourceKind::parse(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown source kind {name:?}")))
    }
}

/// How a source kind names a message's author ([`SourceKind::authors`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthorForm {
    /// A mail `From:` (an address, maybe with a display name).
    Email,
    /// A Slack user: an id (`U024BE7LH`) or a display name.
    SlackUser,
    /// A phone number or Apple ID, or `me` for the device's owner.
    Handle,
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A message's stable id inside its archive: Slack `channel/ts`, the
/// iMessage `guid`, the mail `Message-ID`, else a digest of the raw bytes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MessageId(pub String);

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a quoted part entered the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuoteKind {
    /// A reply quote: `-----Original Message-----`, `On D, X wrote:`, `>` lines.
    Reply,
    /// A forwarded block: `---- Forwarded by X on D ----`, `Begin forwarded message:`.
    Forward,
}

/// A quoted or forwarded part of a message, kept apart from the author's own
/// text together with the header that introduced it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuotedPart {
    /// Reply quote or forward.
    pub kind: QuoteKind,
    /// The introducing header line(s), verbatim (e.g. `-----Original Message-----`).
    pub header: String,
    /// Who wrote the quoted text, when the header says.
    pub author: Option<String>,
    /// When the quoted text was written, as the header wrote it.
    pub sent_at: Option<String>,
    /// The quoted text, with `>` markers removed.
    pub text: String,
}

/// The `meta` key of a forwarded part audited as a message of its own
/// (`--include-forwarded`): who forwarded it, the forwarding message's author.
pub const FORWARDED_BY: &str = "forwarded_by";

/// What [`Message::copy_keys`] gives: a message is a copy of an earlier
/// one when either key matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CopyKeys {
    /// Mail only: the Message-ID the archive gave, with the sender.
    pub by_id: Option<Digest>,
    /// Sender, time, subject and text (and the conversation, for chat).
    pub by_content: Digest,
}

impl CopyKeys {
    /// The keys there are, the id first.
    pub fn iter(&self) -> impl Iterator<Item = Digest> + '_ {
        self.by_id.into_iter().chain(std::iter::once(self.by_content))
    }
}

/// `s` with every run of whitespace one space, trimmed: how two exports of
/// one mail can differ (line ends, wrapping, trailing blanks).
fn collapse_space(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// One message out of an archive, normalised. Immutable: its [`Message::digest`]
/// identifies this revision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Which archive format.
    pub source: SourceKind,
    /// The archive this came from (its canonical path, for people to read;
    /// not part of the message's identity, see [`Message::digest`]).
    pub archive: String,
    /// Conversation: Slack `channel` or `channel/thread_ts`, iMessage chat
    /// guid, Gmail `X-GM-THRID`, mail thread root, else normalised subject.
    pub conversation: String,
    /// Stable id within the archive.
    pub id: MessageId,
    /// Author's display name or address (`me` for the iMessage owner).
    pub author: String,
    /// Recipients, as display names or addresses.
    pub recipients: Vec<String>,
    /// When it was sent, in UTC.
    pub sent_at: Timestamp,
    /// Subject line for mail, channel name for Slack, chat name for iMessage.
    pub subject: Option<String>,
    /// The author's own new text: quoted parts, signatures and disclaimers removed.
    pub text: String,
    /// Quoted and forwarded parts, in order of appearance.
    pub quoted: Vec<QuotedPart>,
    /// Where in the archive it sits (file path plus byte offset, line, ROWID):
    /// the locator errors and reports show. Like `archive`, not part of the
    /// message's identity.
    pub locator: String,
    /// Source-specific facts kept for reports: Gmail labels, Enron
    /// `X-Folder`, Slack `subtype`, `edited`, `bot`... Sorted map so that
    /// serialisation (and so the digest) is deterministic.
    pub meta: BTreeMap<String, String>,
    /// When set, the message is not a source of claims, with the reason
    /// (`reaction`, `channel_join`, `unsent`...). It is still counted.
    pub not_claims: Option<String>,
}

impl Message {
    /// The content digest of this revision: SHA-256 over the canonical JSON
    /// of what the archive says (field order fixed, maps sorted): the kind,
    /// the id it gives (Message-ID, Slack channel/ts, iMessage guid, else a
    /// digest of the raw bytes), conversation, people, time, text and
    /// metadata (for Enron the path inside the maildir root). Not where
    /// the archive was found: `archive` and `locator` name the path as it
    /// was on this run, so another spelling of it (`h3`, `/abs/h3`,
    /// `../x/h3`) or a moved export folder is the same message, the same
    /// claims and the same queue entries.
    pub fn digest(&self) -> Digest {
        #[derive(Serialize)]
        struct Identity<'a> {
            source: SourceKind,
            conversation: &'a str,
            id: &'a MessageId,
            author: &'a str,
            recipients: &'a [String],
            sent_at: Timestamp,
            subject: &'a Option<String>,
            text: &'a str,
            quoted: &'a [QuotedPart],
            meta: &'a BTreeMap<String, String>,
            not_claims: &'a Option<String>,
        }
        let m = self;
        let identity = Identity {
            source: m.source,
            conversation: &m.conversation,
            id: &m.id,
            author: &m.author,
            recipients: &m.recipients,
            sent_at: m.sent_at,
            subject: &m.subject,
            text: &m.text,
            quoted: &m.quoted,
            meta: &m.meta,
            not_claims: &m.not_claims,
        };
        let json = serde_json::to_vec(&identity).expect("invariant: Message serialises");
        Digest::of(&json)
    }

    /// The keys under which another copy of this message is recognised
    /// (the same mail filed in several folders or exported twice): for
    /// mail, its Message-ID with its sender's address, when the archive
    /// gave one; for every kind, its content: sender, time, subject and
    /// text, with runs of whitespace made one space. Unlike
    /// [`Message::digest`], neither holds where the copy was filed (a
    /// folder, a label, the path inside a maildir): Enron files the one
    /// mail under `sent_items`, `_sent_mail` and `all_documents` with a
    /// different Message-ID each time, so only the content finds those.
    /// A chat message is keyed by its content within its conversation: an
    /// edit is new text, so it is a new message, never a copy.
    pub fn copy_keys(&self) -> CopyKeys {
        let mail = !self.source.is_chat();
        let sender = crate::identity::address_of(&self.author).unwrap_or(&self.author).to_lowercase();
        let by_id = (mail && self.meta.get("id_from").is_none_or(|f| f != "digest") && !self.id.0.is_empty())
            .then(|| Digest::of_fields([b"mail id".as_slice(), self.id.0.trim().as_bytes(), sender.as_bytes()]));
        let family: &[u8] = if mail { b"mail" } else { self.source.as_str().as_bytes() };
        let where_: &[u8] = if mail { b"" } else { self.conversation.as_bytes() };
        let sent_at = self.sent_at.as_second().to_le_bytes();
        let subject = self.subject.as_deref().map(collapse_space).unwrap_or_default();
        let text = collapse_space(&self.text);
        let mut fields: Vec<Vec<u8>> =
            vec![family.to_vec(), where_.to_vec(), sender.into_bytes(), sent_at.to_vec(), subject.into_bytes(), text.into_bytes()];
        fields.extend(self.quoted.iter().map(|q| collapse_space(&q.text).into_bytes()));
        let by_content = Digest::of_fields(fields.iter().map(Vec::as_slice));
        CopyKeys { by_id, by_content }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> Message {
        Message {
            source: SourceKind::GMAIL,
            archive: "mail.mbox".into(),
            conversation: "123".into(),
            id: MessageId("<a@b>".into()),
            author: "Alice <alice@example.org>".into(),
            recipients: vec!["bob@example.org".into()],
            sent_at: "2024-01-02T03:04:05Z".parse().unwrap(),
            subject: Some("Plans".into()),
            text: "The launch moved to Friday.".into(),
            quoted: vec![],
            locator: "mail.mbox:0".into(),
            meta: BTreeMap::new(),
            not_claims: None,
        }
    }

    #[test]
    fn digest_changes_with_text() {
        let a = sample();
        let mut b = sample();
        assert_eq!(a.digest(), b.digest());
        b.text.push('!');
        assert_ne!(a.digest(), b.digest());
    }

    /// The same mail filed twice (another folder, another Message-ID, its
    /// text wrapped otherwise) is recognised by its content; the same
    /// Message-ID from the same sender by its id; another sender, time or
    /// text is another message; an edited chat message is not a copy.
    #[test]
    fn copies_are_recognised_by_id_or_content_never_by_where_they_were_filed() {
        let a = sample();
        let mut refiled = sample();
        refiled.id = MessageId("<other@b>".into());
        refiled.meta.insert("folder".into(), "sent_items".into());
        refiled.locator = "elsewhere:9".into();
        refiled.text = "The launch  moved\nto Friday. ".into();
        assert_ne!(a.digest(), refiled.digest());
        assert_eq!(a.copy_keys().by_content, refiled.copy_keys().by_content);
        assert_ne!(a.copy_keys().by_id, refiled.copy_keys().by_id);

        let mut relabelled = sample();
        relabelled.text = "Re-encoded by another exporter.".into();
        relabelled.author = "alice@EXAMPLE.org".into();
        assert_eq!(a.copy_keys().by_id, relabelled.copy_keys().by_id, "same Message-ID, same sender");
        assert_ne!(a.copy_keys().by_content, relabelled.copy_keys().by_content);

        for change in [
            (|m: &mut Message| m.author = "Bob <bob@example.org>".into()) as fn(&mut Message),
            |m| m.sent_at = Timestamp::UNIX_EPOCH,
            |m| m.text.push_str(" Or not."),
        ] {
            let mut b = sample();
            change(&mut b);
            b.id = MessageId("<x@b>".into());
            assert!(a.copy_keys().iter().all(|k| b.copy_keys().iter().all(|j| j != k)));
        }

        let mut synthetic = sample();
        synthetic.meta.insert("id_from".into(), "digest".into());
        assert_eq!(synthetic.copy_keys().by_id, None, "an id made from the bytes says nothing of copies");

        let mut chat = sample();
        chat.source = SourceKind::SLACK;
        let mut edited = chat.clone();
        edited.text = "The launch moved to Monday.".into();
        assert_eq!(chat.copy_keys().by_id, None);
        assert_ne!(chat.copy_keys().by_content, edited.copy_keys().by_content);
        let mut elsewhere = chat.clone();
        elsewhere.conversation = "another-channel".into();
        assert_ne!(chat.copy_keys().by_content, elsewhere.copy_keys().by_content);
    }

    #[test]
    fn digest_is_what_the_archive_says_not_where_it_was_found() {
        let a = sample();
        let mut moved = sample();
        moved.archive = "/elsewhere/mail.mbox".into();
        moved.locator = "/elsewhere/mail.mbox:byte 0".into();
        assert_eq!(a.digest(), moved.digest());
        // Every field that is not a path changes it.
        let changes: [fn(&mut Message); 10] = [
            |m| m.source = SourceKind::ENRON,
            |m| m.conversation.push('x'),
            |m| m.id.0.push('x'),
            |m| m.author.push('x'),
            |m| m.recipients.push("x".into()),
            |m| m.sent_at = Timestamp::UNIX_EPOCH,
            |m| m.subject = None,
            |m| m.meta.insert("file".into(), "a/1.".into()).map_or((), |_| ()),
            |m| m.not_claims = Some("reaction".into()),
            |m| m.quoted.push(QuotedPart { kind: QuoteKind::Reply, header: String::new(), author: None, sent_at: None, text: "q".into() }),
        ];
        for change in changes {
            let mut b = sample();
            change(&mut b);
            assert_ne!(a.digest(), b.digest());
        }
    }

    #[test]
    fn json_round_trip() {
        let a = sample();
        let s = serde_json::to_string(&a).unwrap();
        let b: Message = serde_json::from_str(&s).unwrap();
        assert_eq!(a, b);
        assert!(s.contains("\"sent_at\":\"2024-01-02T03:04:05Z\""));
    }

    #[test]
    fn source_kind_names() {
        for k in SourceKind::SHIPPED {
            assert_eq!(SourceKind::parse(k.as_str()), Some(k));
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("{:?}", k.as_str()));
            assert_eq!(serde_json::from_str::<SourceKind>(&json).unwrap(), k);
        }
        assert_eq!(SourceKind::parse("mbox"), Some(SourceKind::GMAIL));
        assert_eq!(SourceKind::parse("fax"), None);
        assert!(serde_json::from_str::<SourceKind>("\"fax\"").is_err());
        // A kind of an importer outside amem is read back once its importer registered it.
        static FAX: KindInfo = KindInfo { name: "fax", aliases: &["telefax"], chat: false, authors: AuthorForm::Handle };
        SourceKind::new(&FAX).register();
        assert_eq!(SourceKind::parse("telefax").map(|k| k.as_str()), Some("fax"));
        assert_eq!(serde_json::from_str::<SourceKind>("\"fax\"").unwrap(), SourceKind::new(&FAX));
    }
}
