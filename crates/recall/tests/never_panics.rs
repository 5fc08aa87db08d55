//! Arbitrary text never panics any text-handling function of the crate, and
//! spans and chunks always fall on character boundaries.

use amem_recall::query::Query;
use amem_recall::{ItemKind, chunk, html_text, parse_item};
use proptest::prelude::*;

fn texty() -> impl Strategy<Value = String> {
    // Mix of ASCII punctuation, digits, month names, units and multi-byte characters.
    proptest::collection::vec(
        prop_oneof![
            "[a-zA-Z0-9 .,!?;:%°\"'()\\-\n]{0,12}",
            Just("°C".to_string()),
            Just(" March 1, 2019 ".to_string()),
            Just("1,500.25 million".to_string()),
            Just("İſé…—👍".to_string()),
            Just("<p>&amp;&#xE9;</p>".to_string()),
            Just("---\ntitle: x\n".to_string()),
            ".{0,6}",
        ],
        0..30,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn text_functions_never_panic(s in texty()) {
        for r in chunk::sentences(&s) {
            prop_assert!(s.is_char_boundary(r.start) && s.is_char_boundary(r.end) && r.start < r.end);
        }
        for r in chunk::chunks(&s) {
            prop_assert!(s.get(r.clone()).is_some());
            prop_assert!(r.len() <= chunk::MAX_CHUNK);
        }
        let q = Query::from_claim(&s);
        let span = q.best_span(&s);
        prop_assert!(span.slice(&s).is_some());
        let _ = q.fts_expression();
        let _ = html_text(&s);
        for kind in [ItemKind::Markdown, ItemKind::Text, ItemKind::Html] {
            let _ = parse_item(s.as_bytes(), kind);
        }
    }
}
