//! The visible text of an HTML page: enough for saved articles and notes
//! exported as HTML. Not a full HTML parser: tags are dropped, `<script>`,
//! `<style>`, `<head>` and comments are skipped, block elements become line
//! breaks so sentences and paragraphs stay apart, and the common entities are
//! decoded.

/// Title and text of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    pub(crate) title: Option<String>,
    pub(crate) text: String,
}

/// Elements whose content is never shown.
const HIDDEN: &[&str] = &["script", "style", "head", "noscript", "template", "svg"];
/// Elements that start a new block (line break before and after).
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "table",
    "section",
    "article",
    "header",
    "footer",
    "blockquote",
    "pre",
    "hr",
    "dd",
    "dt",
    "figcaption",
    "main",
    "nav",
    "aside",
    "title",
];

pub(crate) fn extract(html: &str) -> Page {
    let title = element_text(html, "title").or_else(|| element_text(html, "h1"));
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        push_text(&mut out, &rest[..lt]);
        rest = &rest[lt..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |e| &after[e + 3..]);
            continue;
        }
        // `<` not followed by a tag name, `/` or `!` is text ("1 < 2").
        if !rest[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!') {
            out.push('<');
            rest = &rest[1..];
            continue;
        }
        let Some(gt) = rest.find('>') else {
            // An unclosed '<' is text.
            push_text(&mut out, rest);
            rest = "";
            break;
        };
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        let closing = tag.starts_with('/');
        let name: String =
            tag.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase();
        if !closing && HIDDEN.contains(&name.as_str()) {
            let close = format!("</{name}");
            rest = find_ci(rest, &close).map_or("", |e| {
                let after = &rest[e..];
                after.find('>').map_or("", |g| &after[g + 1..])
            });
            if name == "head" || name == "title" {
                out.push('\n');
            }
            continue;
        }
        if BLOCKS.contains(&name.as_str()) {
            out.push_str("\n\n");
        }
    }
    push_text(&mut out, rest);
    Page { title, text: tidy(&out) }
}

/// Decoded text of the first `<name>` element.
fn element_text(html: &str, name: &str) -> Option<String> {
    let open = find_ci(html, &format!("<{name}"))?;
    let after = &html[open..];
    let gt = after.find('>')?;
    let inner = &after[gt + 1..];
    let end = find_ci(inner, &format!("</{name}"))?;
    let mut t = String::new();
    // Strip nested tags inside the element.
    let mut s = &inner[..end];
    while let Some(lt) = s.find('<') {
        push_text(&mut t, &s[..lt]);
        s = s[lt..].find('>').map_or("", |g| &s[lt + g + 1..]);
    }
    push_text(&mut t, s);
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    (!t.is_empty()).then_some(t)
}

/// ASCII-case-insensitive find.
fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    let n = needle.len();
    let hb = hay.as_bytes();
    let nb = needle.as_bytes();
    (0..hb.len().saturating_sub(n - 1)).find(|&i| hb[i..i + n].eq_ignore_ascii_case(nb) && hay.is_char_boundary(i))
}

/// `s` with HTML entities decoded (notes write `Caf&#233;` and `&amp;` too).
pub(crate) fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    push_text(&mut out, s);
    out
}

/// Append text with entities decoded.
fn push_text(out: &mut String, s: &str) {
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let semi = rest.bytes().take(12).position(|b| b == b';');
        let decoded = semi.and_then(|e| decode_entity(&rest[1..e]).map(|c| (c, e)));
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
}

fn decode_entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code);
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "ndash" => '–',
        "mdash" => '—',
        "hellip" => '…',
        "deg" => '°',
        "rsquo" => '’',
        "lsquo" => '‘',
        "rdquo" => '”',
        "ldquo" => '“',
        _ => return None,
    })
}

/// Collapse runs of spaces inside lines and keep at most one blank line.
fn tidy(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for line in s.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(&words.join(" "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_text_and_title() {
        let html = "<!DOCTYPE html><html><head><title>Sea &amp; ice</title><style>p{}</style></head>\
            <body><h1>Heading</h1><!-- hidden --><p>The sea rose   3&nbsp;mm.</p><script>var x = '<p>';</script>\
            <P>Second &#233;t&#xE9; para &bogus; 1 < 2.</P></body></html>";
        let page = extract(html);
        assert_eq!(page.title.as_deref(), Some("Sea & ice"));
        assert_eq!(page.text, "Heading\n\nThe sea rose 3 mm.\n\nSecond été para &bogus; 1 < 2.");
    }

    #[test]
    fn h1_title_fallback_and_unclosed() {
        let page = extract("<h1>Only <b>bold</b></h1> text <unclosed");
        assert_eq!(page.title.as_deref(), Some("Only bold"));
        assert!(page.text.contains("text <unclosed"));
        assert_eq!(extract("").text, "");
    }
}
