//! Bulk and automated mail, recognised from its headers (docs/architecture.md,
//! "Whose claims, which mail"): newsletters, list traffic, notifications and
//! auto-replies are not anyone's assertion to the user. The importer only
//! marks such a message (`meta["bulk"]` = the reason); the audit decides
//! whether to skip it (by default) or audit it (`--include-bulk`).
//!
//! The signals, first match wins, in this order:
//! - `List-Id`, `List-Unsubscribe` (RFC 2919, RFC 2369): list or bulk sender;
//! - `Precedence: bulk | list | junk` (the de-facto header of list servers);
//! - `Auto-Submitted` other than `no` (RFC 3834: auto-replies, notifications);
//! - a Gmail category label in `X-Gmail-Labels` (Promotions, Social,
//!   Updates, Forums; Personal and Primary are people);
//! - a sender address that says no one reads replies or that it is a
//!   machine role: its local part's first word is `noreply`, `donotreply`,
//!   `mailer-daemon`, `postmaster`, `bounce(s)`, `newsletter(s)`, `alert(s)`,
//!   `announcement(s)`, `notification(s)`..., or any of its words names a
//!   sending role (`enron.announcements@`, `markets-digest@`), or its domain's first label is
//!   a list server (`listserv`, `lists`, `bounce`...). Archives whose headers
//!   were stripped (the Enron corpus keeps none of the list headers) still
//!   show this one.
//!
//! When the headers say nothing, the structure of the mail can
//! ([`structure_reason`], checked after the headers):
//! - the sender's own text (quoted and forwarded parts left out, its footer
//!   kept) says how to stop receiving it or to view it in a browser
//!   ("unsubscribe", "view this email in your browser", "you are receiving
//!   this because", "to be removed from our list"...): `unsubscribe text`;
//! - it names [`MANY_RECIPIENTS`] or more recipients: `many recipients`;
//! - its To names `undisclosed-recipients` (everyone in Bcc): `no named
//!   recipient` (a mail with no To at all is not marked: drafts, notes to
//!   self and many archives' exports have none);
//! - most of its lines are a table of values, as price tickers and listings
//!   are ("Natural Gas   2.791  +0.045"): `ticker or listing table`.
//!
//! What each reason marks on the Enron sample: `scripts/bench-which-mail.py`.

use crate::headers::Headers;
use amem_records::address_of;

/// First words of a sender's local part (split on `.`, `_`, `-`, `+`) that
/// mark a machine: nobody reads replies, or the address is a role that
/// sends automatically.
static AUTOMATED_LOCAL_WORDS: amem_text::stopwords::WordList =
    amem_text::stopwords::WordList::new(amem_text::mail_words::AUTOMATED_LOCAL_WORDS);

/// Words that name a sending role wherever they stand in a sender's local
/// part (`enron.announcements@`, `daily-digest@`, `it.notifications@`):
/// nobody signs a personal mail with them.
static ROLE_LOCAL_WORDS: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::mail_words::ROLE_LOCAL_WORDS);

/// Two-word local parts of the same kind (`no-reply`, `do-not-reply`, `no.address`).
static AUTOMATED_LOCAL_PAIRS: amem_text::stopwords::WordPairs =
    amem_text::stopwords::WordPairs::new(amem_text::mail_words::AUTOMATED_LOCAL_PAIRS);

/// First labels of a sender's domain that name a list server.
static LIST_DOMAIN_LABELS: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::mail_words::LIST_DOMAIN_LABELS);

/// Gmail's category labels, as Takeout writes them (`Category Promotions`)
/// or the API names them (`CATEGORY_PROMOTIONS`), lowercased, without the prefix.
static GMAIL_BULK_CATEGORIES: amem_text::stopwords::WordList =
    amem_text::stopwords::WordList::new(amem_text::mail_words::GMAIL_BULK_CATEGORIES);

/// Recipients (To and Cc) from which a mail is a broadcast, not a
/// conversation: a person writing to fifty people is announcing.
pub(crate) const MANY_RECIPIENTS: usize = 50;

/// Phrases of a bulk mail's footer or header (lowercased, matched in the
/// sender's own text): how to stop receiving it, or to read it elsewhere.
static BULK_PHRASES: amem_text::stopwords::WordList = amem_text::stopwords::WordList::new(amem_text::mail_words::BULK_PHRASES);

/// [`BULK_PHRASES`] in one pass over the text, ASCII case aside (every
/// phrase is ASCII): this runs on every mail in the parse pool, so it makes
/// no lowercased copy of the text and does not search it once per phrase.
static BULK_PHRASE_FINDER: std::sync::LazyLock<aho_corasick::AhoCorasick> = std::sync::LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(BULK_PHRASES.iter())
        .expect("invariant: the bulk phrases build an automaton")
});

/// A table line: at most this many words around its values.
const TABLE_ROW_WORDS: usize = 5;

/// Non-empty lines a mail needs before its lines can be called a table.
const TABLE_MIN_ROWS: usize = 6;

/// Why a mail whose headers say nothing is bulk anyway, from its structure
/// (see the module docs): `own_text` is the sender's own text with its
/// footer, `recipients` the addresses of To and Cc, `undisclosed` whether
/// its To names `undisclosed-recipients`.
pub(crate) fn structure_reason(own_text: &str, recipients: &[String], undisclosed: bool) -> Option<String> {
    if BULK_PHRASE_FINDER.is_match(own_text) {
        return Some("unsubscribe text".into());
    }
    if recipients.len() >= MANY_RECIPIENTS {
        return Some("many recipients".into());
    }
    if undisclosed {
        return Some("no named recipient".into());
    }
    if is_table(own_text) {
        return Some("ticker or listing table".into());
    }
    None
}

/// True when at least [`TABLE_MIN_ROWS`] non-empty lines, and half of them,
/// are table rows: a value (a number, a price, a percentage) with at most
/// [`TABLE_ROW_WORDS`] words around it, as in a ticker or a listing.
fn is_table(text: &str) -> bool {
    let (mut lines, mut rows) = (0usize, 0usize);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        lines += 1;
        let (mut tokens, mut values, mut words) = (0usize, 0usize, 0usize);
        for t in line.split_whitespace() {
            tokens += 1;
            if tokens > 2 * TABLE_ROW_WORDS {
                break;
            }
            if t.trim_start_matches(['$', '+', '-', '(', '.']).starts_with(|c: char| c.is_ascii_digit()) {
                values += 1;
            } else if t.chars().next().is_some_and(char::is_alphabetic) {
                words += 1;
            }
        }
        if values >= 1 && words <= TABLE_ROW_WORDS && tokens <= 2 * TABLE_ROW_WORDS {
            rows += 1;
        }
    }
    rows >= TABLE_MIN_ROWS && 2 * rows >= lines
}

/// Why a message is bulk or automated, or `None` for a person's mail.
pub(crate) fn bulk_reason(headers: &Headers<'_>, from: Option<&str>) -> Option<String> {
    if headers.first("List-Id").is_some() {
        return Some("list-id".into());
    }
    if headers.first("List-Unsubscribe").is_some() {
        return Some("list-unsubscribe".into());
    }
    if let Some(p) = headers.first_text("Precedence") {
        let p = p.trim().to_ascii_lowercase();
        if matches!(p.as_str(), "bulk" | "list" | "junk") {
            return Some(format!("precedence: {p}"));
        }
    }
    if let Some(a) = headers.first_text("Auto-Submitted") {
        // The value may carry parameters: `auto-generated; owner-email=...`.
        let a = a.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        if !a.is_empty() && a != "no" {
            return Some(format!("auto-submitted: {a}"));
        }
    }
    if let Some(l) = headers.first_text("X-Gmail-Labels") {
        for label in crate::parse::parse_labels(&l) {
            if let Some(c) = gmail_category(&label) {
                return Some(format!("gmail category: {c}"));
            }
        }
    }
    from.and_then(automated_sender).map(|a| format!("automated sender: {a}"))
}

fn gmail_category(label: &str) -> Option<&'static str> {
    let l = label.trim().to_ascii_lowercase();
    let rest = l.strip_prefix("category").map(|r| r.trim_start_matches([' ', '_', ':']))?;
    GMAIL_BULK_CATEGORIES.iter().copied().find(|c| *c == rest)
}

/// The sender's address when it is a machine's (see the module docs).
fn automated_sender(from: &str) -> Option<String> {
    let addr = address_of(from)?.to_ascii_lowercase();
    let (local, domain) = addr.rsplit_once('@')?;
    let words: Vec<&str> = local.split(['.', '_', '-', '+']).filter(|w| !w.is_empty()).collect();
    let first = words.first().copied().unwrap_or("");
    let pair = (first, words.get(1).copied().unwrap_or(""));
    let automated_local = AUTOMATED_LOCAL_WORDS.contains(&first)
        || AUTOMATED_LOCAL_PAIRS.contains(&pair)
        || words.iter().any(|w| ROLE_LOCAL_WORDS.contains(w));
    let first_label = domain.split('.').next().unwrap_or("");
    let list_domain = domain.contains('.') && LIST_DOMAIN_LABELS.contains(&first_label);
    (automated_local || list_domain).then_some(addr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn people(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("p{i}@example.org")).collect()
    }

    #[test]
    fn structure_of_bulk_mail() {
        let to = people(2);
        assert_eq!(structure_reason("Top stories today.\n\nTo unsubscribe, reply STOP.", &to, false).as_deref(), Some("unsubscribe text"));
        assert_eq!(structure_reason("Trouble reading? View this email in your browser.", &to, false).as_deref(), Some("unsubscribe text"));
        assert_eq!(structure_reason("The meeting moved to Friday.", &people(60), false).as_deref(), Some("many recipients"));
        assert_eq!(structure_reason("The meeting moved to Friday.", &[], true).as_deref(), Some("no named recipient"));
        assert_eq!(structure_reason("The meeting moved to Friday.", &[], false), None, "no To at all is not marked");
        let ticker = "NYMEX close\nNatural Gas  2.791  +0.045\nCrude Oil  26.12  -0.31\nHeating Oil  .7412  +.0051\n                      Unleaded  .8010  -.0020\nPropane  41.25  0.00\nBrent  25.02  -0.11\n";
        assert_eq!(structure_reason(ticker, &to, false).as_deref(), Some("ticker or listing table"));
        // A person's mail with some numbers in it is not a table.
        let note = "Revenue was $2.1 billion in Q2.\nCosts rose 4% on the year.\nWe hired 12 people.\n                    The Portland plant made 410 MW in April, above plan.\nLet's discuss on Monday.\nThanks, Ann";
        assert_eq!(structure_reason(note, &to, false), None);
        assert_eq!(structure_reason("We discussed the subscription price.", &to, false), None);
        assert_eq!(structure_reason("Sent to the whole desk.", &people(49), false), None);
    }

    fn reason(block: &str) -> Option<String> {
        let raw = format!("{block}\n\nbody\n");
        let h = Headers::parse(raw.as_bytes()).unwrap();
        let from = h.first_text("From");
        bulk_reason(&h, from.as_deref())
    }

    #[test]
    fn list_and_precedence_headers() {
        assert_eq!(reason("From: a@x.org\nList-Id: <dev.lists.x.org>").as_deref(), Some("list-id"));
        assert_eq!(reason("From: a@x.org\nList-Unsubscribe: <mailto:u@x.org>").as_deref(), Some("list-unsubscribe"));
        assert_eq!(reason("From: a@x.org\nPrecedence: Bulk").as_deref(), Some("precedence: bulk"));
        assert_eq!(reason("From: a@x.org\nPrecedence: junk").as_deref(), Some("precedence: junk"));
        assert_eq!(reason("From: a@x.org\nPrecedence: first-class"), None);
    }

    #[test]
    fn auto_submitted_other_than_no() {
        assert_eq!(reason("From: a@x.org\nAuto-Submitted: auto-replied").as_deref(), Some("auto-submitted: auto-replied"));
        assert_eq!(
            reason("From: a@x.org\nAuto-Submitted: auto-generated; owner-email=\"o@x.org\"").as_deref(),
            Some("auto-submitted: auto-generated")
        );
        assert_eq!(reason("From: a@x.org\nAuto-Submitted: no"), None);
    }

    #[test]
    fn gmail_categories() {
        assert_eq!(
            reason("From: a@x.org\nX-Gmail-Labels: Inbox,Category Promotions,Unread").as_deref(),
            Some("gmail category: promotions")
        );
        assert_eq!(reason("From: a@x.org\nX-Gmail-Labels: CATEGORY_UPDATES").as_deref(), Some("gmail category: updates"));
        assert_eq!(reason("From: a@x.org\nX-Gmail-Labels: Inbox,Category Personal,Important"), None);
        assert_eq!(reason("From: a@x.org\nX-Gmail-Labels: \"Trips, Category Social\""), None);
    }

    #[test]
    fn automated_senders() {
        for (from, addr) in [
            ("GitHub <noreply@github.com>", "noreply@github.com"),
            ("no-reply@accounts.example.com", "no-reply@accounts.example.com"),
            ("\"Do Not Reply\" <do-not-reply@bank.example>", "do-not-reply@bank.example"),
            ("no.address@enron.com", "no.address@enron.com"),
            ("Enron Announcements <announcements.enron@enron.com>", "announcements.enron@enron.com"),
            ("MAILER-DAEMON@mx.example.org", "mailer-daemon@mx.example.org"),
            ("Ivy <sivy@listserv.pathfinder.com>", "sivy@listserv.pathfinder.com"),
            ("enron.announcements@enron.com", "enron.announcements@enron.com"),
            ("Daily <markets-digest@news.example>", "markets-digest@news.example"),
        ] {
            assert_eq!(automated_sender(from), Some(addr.to_string()), "{from}");
        }
        for from in
            ["Ann Noreya <ann.noreya@x.org>", "alerting.team.lead@x.org", "Bob <bob@lists-of-things.example>", "no-at-sign", "list@x"]
        {
            assert_eq!(automated_sender(from), None, "{from}");
        }
    }
}
