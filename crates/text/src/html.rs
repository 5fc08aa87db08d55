//! HTML to text, once for every stage: mail bodies without a text/plain
//! part, notes and saved pages in the wiki, fetched evidence pages.
//!
//! Deliberately small (no DOM): tags are dropped and block elements become
//! blank-line-separated blocks, so the sentence splitter keeps paragraphs
//! apart. Character references are decoded with the `html-escape` crate,
//! which knows the whole HTML5 table of named references (2,231 names), not
//! the dozen or so each stage's own copy used to list.

use std::borrow::Cow;

/// Elements whose content is never shown.
const HIDDEN: &[&str] = &["script", "style", "head", "title", "noscript", "template", "svg"];

/// How `<blockquote>` content is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quotes {
    /// Prefixed with `> ` per level, as a plain-text mail quotes: mail
    /// bodies, whose quote splitter then sees an HTML reply's quoted history
    /// (Gmail's `<blockquote class="gmail_quote">`) as it sees a plain one.
    Prefixed,
    /// As plain blocks: pages and notes, where a quotation is content.
    Plain,
}

/// The visible text of an HTML document or fragment: tags dropped, block
/// elements as blank-line-separated blocks, `<br>` a line break, `<li>` a
/// `- ` bullet, hidden elements (`<script>`, `<style>`, `<head>`,
/// `<title>`, `<noscript>`, `<template>`, `<svg>`) and comments skipped,
/// character references decoded ([`decode_entities`]), runs of whitespace
/// collapsed as a browser would.
///
/// ```
/// use amem_text::html::{Quotes, html_to_text};
/// assert_eq!(html_to_text("<p>Caf&eacute; &amp; bar</p><p>Two</p>", Quotes::Plain), "Café & bar\n\nTwo");
/// ```
pub fn html_to_text(html: &str, quotes: Quotes) -> String {
    let mut out = Text { prefix_quotes: quotes == Quotes::Prefixed, ..Text::default() };
    let b = html.as_bytes();
    let mut i = 0;
    let mut skip_until: Option<&'static str> = None;
    while i < b.len() {
        if b[i] == b'<' {
            // Comment.
            if html[i..].starts_with("<!--") {
                i = html[i + 4..].find("-->").map_or(b.len(), |j| i + 4 + j + 3);
                continue;
            }
            let end = match html[i..].find('>') {
                Some(j) => i + j,
                None => break,
            };
            let tag = &html[i + 1..end];
            i = end + 1;
            let closing = tag.starts_with('/');
            let name: String =
                tag.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect();
            if let Some(until) = skip_until {
                if closing && name == until {
                    skip_until = None;
                }
                continue;
            }
            match name.as_str() {
                "script" | "style" | "head" | "title" | "noscript" | "template" | "svg" if !closing && !tag.ends_with('/') => {
                    skip_until = HIDDEN.iter().copied().find(|h| *h == name)
                }
                "br" => out.newline(),
                "p" | "div" | "tr" | "table" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "ul" | "ol" | "pre" | "hr" | "section"
                | "article" | "header" | "footer" | "dd" | "dt" | "figcaption" | "main" | "nav" | "aside" => out.block(),
                "li" => {
                    out.block();
                    if !closing {
                        out.push_word("-");
                        out.space();
                    }
                }
                "td" | "th" if !closing => out.space(),
                "blockquote" => {
                    out.block();
                    if closing {
                        out.depth = out.depth.saturating_sub(1);
                    } else {
                        out.depth += 1;
                    }
                }
                _ => {}
            }
            continue;
        }
        let next = html[i..].find('<').map_or(b.len(), |j| i + j);
        if skip_until.is_none() {
            let decoded = decode_entities(&html[i..next]);
            let mut first = true;
            let starts_ws = decoded.starts_with(char::is_whitespace);
            for w in decoded.split_whitespace() {
                if starts_ws || !first {
                    out.space();
                }
                out.push_word(w);
                first = false;
            }
            if decoded.ends_with(char::is_whitespace) && !decoded.trim().is_empty() {
                out.space();
            }
        }
        i = next;
    }
    out.finish()
}

#[derive(Default)]
struct Text {
    prefix_quotes: bool,
    lines: Vec<String>,
    cur: String,
    pending_space: bool,
    depth: usize,
}

impl Text {
    fn push_word(&mut self, w: &str) {
        if self.cur.is_empty() {
            if self.prefix_quotes {
                self.cur.push_str(&"> ".repeat(self.depth));
            }
        } else if self.pending_space {
            self.cur.push(' ');
        }
        self.pending_space = false;
        self.cur.push_str(w);
    }
    fn space(&mut self) {
        self.pending_space = true;
    }
    fn newline(&mut self) {
        let line = std::mem::take(&mut self.cur);
        self.lines.push(line);
        self.pending_space = false;
    }
    fn block(&mut self) {
        if !self.cur.is_empty() {
            self.newline();
        }
        if self.lines.last().is_some_and(|l| !l.is_empty()) {
            self.lines.push(String::new());
        }
    }
    fn finish(mut self) -> String {
        if !self.cur.is_empty() {
            self.newline();
        }
        let mut s = String::new();
        let mut blank_run = 0;
        for l in &self.lines {
            let l = l.trim_end();
            if l.is_empty() {
                blank_run += 1;
                if blank_run > 1 {
                    continue;
                }
            } else {
                blank_run = 0;
            }
            s.push_str(l);
            s.push('\n');
        }
        s.trim().to_string()
    }
}

/// Decode HTML character references: every HTML5 named reference
/// (`&eacute;`, `&hellip;`, `&NotEqualTilde;`), decimal and hexadecimal ones
/// (`&#233;`, `&#xE9;`). An unknown name or an invalid code point is kept
/// verbatim.
pub fn decode_entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    html_escape::decode_html_entities(s)
}

/// The text of the first `<name>` element of `html` (`"title"`, `"h1"`),
/// tags inside it dropped, entities decoded, whitespace collapsed; `None`
/// when there is none or it is blank.
pub fn element_text(html: &str, name: &str) -> Option<String> {
    let open = find_ascii_ci(html, &format!("<{name}"))?;
    let after = &html[open + 1 + name.len()..];
    // `<title>` or `<title lang=..>`, not `<titles>`
    if !after.starts_with(|c: char| c == '>' || c.is_ascii_whitespace()) {
        return None;
    }
    let start = after.find('>')? + 1;
    let inner = &after[start..];
    let end = find_ascii_ci(inner, &format!("</{name}")).unwrap_or(inner.len());
    let text = html_to_text(&inner[..end], Quotes::Plain);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

fn find_ascii_ci(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.is_empty() || h.len() < n.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts() {
        let t = html_to_text(
            "<html><head><title>x</title><style>p{}</style></head><body><p>Hello&nbsp;<b>world</b> &amp; co.</p>\
             <ul><li>one</li><li>two</li></ul><script>var a=1;</script>Line<br>two &#233;&#xe9;&bogus;</body></html>",
            Quotes::Prefixed,
        );
        assert_eq!(t, "Hello world & co.\n\n- one\n\n- two\n\nLine\ntwo éé&bogus;");
    }

    #[test]
    fn blockquote_becomes_gt() {
        let t = html_to_text("<div>Sure.</div><div>On Mon, A wrote:<blockquote>Can you come?</blockquote></div>", Quotes::Prefixed);
        assert_eq!(t, "Sure.\n\nOn Mon, A wrote:\n\n> Can you come?");
        let plain = html_to_text("<div>Sure.</div><blockquote>Can you come?</blockquote>", Quotes::Plain);
        assert_eq!(plain, "Sure.\n\nCan you come?");
    }

    #[test]
    fn junk_does_not_panic() {
        for s in ["<", "<<>>", "&", "&#", "&#x;", "&#99999999999;", "<!--", "<script>", "a<b", "é<é>é&é;"] {
            let _ = html_to_text(s, Quotes::Plain);
            let _ = element_text(s, "title");
        }
    }

    #[test]
    fn entities_are_the_whole_html5_table() {
        assert_eq!(decode_entities("Caf&eacute; &hellip; &NotEqualTilde; &frac12; &#x1F600;"), "Café … ≂̸ ½ 😀");
        assert_eq!(decode_entities("a &bogus; b"), "a &bogus; b");
        assert_eq!(decode_entities("no refs"), "no refs");
    }

    #[test]
    fn titles() {
        let html = "<html><head><title>A &amp; B</title></head><body><h1>Head <b>line</b></h1></body></html>";
        assert_eq!(element_text(html, "title").as_deref(), Some("A & B"));
        assert_eq!(element_text(html, "h1").as_deref(), Some("Head line"));
        assert_eq!(element_text("<p>none</p>", "title"), None);
    }

    proptest::proptest! {
        #[test]
        fn any_text_converts_without_panic(s in "\\PC{0,120}") {
            let _ = html_to_text(&s, Quotes::Prefixed);
            let _ = decode_entities(&s);
        }
    }
}
