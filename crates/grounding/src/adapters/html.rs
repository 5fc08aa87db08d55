//! Plain text out of a fetched page: the text layer's HTML to text
//! (`amem_text::html`), one block per line, whitespace squashed.

use amem_text::html::{self as text_html, Quotes};

/// Decode the character references of a page (every HTML5 name, decimal, hex).
pub fn decode_entities(s: &str) -> String {
    text_html::decode_entities(s).into_owned()
}

/// The `<title>` of a page.
pub fn title(html: &str) -> Option<String> {
    text_html::element_text(html, "title")
}

/// The visible text of a page (or an HTML fragment), one block per line.
pub fn to_text(html: &str) -> String {
    text_html::html_to_text(html, Quotes::Plain).lines().map(super::squash).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
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
