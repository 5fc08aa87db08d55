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
/// Newlines become spaces.
pub(crate) fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut at_start = true;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let c = if c == '\n' || c == '\r' { ' ' } else { c };
        if at_start {
            if c == ' ' || c == '\t' {
                // Leading blanks would make an indented code block or vanish.
                continue;
            }
            if matches!(c, '#' | '-' | '+' | '=') {
                out.push('\\');
            }
            // `1.` or `1)` at the start makes an ordered list.
            if c.is_ascii_digit() {
                let mut digits = String::new();
                digits.push(c);
                while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(d);
                    chars.next();
                }
                out.push_str(&digits);
                if let Some(&p) = chars.peek().filter(|p| matches!(p, '.' | ')')) {
                    out.push('\\');
                    out.push(p);
                    chars.next();
                }
                at_start = false;
                continue;
            }
            at_start = false;
        }
        push_escaped(&mut out, c);
    }
    out
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' => {
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
