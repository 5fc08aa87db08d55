//! The benchmarks page `extract` section's figures are recomputed here from the
//! committed labels (no ../shared needed: the labels carry the text). When
//! the classifier changes, this fails and prints the block to paste;
//! `AMEM_UPDATE_README=1 cargo test -p amem-eval --test claims_readme`
//! rewrites the blocks instead.

#![allow(clippy::print_stderr)]

use amem_eval::claims::{BUNDLED_LABELS, BUNDLED_LABELS_NAME, FIRST_RUN, parse_labels, score, score_recorded};

fn readme_extract_section() -> String {
    let readme_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/benchmarks.md");
    let readme = std::fs::read_to_string(readme_path).expect("docs/benchmarks.md");
    readme
        .split("<!-- section:extract:begin -->")
        .nth(1)
        .and_then(|r| r.split("<!-- section:extract:end -->").next())
        .expect("benchmarks page has the extract section markers")
        .to_string()
}

/// The block between `<!-- extract:NAME:begin -->\n` and `<!-- extract:NAME:end -->`.
fn block<'a>(section: &'a str, name: &str) -> &'a str {
    let begin = format!("<!-- extract:{name}:begin -->\n");
    let end = format!("<!-- extract:{name}:end -->");
    section.split(begin.as_str()).nth(1).and_then(|r| r.split(end.as_str()).next()).unwrap_or("")
}

fn check(name: &str, want: &str) {
    let section = readme_extract_section();
    let got = block(&section, name);
    if got != want && std::env::var_os("AMEM_UPDATE_README").is_some() {
        // rewrite the block in place (the markers are unique in the benchmarks page)
        let readme_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/benchmarks.md");
        let readme = std::fs::read_to_string(readme_path).expect("docs/benchmarks.md");
        let begin = format!("<!-- extract:{name}:begin -->\n");
        let end = format!("<!-- extract:{name}:end -->");
        let (head, rest) = readme.split_once(begin.as_str()).expect("begin marker");
        let (_, tail) = rest.split_once(end.as_str()).expect("end marker");
        std::fs::write(readme_path, format!("{head}{begin}{want}{end}{tail}")).expect("benchmarks page written");
        eprintln!("benchmarks page extract block `{name}` rewritten");
        return;
    }
    if got != want {
        eprintln!(
            "benchmarks page extract block `{name}` differs from the measurement; it should read:\n<!-- extract:{name}:begin -->\n{want}<!-- extract:{name}:end -->"
        );
    }
    assert_eq!(got, want);
}

#[test]
fn readme_extract_figures_match_the_labels() {
    let labels = parse_labels(BUNDLED_LABELS, BUNDLED_LABELS_NAME).expect("labels parse");
    assert!(labels.len() >= 300);
    check("figures", &score(&labels).figures_markdown(BUNDLED_LABELS_NAME));
}

#[test]
fn readme_first_run_figures_match_the_recorded_predictions() {
    let labels = parse_labels(BUNDLED_LABELS, BUNDLED_LABELS_NAME).expect("labels parse");
    let first =
        score_recorded(&labels, FIRST_RUN, "crates/extract/eval/first_run.jsonl", "rules@1 (commit d734281)").expect("first run parses");
    check("first-run", &first.figures_markdown(BUNDLED_LABELS_NAME));
}

/// The audited-claim measure on both label sets, each whole and in its
/// tuning and checking halves, with the shuffled control. Needs the
/// ClaimBuster dev half in ../shared; prints SKIPPED without it.
/// The ClaimBuster dev half, read in place; `None` (after saying SKIPPED) when ../shared lacks it.
fn claimbuster_dev() -> Option<Vec<amem_eval::claims::Label>> {
    let cb_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../").to_string() + amem_eval::claims::CLAIMBUSTER_DEV;
    let labels = amem_eval::claims::load_labels(std::path::Path::new(&cb_path)).ok();
    if labels.is_none() {
        eprintln!("SKIPPED: {} not found", amem_eval::claims::CLAIMBUSTER_DEV);
    }
    labels
}

#[test]
fn readme_halves_block_matches_both_label_sets() {
    let Some(cb) = claimbuster_dev() else { return };
    let own = parse_labels(BUNDLED_LABELS, BUNDLED_LABELS_NAME).expect("labels parse");
    let table = amem_eval::claims::halves_markdown(&[("own labels", &own), ("ClaimBuster dev", &cb)]);
    check("halves", &table);
}

/// The check-worthiness model beside the rules on the ClaimBuster dev half,
/// by the part of it the model's training split it into, with the weights'
/// checksum: new weights change the block, so this fails until the figures
/// are recomputed. Needs ../shared; prints SKIPPED without it.
#[test]
fn readme_model_block_matches_the_shipped_weights() {
    let Some(cb) = claimbuster_dev() else { return };
    let model = amem_models::CheckWorthiness::shipped().expect("the shipped check-worthiness model loads");
    check("model", &amem_eval::claims::model_parts_markdown("ClaimBuster dev", &cb, model));
}
