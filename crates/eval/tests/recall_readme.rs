//! Recomputes the presence figures published in the benchmarks page's `recall`
//! section and fails when they differ: one test per evaluation set (they run
//! in parallel), plus one for the block's frame and its list of sets.
//! `AMEM_UPDATE_README=1 cargo test -p amem-eval --test recall_readme`
//! rewrites the block instead (then commit the benchmarks page).

use amem_eval::recall::{self as presence, PresenceReport};
use amem_recall::RecallMethod;
use std::path::PathBuf;

const BEGIN: &str = "<!-- recall:presence:begin -->\n";
const END: &str = "<!-- recall:presence:end -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("..")
}

fn eval_dir(test: &str) -> Option<PathBuf> {
    let eval = root().join("..").join("shared").join("eval");
    if eval.is_dir() {
        Some(eval)
    } else {
        eprintln!("SKIPPED {test}: ../shared is absent beside the checkout");
        None
    }
}

/// The benchmarks page text and the byte range of the block's body.
fn readme_block() -> (String, usize, usize) {
    let readme = std::fs::read_to_string(root().join("docs").join("benchmarks.md")).expect("docs/benchmarks.md");
    let start = readme.find(BEGIN).expect("benchmarks page has the recall:presence block") + BEGIN.len();
    let end = start + readme[start..].find(END).expect("benchmarks page closes the recall:presence block");
    (readme, start, end)
}

/// Every recall method, on the shipped static embedder.
const METHODS: [RecallMethod; 3] = [RecallMethod::Bm25, RecallMethod::Dense, RecallMethod::Hybrid];

fn measure(dir: &std::path::Path) -> Vec<PresenceReport> {
    let embedder = amem_models::StaticEmbedder::shipped().expect("the shipped embedder loads");
    presence::run(dir, presence::DEFAULT_KS, &METHODS, Some(embedder), &mut |_, _| {}).expect("presence run")
}

fn rows_of<'a>(block: &'a str, corpus: &str) -> Vec<&'a str> {
    let prefix = format!("| {corpus} |");
    block.lines().filter(|l| l.starts_with(&prefix)).collect()
}

/// The rows of one set in the benchmarks page equal a fresh measurement.
fn check_set(test: &str, corpus: &str) {
    if std::env::var_os("AMEM_UPDATE_README").is_some() {
        return; // `block_frame_and_sets` rewrites the whole block.
    }
    let Some(eval) = eval_dir(test) else { return };
    let dir = eval.join(corpus);
    if !dir.is_dir() {
        eprintln!("SKIPPED {test}: ../shared/eval/{corpus} is absent");
        return;
    }
    let fresh = presence::markdown_table(&measure(&dir));
    let (readme, start, end) = readme_block();
    assert_eq!(
        rows_of(&readme[start..end], corpus),
        rows_of(&fresh, corpus),
        "benchmarks page recall:presence rows for {corpus} differ from the measurement; rerun with AMEM_UPDATE_README=1 and commit"
    );
}

#[test]
fn block_frame_and_sets() {
    let Some(eval) = eval_dir("block_frame_and_sets") else { return };
    let sets = presence::corpora(&eval);
    assert!(sets.iter().any(|d| d.ends_with("climate_fever")), "climate_fever is among the measured sets");
    let (readme, start, end) = readme_block();
    if std::env::var_os("AMEM_UPDATE_README").is_some() {
        let reports: Vec<PresenceReport> = sets.iter().flat_map(|d| measure(d)).collect();
        let updated = format!("{}{}{}", &readme[..start], presence::markdown_table(&reports), &readme[end..]);
        std::fs::write(root().join("docs").join("benchmarks.md"), updated).expect("write docs/benchmarks.md");
        return;
    }
    let names: Vec<String> = sets.iter().map(|d| d.file_name().unwrap().to_string_lossy().into_owned()).collect();
    let block = &readme[start..end];
    let row_sets: Vec<&str> =
        block.lines().filter_map(|l| l.strip_prefix("| ")?.split(" |").next()).filter(|n| names.iter().any(|s| s == n)).collect();
    let mut listed: Vec<&str> = row_sets.clone();
    listed.dedup();
    assert_eq!(listed, names, "the benchmarks page block lists every readable set under ../shared/eval, in order");
    assert_eq!(row_sets.len(), names.len() * METHODS.len() * presence::DEFAULT_KS.len(), "one row per set, method and k");
    let frame: Vec<&str> = block.lines().filter(|l| !names.iter().any(|n| l.starts_with(&format!("| {n} |")))).collect();
    let empty = presence::markdown_table(&[]);
    assert_eq!(frame, empty.lines().collect::<Vec<_>>(), "the benchmarks page block's text around the rows is the instrument's own");
}

#[test]
fn climate_fever_rows() {
    check_set("climate_fever_rows", "climate_fever");
}

#[test]
fn covid_fact_rows() {
    check_set("covid_fact_rows", "covid_fact");
}

#[test]
fn fever_symmetric_rows() {
    check_set("fever_symmetric_rows", "fever_symmetric");
}

#[test]
fn healthver_rows() {
    check_set("healthver_rows", "healthver");
}

#[test]
fn wice_rows() {
    check_set("wice_rows", "wice");
}
