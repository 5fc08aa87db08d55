//! Whose claims: the user's own addresses and handles (`[me]` in
//! config.toml) and the `--who me|others|all` selection (docs/architecture.md,
//! "Whose claims, which mail").
//!
//! Matching, per source:
//! - mail (Gmail mbox, Enron maildir and CSV): the `From:` address, compared
//!   case-insensitively with `[me].emails`;
//! - Slack: the user id (`meta["user"]`) against `[me].slack_ids`, or the
//!   author's name against `[me].slack_names` (case-insensitively);
//! - iMessage: `is_from_me` (the importer writes the author as `me`), or a
//!   handle in `[me].handles` (phone numbers compared by their digits, the
//!   last ten when longer, so `+1 (555) 010-2000` is `5550102000`; e-mail
//!   handles case-insensitively).

use crate::{AuthorForm, Message, SourceKind};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The user's own addresses and handles.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    /// E-mail addresses (matched against mail `From:` and iMessage handles).
    #[serde(default)]
    pub emails: Vec<String>,
    /// Slack user ids (`U024BE7LH`).
    #[serde(default)]
    pub slack_ids: Vec<String>,
    /// Slack display or real names.
    #[serde(default)]
    pub slack_names: Vec<String>,
    /// Phone numbers or other iMessage handles.
    #[serde(default)]
    pub handles: Vec<String>,
}

/// The address part of a `From:`-style value: inside `<…>` when there is
/// one, else the whole value when it holds an `@`.
pub fn address_of(from: &str) -> Option<&str> {
    let addr = match (from.rfind('<'), from.rfind('>')) {
        (Some(s), Some(e)) if s < e => &from[s + 1..e],
        _ => from,
    };
    let addr = addr.trim().trim_matches(['"', '\'']);
    addr.contains('@').then_some(addr)
}

/// A phone handle's comparable digits: the last ten when there are more
/// (a country code is optional in address books), `None` with fewer than seven.
fn phone_digits(s: &str) -> Option<String> {
    if s.contains('@') {
        return None;
    }
    let d: String = s.chars().filter(char::is_ascii_digit).collect();
    if d.len() < 7 {
        return None;
    }
    Some(d[d.len().saturating_sub(10)..].to_string())
}

impl Identity {
    /// True when nothing is configured: only iMessage's `is_from_me` can
    /// then say a message is the user's.
    pub fn is_empty(&self) -> bool {
        self.emails.is_empty() && self.slack_ids.is_empty() && self.slack_names.is_empty() && self.handles.is_empty()
    }

    fn has_email(&self, addr: &str) -> bool {
        self.emails.iter().any(|e| e.trim().eq_ignore_ascii_case(addr.trim()))
    }

    fn has_handle(&self, handle: &str) -> bool {
        if let Some(addr) = address_of(handle) {
            return self.has_email(addr) || self.handles.iter().any(|h| h.trim().eq_ignore_ascii_case(addr));
        }
        match phone_digits(handle) {
            Some(d) => self.handles.iter().any(|h| phone_digits(h).as_deref() == Some(d.as_str())),
            None => self.handles.iter().any(|h| h.trim() == handle.trim()),
        }
    }

    /// True when `message` was written by the user.
    pub fn is_mine(&self, message: &Message) -> bool {
        self.is_mine_by(message.source, &message.author, message.meta.get("user").map(String::as_str))
    }

    /// The same test from what a report row carries: the source, the
    /// author as recorded, and the Slack user id when known.
    pub fn is_mine_by(&self, source: SourceKind, author: &str, slack_user: Option<&str>) -> bool {
        match source.authors() {
            AuthorForm::Email => address_of(author).is_some_and(|a| self.has_email(a)),
            AuthorForm::SlackUser => {
                slack_user.is_some_and(|u| self.slack_ids.iter().any(|id| id.trim() == u))
                    || self.slack_ids.iter().any(|id| id.trim() == author)
                    || self.slack_names.iter().any(|n| n.trim().eq_ignore_ascii_case(author.trim()))
            }
            AuthorForm::Handle => author == "me" || self.has_handle(author),
        }
    }
}

/// `--who`: whose claims a run audits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    /// Only the user's own messages.
    Me,
    /// Everyone's but the user's.
    Others,
    /// Everyone's (the default).
    #[default]
    All,
}

impl Who {
    /// Parse `me`, `others` or `all`.
    ///
    /// # Errors
    /// Any other word, with the accepted ones named.
    pub fn parse(s: &str) -> Result<Who, String> {
        match s {
            "me" => Ok(Who::Me),
            "others" => Ok(Who::Others),
            "all" => Ok(Who::All),
            other => Err(format!("unknown --who {other:?}: use me, others or all")),
        }
    }

    /// The command-line word.
    pub fn as_str(&self) -> &'static str {
        match self {
            Who::Me => "me",
            Who::Others => "others",
            Who::All => "all",
        }
    }

    /// True when a message whose author is (`mine`) or is not the user is audited.
    pub fn admits(&self, mine: bool) -> bool {
        match self {
            Who::Me => mine,
            Who::Others => !mine,
            Who::All => true,
        }
    }

    /// True for the default, so a run's parameters omit it.
    pub fn is_all(&self) -> bool {
        *self == Who::All
    }
}

impl fmt::Display for Who {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MessageId;
    use std::collections::BTreeMap;

    fn msg(source: SourceKind, author: &str, user: Option<&str>) -> Message {
        let mut meta = BTreeMap::new();
        if let Some(u) = user {
            meta.insert("user".to_string(), u.to_string());
        }
        Message {
            source,
            archive: "a".into(),
            conversation: "c".into(),
            id: MessageId("1".into()),
            author: author.into(),
            recipients: vec![],
            sent_at: "2024-01-01T00:00:00Z".parse().unwrap(),
            subject: None,
            text: "t".into(),
            quoted: vec![],
            locator: "a:0".into(),
            meta,
            not_claims: None,
        }
    }

    fn me() -> Identity {
        Identity {
            emails: vec!["Ann.Lee@Example.org".into()],
            slack_ids: vec!["U024BE7LH".into()],
            slack_names: vec!["ann".into()],
            handles: vec!["+1 (555) 010-2000".into()],
        }
    }

    #[test]
    fn mail_matches_the_from_address_case_insensitively() {
        let id = me();
        assert!(id.is_mine(&msg(SourceKind::GMAIL, "Ann Lee <ann.lee@example.org>", None)));
        assert!(id.is_mine(&msg(SourceKind::ENRON, "ANN.LEE@EXAMPLE.ORG", None)));
        assert!(!id.is_mine(&msg(SourceKind::GMAIL, "Ann Lee <ann@example.org>", None)));
        // A display name that looks like the address is not the address.
        assert!(!id.is_mine(&msg(SourceKind::ENRON_CSV, "\"ann.lee@example.org\" <mallory@x.org>", None)));
    }

    #[test]
    fn slack_matches_user_id_or_name() {
        let id = me();
        assert!(id.is_mine(&msg(SourceKind::SLACK, "Ann L.", Some("U024BE7LH"))));
        assert!(id.is_mine(&msg(SourceKind::SLACK, "ANN", Some("U999"))));
        assert!(id.is_mine(&msg(SourceKind::SLACK, "U024BE7LH", None)));
        assert!(!id.is_mine(&msg(SourceKind::SLACK, "bob", Some("U999"))));
    }

    #[test]
    fn imessage_is_from_me_or_a_handle() {
        let id = me();
        assert!(Identity::default().is_mine(&msg(SourceKind::IMESSAGE, "me", None)));
        assert!(id.is_mine(&msg(SourceKind::IMESSAGE, "+15550102000", None)));
        assert!(id.is_mine(&msg(SourceKind::IMESSAGE, "ann.lee@example.org", None)));
        assert!(!id.is_mine(&msg(SourceKind::IMESSAGE, "+15550109999", None)));
        assert!(!Identity::default().is_mine(&msg(SourceKind::GMAIL, "me", None)));
    }

    #[test]
    fn who_admits() {
        assert!(Who::Me.admits(true) && !Who::Me.admits(false));
        assert!(Who::Others.admits(false) && !Who::Others.admits(true));
        assert!(Who::All.admits(true) && Who::All.admits(false));
        for w in [Who::Me, Who::Others, Who::All] {
            assert_eq!(Who::parse(w.as_str()), Ok(w));
        }
        assert!(Who::parse("you").is_err());
    }
}
