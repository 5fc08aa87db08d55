//! Putting user text (claims, quotes, names, paths) into markdown safely.
//!
//! User text is data, never markup: a claim containing `*`, `<script>`,
//! `[x](y)`, a leading `#` or `1.` must render as those characters on
//! GitHub and read the same in a pager. CommonMark lets any ASCII
//! punctuation be backslash-escaped, so we escape the characters that start
//! inline markup everywhere, and the block-starting ones only where they
//! would start a block (line start). Control and bidirectional-override
//! characters are shown as `\u{..}` so they can neither break the layout nor
//! reorder what the reader sees (the "Trojan Source" trick, CVE-2021-42574).

/// Escape text for an inline position (a list item, a heading, a cell).
/// Newlines become spaces; leading blanks are dropped (they would make an
/// indented code block or vanish).
pub(crate) fn inline(s: &str) -> String {
    let flat: String = s.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
    let text = flat.trim_start_matches([' ', '\t']);
    let mark = block_marker(text);
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        if Some(i) == mark && !needs_escape(c) {
            out.push('\\');
        }
        push_escaped(&mut out, c);
    }
    out
}

/// Where, if anywhere, `text` would start a block when it begins a line:
/// the byte index of the character to escape. CommonMark: an ATX heading is
/// 1 to 6 `#` then a blank or the end; a bullet is `-`, `+` or `*` then a
/// blank or the end; an ordered item is 1 to 9 digits, then `.` or `)`, then
/// a blank or the end; a line of only `-` or `=` (and blanks) is a thematic
/// break or a setext underline. Anything else (`2.3 million`, `+1555...`,
/// `#hashtag`) is left alone so it reads cleanly in a pager.
fn block_marker(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let blank_or_end = |i: usize| b.get(i).is_none_or(|c| *c == b' ' || *c == b'\t');
    let first = *b.first()?;
    match first {
        b'#' => {
            let n = b.iter().take_while(|c| **c == b'#').count();
            (n <= 6 && blank_or_end(n)).then_some(0)
        }
        b'-' | b'+' | b'*' if blank_or_end(1) => Some(0),
        b'-' | b'=' if b.iter().all(|c| *c == first || *c == b' ' || *c == b'\t') => Some(0),
        b'0'..=b'9' => {
            let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
            (n <= 9 && matches!(b.get(n), Some(b'.' | b')')) && blank_or_end(n + 1)).then_some(n)
        }
        _ => None,
    }
}

fn needs_escape(c: char) -> bool {
    matches!(c, '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        c if needs_escape(c) => {
            out.push('\\');
            out.push(c);
        }
        c if is_hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// Characters that would break the layout or reorder the displayed text.
fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\t') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// A blockquote: every line of `s`, escaped, prefixed with `indent> `.
/// Empty lines stay inside the quote.
pub(crate) fn blockquote(s: &str, indent: &str) -> String {
    let mut out = String::new();
    for line in s.split('\n') {
        let e = inline(line.trim_end_matches('\r'));
        out.push_str(indent);
        if e.is_empty() {
            out.push_str(">\n");
        } else {
            out.push_str("> ");
            out.push_str(&e);
            out.push('\n');
        }
    }
    out
}

/// A code span holding `s` literally: the fence is one backtick longer than
/// the longest backtick run inside, padded when `s` starts or ends with one.
/// Newlines become spaces; hidden characters are shown as `\u{..}`.
pub(crate) fn code(s: &str) -> String {
    let mut clean = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\r' => clean.push(' '),
            c if is_hidden(c) => clean.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => clean.push(c),
        }
    }
    let mut longest = 0;
    let mut run = 0;
    for c in clean.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = if clean.starts_with('`') || clean.ends_with('`') || clean.is_empty() { " " } else { "" };
    format!("{fence}{pad}{clean}{pad}{fence}")
}

/// A link target: an autolink `<url>` when the URL is plain (http(s), no
/// blanks or angle brackets), else the URL as a code span.
pub(crate) fn url(u: &str) -> String {
    let plain = (u.starts_with("https://") || u.starts_with("http://"))
        && !u.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '`' | '"') || is_hidden(c));
    if plain { format!("<{u}>") } else { code(u) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_markup_is_neutralised() {
        assert_eq!(inline("a *b* _c_ [x](y) <b>"), r"a \*b\* \_c\_ \[x\](y) \<b\>");
        assert_eq!(inline("R&D | `x` ~~y~~"), r"R\&D \| \`x\` \~\~y\~\~");
        assert_eq!(inline(r"C:\path"), r"C:\\path");
    }

    #[test]
    fn block_starts_are_escaped_only_at_line_start() {
        assert_eq!(inline("# not a heading"), r"\# not a heading");
        assert_eq!(inline("- not a list"), r"\- not a list");
        assert_eq!(inline("2. not a list, 2.3 million"), r"2\. not a list, 2.3 million");
        assert_eq!(inline("1986) x"), r"1986\) x");
        assert_eq!(inline("28.4"), "28.4");
        assert_eq!(inline("2.3 million"), "2.3 million");
        assert_eq!(inline("1."), r"1\.");
        assert_eq!(inline("+15555550101"), "+15555550101");
        assert_eq!(inline("+ item"), r"\+ item");
        assert_eq!(inline("#hashtag"), "#hashtag");
        assert_eq!(inline("###### six"), r"\###### six");
        assert_eq!(inline("---"), r"\---");
        assert_eq!(inline("- - -"), r"\- - -");
        assert_eq!(inline("==="), r"\===");
        assert_eq!(inline("-5 degrees"), "-5 degrees");
        assert_eq!(inline("* star"), r"\* star");
        assert_eq!(inline("Revenue rose 2.3% - #1"), "Revenue rose 2.3% - #1");
        assert_eq!(inline("   indented"), "indented");
        assert_eq!(inline("> not a quote"), r"\> not a quote");
    }

    #[test]
    fn hidden_characters_are_shown() {
        assert_eq!(inline("a\u{202e}b\u{7}c"), r"a\u{202e}b\u{7}c");
        assert_eq!(inline("two\nlines"), "two lines");
    }

    #[test]
    fn blockquote_keeps_lines() {
        assert_eq!(blockquote("one\n\n# two", "  "), "  > one\n  >\n  > \\# two\n");
    }

    #[test]
    fn code_spans_survive_backticks() {
        assert_eq!(code("plain"), "`plain`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code("<m@x>"), "`<m@x>`");
    }

    #[test]
    fn urls() {
        assert_eq!(url("https://example.org/a?b=1"), "<https://example.org/a?b=1>");
        assert_eq!(url("https://example.org/a b"), "`https://example.org/a b`");
        assert_eq!(url("javascript:alert(1)"), "`javascript:alert(1)`");
    }
}
