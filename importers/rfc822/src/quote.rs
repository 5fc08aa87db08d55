//! Separating the author's new text from quoted and forwarded content.
//!
//! Markers recognised, each from real mail (the Enron samples in
//! `../shared/corpora/enron`, FORMATS.md §4, and the mbox samples):
//! - Outlook: `-----Original Message-----` then a `From:`/`Sent:`/`To:`/
//!   `Subject:` block (68 Enron sample files).
//! - Lotus Notes: `---------------------- Forwarded by Name/HOU/ECT on
//!   03/26/2001 01:21 PM ---------------------------`, sometimes wrapped onto
//!   two lines (`lewis-a/sent_items/8.`); inside it, Notes headers of the
//!   forwarded mail: `Name` + `03/26/2001 10:44 AM` + `To:`, or
//!   `"Elliott, Mark" <m@x.com> on 03/20/2001 10:26:23 AM` + `To:`.
//! - Gmail / Apple Mail: `---------- Forwarded message ---------`,
//!   `Begin forwarded message:`, with a `From:`/`Date:` block.
//! - `On <date>, <who> wrote:` (mutt, Gmail, Apple Mail; Gmail wraps it onto
//!   two lines) and a bare `<who> wrote:` directly before `>` lines.
//! - `>` quoting, including inline replies: new text between `>` blocks
//!   stays new text.
//!
//! After an Outlook, Notes or forward marker everything up to the next marker
//! is quoted (those clients put the history below and never interleave). An
//! `On … wrote:` line followed by `>` lines quotes only those lines.

use amem_records::{QuoteKind, QuotedPart};
use regex::Regex;
use std::sync::LazyLock;

static ORIGINAL: LazyLock<Regex> =
    // A short non-alphanumeric prefix is allowed: one Enron file
    // (`lewis-a/discussion_threads/26.`) has `????-----Original Message-----`,
    // the trace of a lost non-ASCII indent.
    LazyLock::new(|| Regex::new(r"(?i)^[^\p{L}\p{N}]{0,8}?-{2,}\s*(original message|original)\s*-{2,}\s*$").expect("invariant: regex"));
static FWD_MESSAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(-{2,}\s*forwarded message\s*-{2,}|begin forwarded message:|-{2,}\s*forwarded e-?mail\s*-{2,})\s*$")
        .expect("invariant: regex")
});
static FWD_BY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s*-{3,}\s*forwarded by\s+(.+?)\s+on\s+(.+?)\s*-*\s*$").expect("invariant: regex"));
/// Field names of the header blocks that introduce quoted mail.
const HEADER_FIELDS: &[&str] = &["from", "sent", "date", "to", "cc", "bcc", "subject", "reply-to", "importance"];

/// `From: x` → `("from", "x")` for the fields in [`HEADER_FIELDS`] (name
/// case-insensitive, spaces allowed around it). By hand: a capture regex here
/// ran on every line of every quoted header block.
fn header_field(line: &str) -> Option<(String, &str)> {
    let (name, value) = line.split_once(':')?;
    let name = name.trim().to_ascii_lowercase();
    HEADER_FIELDS.contains(&name.as_str()).then(|| (name, value.trim()))
}
static NOTES_DATE: &str = r"\d{1,2}/\d{1,2}/\d{2,4}\s+\d{1,2}:\d{2}(?::\d{2})?\s*[AaPp][Mm]";
static NOTES_ON: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^\s*(\S.*?)\s+on\s+({NOTES_DATE})\s*$")).expect("invariant: regex"));
static NOTES_DATE_LINE: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!(r"^\s*({NOTES_DATE})\s*$")).expect("invariant: regex"));
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp]\.?[Mm]\.?)?(?:\s*[+-]\d{4})?(?:\s*\([A-Za-z ]+\))?").expect("invariant: regex")
});

/// A recognised introducing header.
struct Intro {
    kind: QuoteKind,
    header: String,
    author: Option<String>,
    sent_at: Option<String>,
    /// Lines consumed by the header.
    lines: usize,
    /// Quotes only the `>` block that follows.
    gt_only: bool,
}

struct Part<'a> {
    intro: Intro,
    text: Vec<&'a str>,
}

/// Split `body` into the author's new text and the quoted/forwarded parts,
/// in order of appearance. Line ends may be LF or CRLF; the output uses LF.
/// Never panics.
///
/// ```
/// let (new, parts) = amem_rfc822::split_quoted(
///     "Sounds good.\n\n-----Original Message-----\nFrom: Bob\nSent: Monday, May 1, 2001 9:00 AM\nSubject: x\n\nCan we meet?\n",
/// );
/// assert_eq!(new, "Sounds good.");
/// assert_eq!(parts[0].author.as_deref(), Some("Bob"));
/// assert_eq!(parts[0].text, "Can we meet?");
/// ```
pub fn split_quoted(body: &str) -> (String, Vec<QuotedPart>) {
    let normalized;
    let body = if memchr::memchr(b'\r', body.as_bytes()).is_some() {
        normalized = normalize_newlines(body);
        normalized.as_str()
    } else {
        body
    };
    let lines = split_lines(body);
    let mut new_text: Vec<&str> = Vec::new();
    let mut parts: Vec<QuotedPart> = Vec::new();
    let mut cur: Option<Part> = None;
    let mut in_forward = false;
    let mut i = 0;
    while i < lines.len() {
        if let Some(intro) = detect_intro(&lines, i, in_forward) {
            if let Some(p) = cur.take() {
                parts.push(p.finish());
            }
            i += intro.lines;
            if intro.gt_only {
                // Skip blank lines to the `>` block the header introduces.
                while i < lines.len() && lines[i].trim().is_empty() {
                    i += 1;
                }
                let (block, n) = gt_block(&lines, i);
                i += n;
                parts.push(Part { intro, text: block }.finish());
                continue;
            }
            in_forward = intro.kind == QuoteKind::Forward;
            cur = Some(Part { intro, text: Vec::new() });
            continue;
        }
        if let Some(p) = cur.as_mut() {
            p.text.push(lines[i]);
            i += 1;
            continue;
        }
        if is_gt(lines[i]) {
            let (block, n) = gt_block(&lines, i);
            i += n;
            let intro = Intro { kind: QuoteKind::Reply, header: String::new(), author: None, sent_at: None, lines: 0, gt_only: true };
            parts.push(Part { intro, text: block }.finish());
            continue;
        }
        new_text.push(lines[i]);
        i += 1;
    }
    if let Some(p) = cur.take() {
        parts.push(p.finish());
    }
    (join_trimmed(&new_text, true), parts)
}

impl Part<'_> {
    fn finish(self) -> QuotedPart {
        QuotedPart {
            kind: self.intro.kind,
            header: self.intro.header,
            author: self.intro.author.filter(|a| !a.is_empty()),
            sent_at: self.intro.sent_at.filter(|a| !a.is_empty()),
            text: join_trimmed(&self.text, false),
        }
    }
}

/// `s.split('\n')`, collected (this runs over every body, twice). Eight
/// bytes at a time: mail lines are short (40 bytes on average in the Enron
/// bench), and one `memchr` call per line cost more in call setup than it
/// saved (10% of the mbox import, profiled); here a word with no `\n` costs
/// a few instructions.
pub(crate) fn split_lines(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 40 + 1);
    let mut start = 0;
    let mut base = 0;
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let mut m = newline_mask(u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]));
        while m != 0 {
            let i = base + (m.trailing_zeros() / 8) as usize;
            out.push(&s[start..i]);
            start = i + 1;
            m &= m - 1;
        }
        base += 8;
    }
    for (k, &c) in words.remainder().iter().enumerate() {
        if c == b'\n' {
            out.push(&s[start..base + k]);
            start = base + k + 1;
        }
    }
    out.push(&s[start..]);
    out
}

/// The high bit of each byte of `w` that is `\n`, exactly (no carry
/// between bytes: `(x & 0x7f) + 0x7f` stays under 0x100).
fn newline_mask(w: u64) -> u64 {
    const LO7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = w ^ 0x0a0a_0a0a_0a0a_0a0a;
    !(((x & LO7) + LO7) | x | LO7)
}

/// `s.replace("\r\n", "\n").replace('\r', "\n")` in one pass.
pub(crate) fn normalize_newlines(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut from = 0;
    for i in memchr::memchr_iter(b'\r', b) {
        if i < from {
            continue;
        }
        out.push_str(&s[from..i]);
        out.push('\n');
        from = if b.get(i + 1) == Some(&b'\n') { i + 2 } else { i + 1 };
    }
    out.push_str(&s[from..]);
    out
}

/// Join lines without leading and trailing blank lines or trailing spaces;
/// with `collapse`, runs of blank lines become one (removing a quoted block
/// leaves the blank lines around it).
fn join_trimmed(lines: &[&str], collapse: bool) -> String {
    let start = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
    let end = lines.iter().rposition(|l| !l.trim().is_empty()).map_or(start, |e| e + 1);
    let mut out = String::with_capacity(lines[start..end].iter().map(|l| l.len() + 1).sum());
    let mut prev_blank = false;
    for (k, l) in lines[start..end].iter().enumerate() {
        let l = l.trim_end();
        if collapse && l.is_empty() && prev_blank {
            continue;
        }
        if k > 0 {
            out.push('\n');
        }
        out.push_str(l);
        prev_blank = l.is_empty();
    }
    out
}

fn is_gt(line: &str) -> bool {
    line.trim_start_matches([' ', '\t']).starts_with('>') && line.len() - line.trim_start_matches([' ', '\t']).len() <= 1
}

/// The `>` block starting at `i` (blank lines inside it kept), with the
/// markers removed; and the number of lines it spans.
fn gt_block<'a>(lines: &[&'a str], i: usize) -> (Vec<&'a str>, usize) {
    let mut out = Vec::new();
    let mut j = i;
    let mut last_gt = i;
    while j < lines.len() {
        if is_gt(lines[j]) {
            last_gt = j;
        } else if !lines[j].trim().is_empty() {
            break;
        }
        j += 1;
    }
    if j > i {
        for l in &lines[i..=last_gt.max(i).min(lines.len().saturating_sub(1))] {
            out.push(strip_gt(l));
        }
    }
    let n = if j > i { last_gt + 1 - i } else { 0 };
    (out, n)
}

fn strip_gt(line: &str) -> &str {
    let mut s = line.trim_start_matches([' ', '\t']);
    while let Some(rest) = s.strip_prefix('>') {
        s = rest.strip_prefix(' ').unwrap_or(rest);
    }
    s
}

fn detect_intro(lines: &[&str], i: usize, in_forward: bool) -> Option<Intro> {
    let line = lines[i];
    let t = line.trim();
    if t.is_empty() {
        return None;
    }
    // Cheap byte tests first: this runs on every body line, and each
    // marker has a fixed first character or ending.
    let b = t.as_bytes();
    let first = b[0];
    let last = b[b.len() - 1];
    // Outlook.
    if last == b'-' && b[..b.len().min(10)].contains(&b'-') && contains_ci(t, "original") && ORIGINAL.is_match(line) {
        return Some(header_block(lines, i, QuoteKind::Reply));
    }
    // Gmail / Apple Mail forward.
    // (The regex needs `-` first, or `begin forwarded message:`.)
    if (first == b'-' || b.len() >= 6 && b[..6].eq_ignore_ascii_case(b"begin ")) && contains_ci(t, "forward") && FWD_MESSAGE.is_match(line)
    {
        return Some(header_block(lines, i, QuoteKind::Forward));
    }
    // Lotus Notes forward, possibly wrapped onto a second line.
    if t.starts_with("---") && contains_ci(t, "forwarded by") {
        let mut joined = t.to_string();
        let mut used = 1;
        if !t.trim_end_matches('-').eq(t) || i + 1 >= lines.len() {
            // Ends with dashes: one line.
        } else {
            joined = format!("{} {}", t, lines[i + 1].trim());
            used = 2;
        }
        if let Some(c) = FWD_BY.captures(&joined) {
            return Some(Intro {
                kind: QuoteKind::Forward,
                header: lines[i..i + used].join("\n"),
                author: Some(c[1].trim().to_string()),
                sent_at: Some(c[2].trim().trim_end_matches('-').trim().to_string()),
                lines: used,
                gt_only: false,
            });
        }
    }
    let kind = if in_forward { QuoteKind::Forward } else { QuoteKind::Reply };
    // Lotus Notes headers: `Name on DATE` + `To:`, or `Name` + `DATE` + `To:`.
    if matches!(last, b'M' | b'm')
        && t.contains('/')
        && let Some(c) = NOTES_ON.captures(line)
        && next_is_to(lines, i + 1)
    {
        return Some(notes_block(lines, i, 1, c[1].trim(), c[2].trim(), kind));
    }
    if i + 1 < lines.len()
        && lines[i + 1].trim_start().starts_with(|c: char| c.is_ascii_digit())
        && t.len() <= 100
        && !t.contains(':')
        && let Some(c) = NOTES_DATE_LINE.captures(lines[i + 1])
        && next_is_to(lines, i + 2)
    {
        return Some(notes_block(lines, i, 2, t, c[1].trim(), kind));
    }
    // `On <date>, <who> wrote:` over up to three lines.
    if first == b'O' && t.starts_with("On ") {
        let mut joined = String::new();
        for (k, l) in lines.iter().enumerate().skip(i).take(3) {
            if !joined.is_empty() && !joined.ends_with('<') {
                joined.push(' ');
            }
            joined.push_str(l.trim());
            if joined.ends_with("wrote:") || joined.ends_with("wrote :") {
                let used = k + 1 - i;
                let inner = joined.trim_start_matches("On ").trim_end_matches(':').trim_end().trim_end_matches("wrote").trim_end();
                let (when, who) = split_when_who(inner);
                let gt_only = next_nonblank(lines, i + used).is_some_and(is_gt);
                return Some(Intro { kind, header: lines[i..i + used].join("\n"), author: who, sent_at: when, lines: used, gt_only });
            }
            if l.trim().is_empty() {
                break;
            }
        }
    }
    // Bare `<who> wrote:` directly before `>` lines.
    if last == b':' && t.ends_with("wrote:") && t.len() <= 200 && next_nonblank(lines, i + 1).is_some_and(is_gt) {
        let who = t.trim_end_matches("wrote:").trim().trim_end_matches(',').trim().to_string();
        return Some(Intro { kind, header: line.to_string(), author: Some(who), sent_at: None, lines: 1, gt_only: true });
    }
    // A pasted raw header block (a return receipt or bounce quoting the mail
    // it answers, a message forwarded "with full headers").
    if first.is_ascii_alphabetic() && is_transport_field(line) {
        return raw_header_block(lines, i);
    }
    None
}

/// Field names that only a mail transport or client writes (RFC 5321 trace
/// fields, RFC 5322 identification, MIME): a line opening with one is never
/// the author's prose. `From:`/`To:`/`Subject:` are left out on purpose:
/// people write "Subject: the budget" in a sentence.
const TRANSPORT_FIELDS: &[&str] = &[
    "received",
    "return-path",
    "delivered-to",
    "message-id",
    "mime-version",
    "content-type",
    "content-transfer-encoding",
    "dkim-signature",
    "authentication-results",
    "arc-seal",
    "in-reply-to",
    "references",
    "thread-index",
    "thread-topic",
    "delivery-receipt-to",
    "disposition-notification-to",
    "return-receipt-to",
];

/// The field name of `line` when it opens a header field (`Name:` with no
/// space inside the name), lowercased only in the comparison.
fn raw_field_name(line: &str) -> Option<&str> {
    let colon = memchr::memchr(b':', &line.as_bytes()[..line.len().min(48)])?;
    let name = &line[..colon];
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')).then_some(name)
}

fn is_transport_field(line: &str) -> bool {
    raw_field_name(line).is_some_and(|n| {
        TRANSPORT_FIELDS.iter().any(|f| f.eq_ignore_ascii_case(n)) || n.len() > 2 && n.as_bytes()[..2].eq_ignore_ascii_case(b"x-")
    })
}

/// A pasted raw header block starting at `i`: header fields (any names) up
/// to the first blank line, at least [`RAW_BLOCK_MIN_TRANSPORT`] of them
/// transport fields. Lines in between that open no field are folded
/// continuations (Enron's export lost the leading space of many). Like a
/// forward marker, it quotes everything after it up to the next marker: the
/// text below a pasted header is the pasted message.
fn raw_header_block(lines: &[&str], i: usize) -> Option<Intro> {
    let mut transport = 0;
    let mut author = None;
    let mut sent_at = None;
    let mut j = i;
    while j < lines.len() && !lines[j].trim().is_empty() {
        let l = lines[j];
        if !l.starts_with([' ', '\t']) && raw_field_name(l).is_some() {
            if is_transport_field(l) {
                transport += 1;
            } else if let Some((name, value)) = header_field(l) {
                match name.as_str() {
                    "from" if author.is_none() => author = Some(clean_author(value)),
                    "date" | "sent" if sent_at.is_none() => sent_at = Some(value.to_string()),
                    _ => {}
                }
            }
        }
        j += 1;
    }
    (transport >= RAW_BLOCK_MIN_TRANSPORT).then(|| Intro {
        kind: QuoteKind::Forward,
        header: lines[i..j].join("\n"),
        author,
        sent_at,
        lines: j - i,
        gt_only: false,
    })
}

/// Transport fields a pasted header block needs: one `Received:` line in a
/// sentence ("Received: your note, thanks") is the author's, three are a
/// header.
const RAW_BLOCK_MIN_TRANSPORT: usize = 3;

/// ASCII case-insensitive substring test without allocating.
fn contains_ci(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    h.len() >= n.len() && h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

fn next_nonblank<'a>(lines: &[&'a str], from: usize) -> Option<&'a str> {
    lines.iter().skip(from).find(|l| !l.trim().is_empty()).copied()
}

fn next_is_to(lines: &[&str], i: usize) -> bool {
    lines.get(i).is_some_and(|l| {
        let l = l.trim_start();
        // Bytes, not `&l[..3]`: the third byte may sit inside a multi-byte
        // character (found by the mail_parse fuzz target).
        l.as_bytes().get(..3).is_some_and(|b| b.eq_ignore_ascii_case(b"to:"))
    })
}

/// `marker` + `From:`/`Sent:`/... lines (with folded continuations) up to
/// the first blank line after at least one field.
fn header_block(lines: &[&str], i: usize, kind: QuoteKind) -> Intro {
    let mut j = i + 1;
    let mut author = None;
    let mut sent_at = None;
    let mut fields = 0;
    // Apple Mail leaves a blank line after the marker.
    while j < lines.len() && lines[j].trim().is_empty() && fields == 0 && j < i + 3 {
        j += 1;
    }
    let mut last_field: Option<String> = None;
    while j < lines.len() {
        let l = lines[j];
        if l.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header_field(l) {
            let value = value.to_string();
            match name.as_str() {
                "from" => author = Some(value),
                "sent" | "date" => sent_at = Some(value),
                _ => {}
            }
            last_field = Some(name);
            fields += 1;
        } else if fields > 0 && l.starts_with([' ', '\t']) {
            // Folded continuation of the previous field.
            if let Some(name) = &last_field {
                let extra = l.trim();
                match name.as_str() {
                    "from" => author = author.map(|a| format!("{a} {extra}")),
                    "sent" | "date" => sent_at = sent_at.map(|a| format!("{a} {extra}")),
                    _ => {}
                }
            }
        } else {
            break;
        }
        j += 1;
    }
    if fields == 0 {
        j = i + 1;
    }
    Intro { kind, header: lines[i..j].join("\n"), author: author.map(|a| clean_author(&a)), sent_at, lines: j - i, gt_only: false }
}

/// `Name` line(s) + date + `To:`/`cc:`/`Subject:` lines of a Notes header.
fn notes_block(lines: &[&str], i: usize, head: usize, author: &str, date: &str, kind: QuoteKind) -> Intro {
    let mut j = i + head;
    while j < lines.len() {
        let l = lines[j];
        if l.trim().is_empty() {
            break;
        }
        let starts_field = header_field(l).is_some();
        if !starts_field && !l.starts_with([' ', '\t']) {
            break;
        }
        j += 1;
        if l.trim_start().to_ascii_lowercase().starts_with("subject:") {
            break;
        }
    }
    Intro {
        kind,
        header: lines[i..j].join("\n"),
        author: Some(clean_author(author)),
        sent_at: Some(date.to_string()),
        lines: j - i,
        gt_only: false,
    }
}

/// Outlook writes `"Name" <a@b>@ENRON` and pads with tabs.
fn clean_author(a: &str) -> String {
    a.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `Wed, Feb 09, 2000 at 07:53:50AM +0000, Mark Sappol` and
/// `Mon, Feb 2, 2026 at 9:24 PM Ryan Stern <r@x>`: the date ends after the
/// last clock time (with its zone); the rest is who. Without a time, split
/// at the last comma.
fn split_when_who(s: &str) -> (Option<String>, Option<String>) {
    if let Some(m) = TIME.find_iter(s).last() {
        let who = s[m.end()..].trim_start_matches([',', ' ']).trim();
        if !who.is_empty() {
            return (Some(s[..m.end()].trim().to_string()), Some(who.to_string()));
        }
    }
    match s.rsplit_once(", ") {
        Some((when, who)) => (Some(when.trim().to_string()), Some(who.trim().to_string())),
        None => (None, Some(s.trim().to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_lines_and_newlines_match_std() {
        let samples = ["", "\n", "a", "a\n", "\n\n\nb", "0123456\n89abcdef\n\n", "é\nxyz\r\n\r\rq\r", "\r\n\r", "\n\n\n\n\n\n\n\n\n"];
        let mut x: u64 = 7;
        let mut generated = Vec::new();
        for _ in 0..500 {
            let mut s = String::new();
            for _ in 0..(x % 40) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push(['\n', '\r', 'a', ' ', 'é', '\u{a}', '\u{10a}'][(x % 7) as usize]);
            }
            generated.push(s);
        }
        for s in samples.iter().copied().chain(generated.iter().map(String::as_str)) {
            assert_eq!(split_lines(s), s.split('\n').collect::<Vec<_>>(), "{s:?}");
            assert_eq!(normalize_newlines(s), s.replace("\r\n", "\n").replace('\r', "\n"), "{s:?}");
        }
    }

    /// A return receipt quoting the mail it acknowledges (Enron,
    /// `keavey-p/deleted_items`): the raw header block and the pasted mail
    /// below it are quoted, not the receipt's author's text; Enron's export
    /// lost the leading space of some folded lines.
    #[test]
    fn pasted_raw_header_block_is_forwarded_content() {
        let body = "This is a Return Receipt for the mail that you sent to\nrogertan@swbell.net.\n\n - C.DTF \nReturn-path: <Peter.F.Keavey@enron.com>\nDelivery-receipt-to: \"Keavey, Peter F.\" <Peter.F.Keavey@ENRON.com>\nReceived: from mta2.rcsntx.swbell.net (mta2-pr.rcsntx.swbell.net)\n by sims1.rcsntx.swbell.net\n with ESMTP id <0GLF00H9D2ET3Z@sims1.rcsntx.swbell.net> for\n rogertan@sims-ms-daemon; Thu, 18 Oct 2001 14:35:18 -0500 (CDT)\nReceived: from postmaster.enron.com (outbound5.enron.com\n[192.152.140.9])\n by mail.ngigpi.com (8.8.7/8.8.7) with ESMTP id PAA03067; Thu,\n18 Oct 2001 15:49:43 -0400\nDate: Thu, 18 Oct 2001 14:31:58 -0500\nFrom: \"Keavey, Peter F.\" <Peter.F.Keavey@enron.com>\nMIME-version: 1.0\nX-MimeOLE: Produced By Microsoft Exchange V6.0.4712.0\n\nPrices attached.\n";
        let (new, parts) = split_quoted(body);
        assert_eq!(new, "This is a Return Receipt for the mail that you sent to\nrogertan@swbell.net.\n\n - C.DTF");
        assert_eq!(parts.len(), 1, "{parts:#?}");
        assert_eq!(parts[0].kind, QuoteKind::Forward);
        assert_eq!(parts[0].author.as_deref(), Some("\"Keavey, Peter F.\" <Peter.F.Keavey@enron.com>"));
        assert_eq!(parts[0].sent_at.as_deref(), Some("Thu, 18 Oct 2001 14:31:58 -0500"));
        assert!(parts[0].header.starts_with("Return-path:") && parts[0].header.ends_with("Exchange V6.0.4712.0"));
        assert_eq!(parts[0].text, "Prices attached.");
    }

    /// Near misses: prose that mentions a field, or one or two transport
    /// fields, stays the author's text.
    #[test]
    fn a_field_named_in_prose_is_not_a_header_block() {
        for body in [
            "Received: your note, thanks.\nMessage-ID: is in the log.\nWill look tomorrow.",
            "Content-type: text/plain is what the feed sends.\n\nReceived: from the vendor today.",
            "Subject: budget\nFrom: me\nDate: today\nThe numbers are in.",
            "The X-ray came back clean.",
        ] {
            let (new, parts) = split_quoted(body);
            assert!(parts.is_empty(), "{body:?}: {parts:#?}");
            assert_eq!(new, body, "{body:?}");
        }
    }

    #[test]
    fn outlook_original_message() {
        let body = "\tSee you there,\n\n -----Original Message-----\nFrom: \t\"Guinara, Angelia\" <A@x.edu>@ENRON  \nSent:\tTuesday, October 23, 2001 9:28 AM\nTo:\tLewis, Andrew H.\nSubject:\t \n\nHi Andy,\n\nI'm sorry.\n";
        let (new, parts) = split_quoted(body);
        assert_eq!(new, "\tSee you there,");
        assert_eq!(parts.len(), 1);
        let p = &parts[0];
        assert_eq!(p.kind, QuoteKind::Reply);
        assert_eq!(p.author.as_deref(), Some("\"Guinara, Angelia\" <A@x.edu>@ENRON"));
        assert_eq!(p.sent_at.as_deref(), Some("Tuesday, October 23, 2001 9:28 AM"));
        assert_eq!(p.text, "Hi Andy,\n\nI'm sorry.");
        assert!(p.header.starts_with(" -----Original Message-----\nFrom:"));
        assert!(p.header.ends_with("Subject:\t "));
    }

    #[test]
    fn notes_forward_chain() {
        let body = "\n\n---------------------- Forwarded by Andrew H Lewis/HOU/ECT on 03/26/2001 01:21 PM ---------------------------\n\n\nHunter S Shively\n03/26/2001 10:44 AM\nTo:\tAndrew H Lewis/HOU/ECT@ECT\ncc:\t \nSubject:\tWestern Frontier\n\nLook at this.\n\n\"Elliott, Mark\" <M@W.com> on 03/20/2001 10:26:23 AM\nTo:\t\"'chris.meyer@enron.com'\" <chris.meyer@enron.com>\ncc:\t\"Sanders, Dale T.\" <D@W.com>\nSubject:\tWestern Frontier Presentation\n\nSlides attached.\n";
        let (new, parts) = split_quoted(body);
        assert_eq!(new, "");
        assert_eq!(parts.len(), 3, "{parts:#?}");
        assert_eq!(parts[0].author.as_deref(), Some("Andrew H Lewis/HOU/ECT"));
        assert_eq!(parts[0].sent_at.as_deref(), Some("03/26/2001 01:21 PM"));
        assert_eq!(parts[0].text, "");
        assert_eq!(parts[1].author.as_deref(), Some("Hunter S Shively"));
        assert_eq!(parts[1].sent_at.as_deref(), Some("03/26/2001 10:44 AM"));
        assert_eq!(parts[1].text, "Look at this.");
        assert_eq!(parts[1].kind, QuoteKind::Forward);
        assert_eq!(parts[2].author.as_deref(), Some("\"Elliott, Mark\" <M@W.com>"));
        assert_eq!(parts[2].text, "Slides attached.");
    }

    #[test]
    fn wrapped_forwarded_by() {
        let body =
            "FYI\n---------------------- Forwarded by Andrew H Lewis/HOU/ECT on 03/26/2001\n01:21 PM ---------------------------\nText\n";
        let (new, parts) = split_quoted(body);
        assert_eq!(new, "FYI");
        assert_eq!(parts[0].sent_at.as_deref(), Some("03/26/2001 01:21 PM"));
        assert_eq!(parts[0].text, "Text");
    }

    #[test]
    fn on_wrote_with_gt_and_inline_reply() {
        let body = "On Wed, Feb 09, 2000 at 07:53:50AM +0000, Mark Sappol wrote:\n> I need a file.\n>\n> Thanks\n\nUse netscape.\n\n> And TIFF?\n\nUse convert.\n";
        let (new, parts) = split_quoted(body);
        assert_eq!(new, "Use netscape.\n\nUse convert.");
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].author.as_deref(), Some("Mark Sappol"));
        assert_eq!(parts[0].sent_at.as_deref(), Some("Wed, Feb 09, 2000 at 07:53:50AM +0000"));
        assert_eq!(parts[0].text, "I need a file.\n\nThanks");
        assert_eq!(parts[1].author, None);
        assert_eq!(parts[1].text, "And TIFF?");
    }

    #[test]
    fn gmail_wrapped_on_wrote_and_forward() {
        let body = "Yes.\r\n\r\nOn Mon, Feb 2, 2026 at 9:24 PM Ryan Stern <\r\nryan@q.com> wrote:\r\n\r\n> Two lines.\r\n";
        let (new, parts) = split_quoted(body);
        assert_eq!(new, "Yes.");
        assert_eq!(parts[0].author.as_deref(), Some("Ryan Stern <ryan@q.com>"));
        assert_eq!(parts[0].sent_at.as_deref(), Some("Mon, Feb 2, 2026 at 9:24 PM"));
        let (new, parts) =
            split_quoted("See below\n\n---------- Forwarded message ---------\nFrom: A <a@x>\nDate: Tue, 3 Feb 2026\nSubject: s\n\nBody\n");
        assert_eq!(new, "See below");
        assert_eq!(parts[0].kind, QuoteKind::Forward);
        assert_eq!(parts[0].author.as_deref(), Some("A <a@x>"));
        assert_eq!(parts[0].sent_at.as_deref(), Some("Tue, 3 Feb 2026"));
        assert_eq!(parts[0].text, "Body");
    }

    #[test]
    fn on_wrote_without_gt_quotes_the_rest() {
        let (new, parts) = split_quoted("Ok\nOn 5/4/2001, Bob wrote:\nplain history\n");
        assert_eq!(new, "Ok");
        assert_eq!(parts[0].author.as_deref(), Some("Bob"));
        assert_eq!(parts[0].sent_at.as_deref(), Some("5/4/2001"));
        assert_eq!(parts[0].text, "plain history");
    }

    /// Regression: fuzz/artifacts/mail_parse/crash-e0922419… — a Notes
    /// `Name on DATE` line followed by a line whose third byte is inside a
    /// multi-byte character (there U+FFFD from an invalid byte).
    #[test]
    fn notes_header_probe_on_multibyte_line() {
        let body = "-------- Forwarded bYy yA mueh/VALIC on 10/22/2001 02:45 PM\n-\u{fffd}\u{fffd}r=\"\"\n\nx\n";
        let (new, parts) = split_quoted(body);
        assert!(parts.is_empty() && new.starts_with("---"), "{parts:?}");
        let (_, parts) = split_quoted("Name\n10/22/2001 02:45 PM\nT€:x\n");
        assert!(parts.is_empty());
    }

    #[test]
    fn no_markers_and_junk() {
        assert_eq!(split_quoted("Just text.\nOn Monday we ship.\n"), ("Just text.\nOn Monday we ship.".to_string(), vec![]));
        for s in ["", "\n", ">", "On", "-----Original Message-----", "--- Forwarded by", "x\nOn a\nb\nc wrote:", "\r\r\n>"] {
            let _ = split_quoted(s);
        }
    }
}
