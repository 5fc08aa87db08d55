//! The README `extract` section's figures are recomputed here from the
//! committed labels (no ../shared needed: the labels carry the text). When
//! the classifier changes, this fails and prints the block to paste.

#![allow(clippy::print_stderr)]

use amem_extract::eval::{BUNDLED_LABELS, BUNDLED_LABELS_NAME, parse_labels, score};

const BEGIN: &str = "<!-- extract:figures:begin -->\n";
const END: &str = "<!-- extract:figures:end -->";

#[test]
fn readme_extract_figures_match_the_labels() {
    let labels = parse_labels(BUNDLED_LABELS, BUNDLED_LABELS_NAME).expect("labels parse");
    assert!(labels.len() >= 300);
    let want = score(&labels).figures_markdown(BUNDLED_LABELS_NAME);
    let readme_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(readme_path).expect("README.md");
    let section = readme
        .split("<!-- section:extract:begin -->")
        .nth(1)
        .and_then(|r| r.split("<!-- section:extract:end -->").next())
        .expect("README has the extract section markers");
    let block = section.split(BEGIN).nth(1).and_then(|r| r.split(END).next()).unwrap_or("");
    if block != want {
        eprintln!("README extract figures differ from the measurement; the block should read:\n{BEGIN}{want}{END}");
    }
    assert_eq!(block, want);
}
