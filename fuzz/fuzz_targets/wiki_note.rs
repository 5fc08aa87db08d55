//! Any bytes as a wiki note (markdown with YAML or key/value front matter,
//! Logseq properties) and as a plain text file: read, or skipped with the
//! reason, never a panic, and never more memory than the bytes warrant
//! (YAML aliases are not expanded: a few hundred bytes of nested aliases
//! once took `amem index` past 4 GiB).
#![no_main]

use amem_recall::{ItemKind, parse_item};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for kind in [ItemKind::Markdown, ItemKind::Text, ItemKind::Html] {
        if let Ok(item) = parse_item(data, kind) {
            // Entities decode to at most 4 bytes of UTF-8 each; a body past
            // that came from something expanded (an alias, a recursion).
            assert!(item.body.len() <= data.len() * 4 + 64, "a note's body grew past its bytes");
        }
    }
});
