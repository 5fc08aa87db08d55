//! One RFC 822 message (bytes) to one [`Message`].

use crate::charset::{self, Decoded};
use crate::error::{Error, Result};
use crate::headers::Headers;
use crate::{bulk, date, quote, signature, subject};
use amem_records::{Digest, Message, MessageId, SourceKind, TimeWindow};
use mailparse::{ParsedContentType, ParsedMail};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// How the importer wants one message built: where it came from and which
/// format conventions apply.
#[derive(Debug, Clone)]
pub struct MailContext<'a> {
    /// Archive format of the message.
    pub source: SourceKind,
    /// `Message::archive`: the path as the user gave it.
    pub archive: &'a str,
    /// `Message::locator`: file plus position.
    pub locator: String,
    /// Scope of subject-based threading: the mbox file, the Enron custodian.
    pub mailbox: &'a str,
    /// Gmail Takeout conventions: `X-GM-THRID` is the conversation,
    /// `X-Gmail-Labels` go to `meta["labels"]`.
    pub gmail: bool,
    /// Headers copied verbatim (decoded) into `meta`, under their lowercase name.
    pub keep_headers: &'a [&'a str],
    /// Only messages whose `Date:` falls inside are built.
    pub window: TimeWindow,
    /// The bytes are the end of a file that did not end with a line end.
    pub unterminated: bool,
}

/// Headers whose raw value is not needed by the body walk. Enron keeps these.
pub const ENRON_X_HEADERS: &[&str] = &["X-From", "X-To", "X-cc", "X-bcc", "X-Folder", "X-Origin", "X-FileName"];

fn header(headers: &Headers<'_>, name: &str) -> Option<String> {
    headers.first(name).map(|h| collapse(&headers.text(h)))
}

/// A header that never carries encoded words (ids, thread ids, dates): its
/// raw value, skipping mailparse's RFC 2047 tokenizer.
fn raw_header(headers: &Headers<'_>, name: &str) -> Option<String> {
    headers.first(name).map(|h| collapse(&String::from_utf8_lossy(h.value)))
}

/// Whitespace runs to one space, ends trimmed (folded headers, tab padding).
fn collapse(s: &str) -> String {
    let t = s.trim();
    let b = t.as_bytes();
    // Most header values need nothing: skip the split and join. One pass:
    // no tab, CR, LF, double space or non-ASCII byte.
    let mut prev_space = false;
    let clean = b.iter().all(|&c| {
        let ok = c < 0x80 && c != b'\t' && c != b'\n' && c != b'\r' && !(c == b' ' && prev_space);
        prev_space = c == b' ';
        ok
    });
    if clean {
        return t.to_string();
    }
    let mut out = String::with_capacity(t.len());
    for w in t.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Parse `raw` into a [`Message`]. `Ok(None)` when the Date header is
/// outside `cx.window`: in that case the body is never decoded.
///
/// # Errors
/// [`Error::Date`] without a readable Date header, [`Error::Charset`] for an
/// undecodable body, [`Error::Truncated`] for a message cut off by the end of
/// the file, [`Error::Malformed`] when the headers cannot be read at all.
pub fn parse_message(raw: &[u8], cx: &MailContext<'_>) -> Result<Option<Message>> {
    // The headers are split by our own reader (crate::headers, identical to
    // mailparse's); mailparse splits the MIME tree only for multipart mail
    // (and gives the error for a header block it refuses). No body is decoded
    // until select_body, which runs after the date window check.
    let Some(headers) = Headers::parse(raw) else {
        let e = mailparse::parse_mail(raw).err().map_or_else(|| "unreadable header block".to_string(), |e| e.to_string());
        return Err(Error::Malformed(e));
    };
    let headers = &headers;
    let ctype = headers.first_text("Content-Type").as_deref().map_or_else(ParsedContentType::default, mailparse::parse_content_type);
    let mail = if ctype.mimetype.starts_with("multipart") {
        Some(mailparse::parse_mail(raw).map_err(|e| Error::Malformed(e.to_string()))?)
    } else {
        None
    };
    if cx.unterminated && !has_header_end(raw) {
        return Err(Error::Truncated("the file ends inside the header block".into()));
    }
    let sent_at = match headers.first("Date") {
        None => return Err(Error::Date("no Date header".into())),
        Some(h) => {
            let v = headers.text(h);
            date::parse_date(&v).ok_or_else(|| Error::Date(format!("unreadable Date header {:?}", truncate(&v, 80))))?
        }
    };
    if !cx.window.contains(sent_at) {
        return Ok(None);
    }
    let mut meta = BTreeMap::new();
    if cx.unterminated && mail.as_ref().is_some_and(missing_close_boundary) {
        return Err(Error::Truncated("the file ends inside a MIME multipart (no closing boundary)".into()));
    }
    let body = match &mail {
        Some(mail) => select_body(mail, &mut meta)?,
        None => select_single(raw, headers, &ctype, &mut meta)?,
    };

    let message_id = raw_header(headers, "Message-ID").filter(|s| !s.is_empty());
    let id = match &message_id {
        Some(m) => m.clone(),
        None => {
            meta.insert("id_from".into(), "digest".into());
            format!("sha256:{}", Digest::of(raw).to_hex())
        }
    };
    let subject = header(headers, "Subject");
    let conversation = conversation(headers, cx, subject.as_deref(), &mut meta);
    let author = header(headers, "From").or_else(|| header(headers, "Sender")).unwrap_or_default();
    if let Some(reason) = bulk::bulk_reason(headers, Some(&author)) {
        meta.insert("bulk".into(), reason);
    }
    let mut recipients = Vec::new();
    for name in ["To", "Cc"] {
        for h in headers.all(name) {
            recipients.extend(addresses(&headers.text(h)));
        }
    }
    if cx.gmail
        && let Some(l) = header(headers, "X-Gmail-Labels")
    {
        let labels = parse_labels(&l);
        meta.insert("labels".into(), serde_json::to_string(&labels).unwrap_or_default());
    }
    for name in cx.keep_headers {
        if let Some(v) = header(headers, name) {
            meta.insert(name.to_ascii_lowercase(), v);
        }
    }

    let (new_text, quoted) = quote::split_quoted(&body);
    // The headers said nothing: the structure may (the footer is still in `new_text`).
    if !meta.contains_key("bulk")
        && let Some(reason) = bulk::structure_reason(
            &new_text,
            &recipients,
            headers.all("To").any(|h| headers.text(h).to_ascii_lowercase().contains("undisclosed")),
        )
    {
        meta.insert("bulk".into(), reason);
    }
    let trimmed = signature::trim_signature(&new_text);
    if let Some(s) = trimmed.signature {
        meta.insert("signature".into(), s);
    }
    if let Some(d) = trimmed.disclaimer {
        meta.insert("disclaimer".into(), d);
    }
    Ok(Some(Message {
        source: cx.source,
        archive: cx.archive.to_string(),
        conversation,
        id: MessageId(id),
        author,
        recipients,
        sent_at,
        subject,
        text: trimmed.text,
        quoted,
        locator: cx.locator.clone(),
        meta,
        not_claims: None,
    }))
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn has_header_end(raw: &[u8]) -> bool {
    raw.windows(2).any(|w| w == b"\n\n") || raw.windows(4).any(|w| w == b"\r\n\r\n") || raw.starts_with(b"\n") || raw.starts_with(b"\r\n")
}

/// True when a multipart part's closing `--boundary--` never appears.
fn missing_close_boundary(mail: &ParsedMail<'_>) -> bool {
    mail.parts().any(|p| {
        p.ctype.mimetype.starts_with("multipart/")
            && p.ctype.params.get("boundary").is_some_and(|b| {
                let close = format!("--{b}--");
                !contains(p.raw_bytes, close.as_bytes())
            })
    })
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Pick text/plain, else text/html converted; count attachments; decode the
/// charset. Records what it did in `meta`.
fn select_body<'a>(mail: &'a ParsedMail<'a>, meta: &mut BTreeMap<String, String>) -> Result<Cow<'a, str>> {
    let mut plain: Option<&ParsedMail<'_>> = None;
    let mut html_part: Option<&ParsedMail<'_>> = None;
    let mut attachments = 0u64;
    for p in mail.parts() {
        let mt = p.ctype.mimetype.as_str();
        if mt.starts_with("multipart/") && !p.subparts.is_empty() {
            continue;
        }
        let disp = p.get_content_disposition();
        let is_attachment = disp.disposition == mailparse::DispositionType::Attachment
            || disp.params.contains_key("filename")
            || p.ctype.params.contains_key("name");
        if is_attachment {
            attachments += 1;
            continue;
        }
        match mt {
            "text/plain" | "text" | "" if plain.is_none() => plain = Some(p),
            "text/html" if html_part.is_none() => html_part = Some(p),
            "text/plain" | "text/html" => {}
            _ if mt.starts_with("multipart/") => {}
            _ => attachments += 1,
        }
    }
    meta.insert("attachments".into(), attachments.to_string());
    let (part, is_html) = match (plain, html_part) {
        (Some(p), _) => (p, false),
        (None, Some(h)) => (h, true),
        (None, None) => {
            meta.insert("body".into(), "none".into());
            return Ok(Cow::Borrowed(""));
        }
    };
    decode_part(&part.get_body_encoded(), &part.ctype, is_html, meta)
}

/// [`select_body`] for a message that is not multipart (most mail), from
/// our own header split: the same choices as the loop over `parts()` makes
/// for a tree of one part, and the body bytes mailparse would take.
fn select_single<'a>(
    raw: &'a [u8],
    headers: &Headers<'_>,
    ctype: &'a ParsedContentType,
    meta: &mut BTreeMap<String, String>,
) -> Result<Cow<'a, str>> {
    let disp = headers.first_text("Content-Disposition").map(|s| mailparse::parse_content_disposition(&s)).unwrap_or_default();
    let is_attachment = disp.disposition == mailparse::DispositionType::Attachment
        || disp.params.contains_key("filename")
        || ctype.params.contains_key("name");
    let mt = ctype.mimetype.as_str();
    let mut attachments = 0u64;
    let chosen = if is_attachment {
        attachments += 1;
        None
    } else {
        match mt {
            "text/plain" | "text" | "" => Some(false),
            "text/html" => Some(true),
            _ if mt.starts_with("multipart/") => None,
            _ => {
                attachments += 1;
                None
            }
        }
    };
    meta.insert("attachments".into(), attachments.to_string());
    let Some(is_html) = chosen else {
        meta.insert("body".into(), "none".into());
        return Ok(Cow::Borrowed(""));
    };
    let te = headers.first_text("Content-Transfer-Encoding").map(|s| s.to_lowercase());
    let body = raw.get(headers.body_start..).unwrap_or_default();
    decode_part(&mailparse::body::Body::new(body, ctype, &te), ctype, is_html, meta)
}

/// Decode the chosen part's transfer encoding and charset; HTML to text.
fn decode_part<'a>(
    encoded: &mailparse::body::Body<'a>,
    ctype: &ParsedContentType,
    is_html: bool,
    meta: &mut BTreeMap<String, String>,
) -> Result<Cow<'a, str>> {
    // 7bit/8bit/binary bodies are used in place; only base64 and
    // quoted-printable need a decoded copy.
    let raw: Result<Cow<'a, [u8]>, mailparse::MailParseError> = match encoded {
        mailparse::body::Body::Base64(b) => b.get_decoded().map(Cow::Owned),
        // Our decoder, byte for byte what mailparse gives (crate::qp).
        mailparse::body::Body::QuotedPrintable(b) => Ok(Cow::Owned(crate::qp::decode(b.get_raw()))),
        mailparse::body::Body::SevenBit(b) | mailparse::body::Body::EightBit(b) => Ok(Cow::Borrowed(b.get_raw())),
        mailparse::body::Body::Binary(b) => Ok(Cow::Borrowed(b.get_raw())),
    };
    let bytes = match raw {
        Ok(b) => b,
        Err(e) => {
            // A broken base64/QP body: keep the message (its headers are
            // still facts) with no text, and say why.
            meta.insert("body_error".into(), e.to_string());
            return Ok(Cow::Borrowed(""));
        }
    };
    let label = ctype.params.get("charset").map(String::as_str).unwrap_or("us-ascii");
    // A plain ASCII body read in place is borrowed, not copied.
    let plain = match &bytes {
        Cow::Borrowed(b) => charset::plain_ascii(b, label),
        Cow::Owned(_) => None,
    };
    let text: Cow<'a, str> = match plain {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(decode_charset(&bytes, label, meta)?),
    };
    let text = if memchr::memchr(b'\r', text.as_bytes()).is_some() { Cow::Owned(quote::normalize_newlines(&text)) } else { text };
    if is_html {
        meta.insert("body".into(), "text/html".into());
        Ok(Cow::Owned(amem_text::html::html_to_text(&text, amem_text::html::Quotes::Prefixed)))
    } else if amem_text::html::looks_like_html(&text) {
        // Labelled text/plain, written in HTML (the Enron newsletters'
        // `<FONT FACE=...>` plain parts): converted like a text/html part,
        // so no tag reaches a claim.
        meta.insert("body".into(), "text/plain (html)".into());
        Ok(Cow::Owned(amem_text::html::html_to_text(&text, amem_text::html::Quotes::Prefixed)))
    } else {
        meta.insert("body".into(), "text/plain".into());
        Ok(text)
    }
}

/// The body's charset through [`charset::decode`], a lossy decode noted in `meta`.
fn decode_charset(bytes: &[u8], label: &str, meta: &mut BTreeMap<String, String>) -> Result<String> {
    Ok(match charset::decode(bytes, label) {
        Decoded::Clean(t) => t,
        Decoded::Lossy { text, charset, replaced } => {
            meta.insert("charset_lossy".into(), format!("{charset}: {replaced} byte sequence(s) replaced with U+FFFD"));
            text
        }
        Decoded::Unknown { charset } => return Err(Error::Charset(charset)),
    })
}

fn conversation(headers: &Headers<'_>, cx: &MailContext<'_>, subject: Option<&str>, meta: &mut BTreeMap<String, String>) -> String {
    if cx.gmail
        && let Some(t) = raw_header(headers, "X-GM-THRID").filter(|t| !t.is_empty())
    {
        meta.insert("thread_from".into(), "x-gm-thrid".into());
        return t;
    }
    for (name, from) in [("References", "references"), ("In-Reply-To", "in-reply-to")] {
        if let Some(v) = raw_header(headers, name) {
            let first = mailparse::msgidparse(&v).ok().and_then(|l| l.iter().next().cloned());
            let first = first.or_else(|| v.split_whitespace().next().map(str::to_string));
            if let Some(root) = first.filter(|r| !r.is_empty()) {
                meta.insert("thread_from".into(), from.into());
                let root = if root.starts_with('<') { root } else { format!("<{root}>") };
                return root;
            }
        }
    }
    meta.insert("thread_from".into(), "subject".into());
    format!("{}/subject:{}", cx.mailbox, subject::normalize_subject(subject.unwrap_or("")))
}

/// The addresses of an address header (`To`, `Cc`), each as written
/// (`Name <addr>` or `addr`), split on commas outside quotes, angle brackets
/// and comments, with a quoted display name unquoted (`"Doe, Jon" <j@x>` →
/// `Doe, Jon <j@x>`) and group syntax (`team: a@x, b@x;`) flattened. Our own
/// small splitter rather than `mailparse::addrparse`: it keeps what the
/// header says even when it is not RFC 5322 (Enron's `John J Lavorato
/// <John J Lavorato/ENRON@enronXgate@ENRON>`), and it was 8% of the import
/// time.
fn addresses(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut quoted, mut angle, mut paren, mut escaped) = (false, 0usize, 0usize, false);
    let mut start = 0;
    let bytes = value.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            b'\\' if quoted => escaped = true,
            b'"' if paren == 0 => quoted = !quoted,
            b'<' if !quoted => angle += 1,
            b'>' if !quoted => angle = angle.saturating_sub(1),
            b'(' if !quoted => paren += 1,
            b')' if !quoted => paren = paren.saturating_sub(1),
            b',' | b';' if !quoted && angle == 0 && paren == 0 => {
                push_address(&value[start..i], &mut out);
                start = i + 1;
            }
            _ => {}
        }
    }
    push_address(&value[start..], &mut out);
    out
}

fn push_address(piece: &str, out: &mut Vec<String>) {
    let mut p = piece.trim();
    // Group syntax: `name: a@x, b@x;` — the first member carries `name:`.
    if let Some(i) = p.find(':')
        && !p[..i].contains(['<', '"', '@'])
    {
        p = p[i + 1..].trim();
    }
    if p.is_empty() {
        return;
    }
    let p = collapse(p);
    if let Some(rest) = p.strip_prefix('"')
        && let Some(end) = rest.find("\" <")
    {
        let name = rest[..end].replace("\\\"", "\"");
        out.push(format!("{name} {}", &rest[end + 2..]));
        return;
    }
    out.push(p);
}

/// `X-Gmail-Labels` as CSV (RFC 4180 quoting: `Archived,"Trips, 2023",Starred`),
/// after the header's encoded words were decoded.
pub fn parse_labels(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx(gmail: bool) -> MailContext<'static> {
        MailContext {
            source: SourceKind::GMAIL,
            archive: "t.mbox",
            locator: "t.mbox:byte 0".into(),
            mailbox: "t.mbox",
            gmail,
            keep_headers: &[],
            window: TimeWindow::default(),
            unterminated: false,
        }
    }

    /// A text/plain part written in HTML (as the Enron newsletters' are) is
    /// converted like text/html: no tag reaches the text.
    #[test]
    fn html_in_a_plain_part_is_converted() {
        let raw = b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nFrom: news@x.org\nContent-Type: text/plain\n\n\
<FONT FACE=\"Arial, Helvetica\">Gas prices rose 4% on <B>Monday</B>.</FONT><BR>\n";
        let m = parse_message(raw, &cx(false)).unwrap().unwrap();
        assert_eq!(m.meta["body"], "text/plain (html)");
        assert!(!m.text.contains('<'), "{:?}", m.text);
        assert!(m.text.contains("Gas prices rose 4% on Monday."), "{:?}", m.text);
        // Plain text mentioning an address in angle brackets is left alone.
        let raw = b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nFrom: a@x.org\n\nWrite to <peter@x.org> or <b@x.org>.\n";
        let m = parse_message(raw, &cx(false)).unwrap().unwrap();
        assert_eq!(m.meta["body"], "text/plain");
        assert_eq!(m.text, "Write to <peter@x.org> or <b@x.org>.");
    }

    #[test]
    fn bulk_mail_is_marked_with_its_reason() {
        let raw =
            b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nFrom: Shop <deals@shop.example>\nList-Unsubscribe: <mailto:u@shop.example>\n\nSale.\n";
        let m = parse_message(raw, &cx(false)).unwrap().unwrap();
        assert_eq!(m.meta["bulk"], "list-unsubscribe");
        let raw = b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nFrom: GitHub <noreply@github.com>\n\nA push.\n";
        assert_eq!(parse_message(raw, &cx(true)).unwrap().unwrap().meta["bulk"], "automated sender: noreply@github.com");
        let raw = b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nFrom: Ann <ann@x.org>\n\nThe plant runs on coal.\n";
        assert!(!parse_message(raw, &cx(true)).unwrap().unwrap().meta.contains_key("bulk"));
    }

    #[test]
    fn collapse_is_split_and_join() {
        for s in ["", " a ", "a  b", "a\tb", "a\r\n b", "caf\u{e9}  x", "a\u{a0}b", "a\u{b}b", " \u{c} ", "x y z", "\u{85}q"] {
            let t = s.trim();
            let clean = !t.contains(['\t', '\n', '\r']) && !t.contains("  ") && t.is_ascii();
            let want = if clean { t.to_string() } else { t.split_whitespace().collect::<Vec<_>>().join(" ") };
            assert_eq!(collapse(s), want, "{s:?}");
        }
    }

    #[test]
    fn labels_csv_and_encoded_words() {
        assert_eq!(parse_labels("Inbox,Category Promotions,Unread"), ["Inbox", "Category Promotions", "Unread"]);
        assert_eq!(parse_labels("Archived,\"Trips, 2023\",Starred"), ["Archived", "Trips, 2023", "Starred"]);
        let raw =
            b"X-GM-THRID: 42\nX-Gmail-Labels: Inbox,=?UTF-8?Q?Caf=C3=A9,_Paris?=\nDate: Mon, 2 Feb 2026 21:24:14 -0600\nSubject: x\n\nhi\n";
        let m = parse_message(raw, &cx(true)).unwrap().unwrap();
        assert_eq!(m.conversation, "42");
        // The encoded word decodes to `Café, Paris`, which contains a comma but
        // was not quoted: CSV splits it, as Gmail's own export would have quoted it.
        assert_eq!(m.meta["labels"], r#"["Inbox","Café","Paris"]"#);
    }

    #[test]
    fn multipart_html_only_charset_and_attachments() {
        let raw = concat!(
            "Date: Tue, 3 Feb 2026 10:00:00 +0000\nMessage-ID: <m1@x>\nSubject: =?iso-8859-1?Q?Caf=E9?= plans\n",
            "From: =?utf-8?B?w4lsb2TDrWU=?= <e@x>\nTo: a@x, \"B, C\" <b@x>\nCc: c@x\n",
            "Content-Type: multipart/mixed; boundary=XX\n\n--XX\nContent-Type: text/html; charset=iso-8859-1\n",
            "Content-Transfer-Encoding: quoted-printable\n\n<p>Caf=E9 at 5.</p>\n--XX\nContent-Type: application/pdf; name=a.pdf\n",
            "Content-Transfer-Encoding: base64\n\nAAAA\n--XX--\n"
        );
        let m = parse_message(raw.as_bytes(), &cx(false)).unwrap().unwrap();
        assert_eq!(m.id.0, "<m1@x>");
        assert_eq!(m.subject.as_deref(), Some("Café plans"));
        assert_eq!(m.author, "Élodíe <e@x>");
        assert_eq!(m.recipients, ["a@x", "B, C <b@x>", "c@x"]);
        assert_eq!(m.text, "Café at 5.");
        assert_eq!(m.meta["attachments"], "1");
        assert_eq!(m.meta["body"], "text/html");
        assert_eq!(m.conversation, "t.mbox/subject:café plans");
    }

    #[test]
    fn errors_and_window() {
        let e = parse_message(b"Subject: x\n\nbody\n", &cx(false)).unwrap_err();
        assert_eq!(e.kind(), "date");
        let e = parse_message(b"Date: soon\n\nbody\n", &cx(false)).unwrap_err();
        assert_eq!(e.kind(), "date");
        let e = parse_message(b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nContent-Type: text/plain; charset=x-nope\n\n\xe9\xe9\n", &cx(false))
            .unwrap_err();
        assert_eq!(e.kind(), "charset");
        let mut c = cx(false);
        c.window.since = Some("2027-01-01T00:00:00Z".parse().unwrap());
        assert_eq!(parse_message(b"Date: Tue, 3 Feb 2026 10:00:00 +0000\n\nx\n", &c).unwrap(), None);
        let mut c = cx(false);
        c.unterminated = true;
        let e = parse_message(b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nContent-Type: multipart/mixed; boundary=b\n\n--b\n\nhalf", &c)
            .unwrap_err();
        assert_eq!(e.kind(), "truncated");
        let e = parse_message(b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nSubject: cut", &c).unwrap_err();
        assert_eq!(e.kind(), "truncated");
    }

    #[test]
    fn address_lists() {
        let parse = |v: &str| {
            let raw = format!("To: {v}\n\n");
            let (h, _) = mailparse::parse_header(raw.as_bytes()).unwrap();
            addresses(&h.get_value())
        };
        assert_eq!(parse("a@x, \"Doe, Jon\" <j@x>;b@x"), ["a@x", "Doe, Jon <j@x>", "b@x"]);
        assert_eq!(parse("team: a@x, b@x;, c@x"), ["a@x", "b@x", "c@x"]);
        assert_eq!(parse("undisclosed-recipients:;"), Vec::<String>::new());
        assert_eq!(
            parse("John J Lavorato <John J Lavorato/ENRON@enronXgate@ENRON>"),
            ["John J Lavorato <John J Lavorato/ENRON@enronXgate@ENRON>"]
        );
        assert_eq!(parse("a@x (Ann, Sales), =?utf-8?Q?Ren=C3=A9?= <r@x>"), ["a@x (Ann, Sales)", "René <r@x>"]);
        assert_eq!(parse("\"unterminated, <a@x>"), ["\"unterminated, <a@x>"]);
    }

    #[test]
    fn no_message_id_gives_digest_and_threads() {
        let raw = b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nSubject: RE: FW: Plan\nReferences: <root@x> <mid@x>\n\nok\n";
        let m = parse_message(raw, &cx(false)).unwrap().unwrap();
        assert!(m.id.0.starts_with("sha256:"));
        assert_eq!(m.conversation, "<root@x>");
        let raw = b"Date: Tue, 3 Feb 2026 10:00:00 +0000\nSubject: RE: FW: Plan\n\nok\n";
        assert_eq!(parse_message(raw, &cx(false)).unwrap().unwrap().conversation, "t.mbox/subject:plan");
    }
}
