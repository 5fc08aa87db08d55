//! A forwarded part as a message of its own, for `--include-forwarded`:
//! the forwarded text is the original author's words, passed on by the
//! forwarder, never the forwarder's own. Quoted replies stay out: they are
//! someone's earlier mail, audited where it was sent.

use amem_records::{FORWARDED_BY, Message, MessageId, QuoteKind};

/// The author of a forwarded part whose header does not say who wrote it.
pub const UNKNOWN_AUTHOR: &str = "(unknown author)";

/// Each forwarded part of `message` with text in it, as a message: written
/// by the part's author (as its header says, else [`UNKNOWN_AUTHOR`]) at
/// its time (as its header says, else when it was forwarded), in the
/// forwarding message's conversation, with `meta["forwarded_by"]` the
/// forwarder and an id and locator that name the part. A Lotus Notes
/// `Forwarded by X on D` line names the forwarder, not the author.
pub fn forwarded_messages(message: &Message) -> Vec<Message> {
    let mut out = Vec::new();
    for (n, part) in message.quoted.iter().enumerate().filter(|(_, p)| p.kind == QuoteKind::Forward) {
        if part.text.trim().is_empty() {
            continue;
        }
        let names_forwarder = part.header.to_ascii_lowercase().contains("forwarded by");
        let author =
            part.author.as_deref().map(str::trim).filter(|a| !a.is_empty() && !names_forwarder).unwrap_or(UNKNOWN_AUTHOR).to_string();
        let sent_at = part.sent_at.as_deref().and_then(crate::parse_date).unwrap_or(message.sent_at);
        let mut meta = message.meta.clone();
        meta.insert(FORWARDED_BY.to_string(), message.author.clone());
        meta.insert("forwarded_part".to_string(), (n + 1).to_string());
        out.push(Message {
            source: message.source,
            archive: message.archive.clone(),
            conversation: message.conversation.clone(),
            id: MessageId(format!("{}#forwarded-{}", message.id, n + 1)),
            author,
            recipients: message.recipients.clone(),
            sent_at,
            subject: message.subject.clone(),
            text: part.text.clone(),
            quoted: Vec::new(),
            locator: format!("{} (forwarded part {})", message.locator, n + 1),
            meta,
            not_claims: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use amem_records::{QuotedPart, SourceKind};

    fn message(quoted: Vec<QuotedPart>) -> Message {
        Message {
            source: SourceKind::GMAIL,
            archive: "mail.mbox".into(),
            conversation: "t".into(),
            id: MessageId("<f@x>".into()),
            author: "Ann <ann@example.org>".into(),
            recipients: vec!["bob@example.org".into()],
            sent_at: "2001-05-14T17:00:00Z".parse().unwrap(),
            subject: Some("FW: news".into()),
            text: "FYI".into(),
            quoted,
            locator: "mail.mbox:byte 0".into(),
            meta: Default::default(),
            not_claims: None,
        }
    }

    fn part(kind: QuoteKind, header: &str, author: Option<&str>, sent_at: Option<&str>, text: &str) -> QuotedPart {
        QuotedPart { kind, header: header.into(), author: author.map(Into::into), sent_at: sent_at.map(Into::into), text: text.into() }
    }

    #[test]
    fn a_forward_becomes_its_authors_message_passed_on_by_the_forwarder() {
        let m = message(vec![
            part(QuoteKind::Reply, "-----Original Message-----", Some("Bob"), None, "Earlier reply text."),
            part(
                QuoteKind::Forward,
                "---------- Forwarded message ---------",
                Some("Reuters <news@reuters.example>"),
                Some("Mon, 14 May 2001 09:00:00 -0500"),
                "Enron shares fell 12% on Monday.",
            ),
            part(
                QuoteKind::Forward,
                "---- Forwarded by Jeff Dasovich/NA/Enron on 05/14/2001 ----",
                Some("Jeff Dasovich/NA/Enron"),
                None,
                "Gas rose.",
            ),
            part(QuoteKind::Forward, "Begin forwarded message:", None, None, "  \n "),
        ]);
        let got = forwarded_messages(&m);
        assert_eq!(got.len(), 2, "the reply and the empty part stay out");
        assert_eq!(got[0].author, "Reuters <news@reuters.example>");
        assert_eq!(got[0].text, "Enron shares fell 12% on Monday.");
        assert_eq!(got[0].sent_at, "2001-05-14T14:00:00Z".parse::<jiff::Timestamp>().unwrap());
        assert_eq!(got[0].meta[FORWARDED_BY], "Ann <ann@example.org>");
        assert_eq!(got[0].id.0, "<f@x>#forwarded-2");
        assert_eq!(got[0].locator, "mail.mbox:byte 0 (forwarded part 2)");
        assert_eq!(got[1].author, UNKNOWN_AUTHOR, "a Notes line names the forwarder, not the author");
        assert_eq!(got[1].sent_at, m.sent_at, "no time in the header: when it was forwarded");
        assert_ne!(got[0].digest(), got[1].digest());
        assert!(got.iter().all(|g| g.quoted.is_empty() && g.conversation == m.conversation));
    }
}
