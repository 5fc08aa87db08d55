//! The same template from one sender, day after day: a newsletter or a
//! daily report that carries no list header (the Enron archive keeps none)
//! and no unsubscribe line ("Enerfax Daily's free web version of gas &
//! power prices", a broker's "nat gas strips as hot links 5/17" under the
//! same disclaimer every morning). A mail whose sender sent the same
//! subject, or the same opening lines, on [`DAYS`] or more days so far in
//! this run, with other text each time, is bulk (`same template from one
//! sender`), digits aside. The same text sent again on other days is a
//! resend, not a template (and a bench's replicated archive is not a
//! newsletter).
//!
//! Decided on the importer thread in archive order, so a run decides the
//! same way each time; the first days of a template are audited (only a
//! later mail shows it is one). Replies and forwards (`Re:`, `Fw:`) are
//! conversations, never a template by their subject. Only mail: a chat
//! message has no subject, and people say "ok" every day.

use amem_records::{Digest, Message};
use std::collections::{HashMap, HashSet};

/// Distinct days (UTC) one sender's template must have been sent on.
pub const DAYS: usize = 3;

/// Opening lines of the sender's own text that make its opening template.
const OPENING_LINES: usize = 3;

/// Templates remembered at most (about 100 bytes each): past this the
/// memory starts afresh, so a huge archive cannot grow it without bound.
const REMEMBERED: usize = 1 << 18;

/// The templates seen so far in a run.
#[derive(Default)]
pub struct Templates {
    /// First 8 bytes of (sender, template) → the days it was sent on and
    /// the texts it carried (first 8 bytes of each text's digest).
    days: HashMap<u64, (HashSet<i32>, HashSet<u64>)>,
}

/// `s` lowercased, every run of digits one `#`, every run of whitespace one
/// space: "No. 924, Thursday January 31" and "No. 923, ..." differ only in
/// what changes day by day.
fn mask(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let (mut digit, mut space) = (false, false);
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !digit {
                out.push('#');
            }
            digit = true;
            space = false;
        } else if c.is_whitespace() {
            if !space && !out.is_empty() {
                out.push(' ');
            }
            space = true;
            digit = false;
        } else {
            out.extend(c.to_lowercase());
            digit = false;
            space = false;
        }
    }
    out.trim_end().to_string()
}

fn key(parts: &[&str]) -> u64 {
    Digest::of_fields(parts.iter().map(|p| p.as_bytes())).prefix_u64()
}

impl Templates {
    /// Note `message` and say whether its sender has now sent its subject
    /// or its opening on [`DAYS`] or more days.
    pub fn recurring(&mut self, message: &Message) -> bool {
        // Mail only: a chat channel's recurring lines are its talk, not a sender's template.
        if message.source.is_chat() {
            return false;
        }
        if self.days.len() >= REMEMBERED {
            self.days.clear();
        }
        let sender = amem_records::address_of(&message.author).unwrap_or(&message.author).to_lowercase();
        let day = (message.sent_at.as_second().div_euclid(86_400)) as i32;
        let mut keys = Vec::with_capacity(2);
        if let Some(subject) = message.subject.as_deref() {
            let s = mask(subject);
            let conversation = ["re:", "fw:", "fwd:", "re ", "fw "].iter().any(|p| s.starts_with(p));
            if s.chars().filter(|c| c.is_alphabetic()).count() >= 3 && !conversation {
                keys.push(key(&["subject", &sender, &s]));
            }
        }
        let opening: Vec<String> = message.text.lines().map(mask).filter(|l| !l.is_empty()).take(OPENING_LINES).collect();
        if opening.len() == OPENING_LINES {
            keys.push(key(&["opening", &sender, &opening.join("\n")]));
        }
        let text = key(&[&message.text]);
        let mut recurring = false;
        for k in keys {
            let (days, texts) = self.days.entry(k).or_default();
            days.insert(day);
            texts.insert(text);
            recurring |= days.len() >= DAYS && texts.len() >= DAYS;
        }
        recurring
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amem_records::{MessageId, SourceKind};

    fn mail(from: &str, day: u32, subject: &str, text: &str) -> Message {
        Message {
            source: SourceKind::ENRON,
            archive: "maildir".into(),
            conversation: subject.into(),
            id: MessageId(format!("<{day}{subject}@x>")),
            author: from.into(),
            recipients: vec!["ann@example.org".into()],
            sent_at: format!("2001-05-{day:02}T10:00:00Z").parse().unwrap(),
            subject: Some(subject.into()),
            text: text.into(),
            quoted: vec![],
            locator: format!("maildir/{day}"),
            meta: Default::default(),
            not_claims: None,
        }
    }

    #[test]
    fn a_subject_or_an_opening_on_three_days_is_a_template() {
        let mut t = Templates::default();
        let daily = |d: u32| mail("news@fax.example", d, &format!("Energy Daily No. {}", 900 + d), &format!("Prices for May {d}."));
        assert!(!t.recurring(&daily(1)));
        assert!(!t.recurring(&daily(1)), "the same day twice is one day");
        assert!(!t.recurring(&daily(2)));
        assert!(t.recurring(&daily(3)));
        assert!(t.recurring(&daily(4)));
        // Another sender with the same subject is not that sender's template.
        assert!(!t.recurring(&mail("bob@x.example", 5, "Energy Daily No. 999", "Hi.")));
        // One text sent again day after day is a resend, not a template.
        for d in 1..=5 {
            assert!(!t.recurring(&mail("hr@example.org", d, "Timesheets due", "Please submit your timesheet.")));
        }
        // The same disclaimer opening every mail, subjects all different.
        let opening = |d: u32, tail: &str| {
            format!(
                "The information contained herein is based on sources\nthat we believe to be reliable,\nbut we do not represent it.\n{tail} {d}"
            )
        };
        assert!(!t.recurring(&mail("broker@futures.example", 1, "opec basket", &opening(1, "Basket at"))));
        assert!(!t.recurring(&mail("broker@futures.example", 2, "nat gas strips 5/2", &opening(2, "Strips at"))));
        assert!(t.recurring(&mail("broker@futures.example", 3, "crude spreads 5/3", &opening(3, "Spreads at"))));
    }

    #[test]
    fn conversations_and_chat_are_never_templates() {
        let mut t = Templates::default();
        for d in 1..=5 {
            assert!(!t.recurring(&mail("ann@example.org", d, "RE: Q2 numbers", &format!("Day {d}: the plant ran at 410 MW."))));
        }
        let mut chat = mail("U1", 1, "general", "ok\nok\nok");
        chat.source = SourceKind::SLACK;
        for d in 1..=5 {
            chat.sent_at = format!("2001-05-{d:02}T10:00:00Z").parse().unwrap();
            assert!(!t.recurring(&chat));
        }
    }
}
