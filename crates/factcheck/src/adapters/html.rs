//! Plain text out of an HTML page: scripts, styles and comments dropped,
//! block elements turned into line breaks, entities decoded.

use regex::Regex;
use std::sync::OnceLock;

fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("invariant: literal regex"))
}

/// Decode the character references a page uses (`&amp;`, `&#39;`, `&#x2019;`, `&nbsp;` ...).
pub fn decode_entities(s: &str) -> String {
    static ENT: OnceLock<Regex> = OnceLock::new();
    re(&ENT, r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});")
        .replace_all(s, |c: &regex::Captures<'_>| {
            let e = &c[1];
            let ch = if let Some(hex) = e.strip_prefix("#x").or_else(|| e.strip_prefix("#X")) {
                u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
            } else if let Some(dec) = e.strip_prefix('#') {
                dec.parse().ok().and_then(char::from_u32)
            } else {
                match e {
                    "amp" => Some('&'),
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    "nbsp" => Some(' '),
                    "ndash" => Some('–'),
                    "mdash" => Some('—'),
                    "hellip" => Some('…'),
                    "rsquo" => Some('’'),
                    "lsquo" => Some('‘'),
                    "rdquo" => Some('”'),
                    "ldquo" => Some('“'),
                    _ => None,
                }
            };
            ch.map(String::from).unwrap_or_else(|| c[0].to_string())
        })
        .into_owned()
}

/// The `<title>` of a page.
pub fn title(html: &str) -> Option<String> {
    static T: OnceLock<Regex> = OnceLock::new();
    let c = re(&T, r"(?is)<title[^>]*>(.*?)</title>").captures(html)?;
    let t = super::squash(&decode_entities(&c[1]));
    (!t.is_empty()).then_some(t)
}

/// The visible text of a page (or an HTML fragment), one block per line.
pub fn to_text(html: &str) -> String {
    static DROP: OnceLock<Regex> = OnceLock::new();
    static BLOCK: OnceLock<Regex> = OnceLock::new();
    static TAG: OnceLock<Regex> = OnceLock::new();
    let s = re(&DROP, r"(?is)<!--.*?-->|<(script|style|noscript|template|head)\b[^>]*>.*?</(script|style|noscript|template|head)\s*>")
        .replace_all(html, " ");
    let s = re(&BLOCK, r"(?i)</?(p|div|br|li|ul|ol|h[1-6]|tr|table|section|article|header|footer|blockquote|pre|dd|dt)\b[^>]*>")
        .replace_all(&s, "\n");
    let s = re(&TAG, r"(?s)<[^>]*>").replace_all(&s, "");
    let s = decode_entities(&s);
    s.lines().map(super::squash).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_scripts_and_tags() {
        let html = "<html><head><title>A &amp; B</title><style>p{}</style></head><body><script>var x='<p>no</p>';</script>\
                    <h1>Head</h1><p>One &lt;two&gt; &#39;three&#x27;</p><!-- hidden --><p>Four<br>five</p></body></html>";
        assert_eq!(title(html).as_deref(), Some("A & B"));
        assert_eq!(to_text(html), "Head\nOne <two> 'three'\nFour\nfive");
    }

    #[test]
    fn unknown_entities_stay() {
        assert_eq!(decode_entities("a &bogus; b &#xD800; c"), "a &bogus; b &#xD800; c");
    }
}
