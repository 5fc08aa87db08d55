//! HTML to plain text, for mail that has no text/plain part.
//!
//! Deliberately small: tags are dropped, block elements become line breaks,
//! `<li>` a `- ` bullet, `<script>`/`<style>`/`<head>` are skipped, character
//! references are decoded, runs of whitespace collapse as a browser would.
//! `<blockquote>` content is prefixed with `> ` per level, so the quote
//! splitter sees an HTML reply's quoted history (Gmail puts it in
//! `<blockquote class="gmail_quote">`) exactly as it sees a plain-text one.

/// Convert an HTML document or fragment to text.
pub fn html_to_text(html: &str) -> String {
    let mut out = Text::default();
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
                "script" | "style" | "head" | "title" if !closing && !tag.ends_with('/') => {
                    skip_until = Some(match name.as_str() {
                        "script" => "script",
                        "style" => "style",
                        "title" => "title",
                        _ => "head",
                    })
                }
                "br" => out.newline(),
                "p" | "div" | "tr" | "table" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "ul" | "ol" | "pre" | "hr" | "section"
                | "article" | "header" | "footer" => out.block(),
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
    lines: Vec<String>,
    cur: String,
    pending_space: bool,
    depth: usize,
}

impl Text {
    fn push_word(&mut self, w: &str) {
        if self.cur.is_empty() {
            self.cur.push_str(&"> ".repeat(self.depth));
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

/// Decode HTML character references (`&amp;`, `&#233;`, `&#xE9;` and the
/// named ones mail actually uses). Unknown names are kept verbatim.
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest[1..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '#')).map(|j| j + 1);
        let (name, len) = match end {
            Some(j) if rest[j..].starts_with(';') => (&rest[1..j], j + 1),
            Some(j) => (&rest[1..j], j),
            None => (&rest[1..], rest.len()),
        };
        let ch = if let Some(num) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
            u32::from_str_radix(num, 16).ok().and_then(char::from_u32).map(String::from)
        } else if let Some(num) = name.strip_prefix('#') {
            num.parse::<u32>().ok().and_then(char::from_u32).map(String::from)
        } else {
            named(name).map(String::from)
        };
        match ch {
            Some(c) if len > 1 => {
                out.push_str(&c);
                rest = &rest[len..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn named(name: &str) -> Option<&'static str> {
    Some(match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => "\u{a0}",
        "copy" => "©",
        "reg" => "®",
        "trade" => "™",
        "hellip" => "…",
        "mdash" => "—",
        "ndash" => "–",
        "lsquo" => "\u{2018}",
        "rsquo" => "\u{2019}",
        "ldquo" => "\u{201c}",
        "rdquo" => "\u{201d}",
        "euro" => "€",
        "pound" => "£",
        "eacute" => "é",
        "egrave" => "è",
        "agrave" => "à",
        "aacute" => "á",
        "uuml" => "ü",
        "ouml" => "ö",
        "auml" => "ä",
        "szlig" => "ß",
        "ccedil" => "ç",
        "bull" => "•",
        "middot" => "·",
        "deg" => "°",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts() {
        let t = html_to_text(
            "<html><head><title>x</title><style>p{}</style></head><body><p>Hello&nbsp;<b>world</b> &amp; co.</p>\
             <ul><li>one</li><li>two</li></ul><script>var a=1;</script>Line<br>two &#233;&#xe9;&bogus;</body></html>",
        );
        assert_eq!(t, "Hello world & co.\n\n- one\n\n- two\n\nLine\ntwo éé&bogus;");
    }

    #[test]
    fn blockquote_becomes_gt() {
        let t = html_to_text("<div>Sure.</div><div>On Mon, A wrote:<blockquote>Can you come?</blockquote></div>");
        assert_eq!(t, "Sure.\n\nOn Mon, A wrote:\n\n> Can you come?");
    }

    #[test]
    fn junk_does_not_panic() {
        for s in ["<", "<<>>", "&", "&#", "&#x;", "&#99999999999;", "<!--", "<script>", "a<b", "é<é>é&é;"] {
            let _ = html_to_text(s);
        }
    }
}
