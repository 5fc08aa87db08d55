//! The README's dev-set cue table is a measurement: recompute it from
//! `../shared/eval` and fail when the README block differs.

use std::path::PathBuf;

#[test]
fn readme_cue_table_matches_the_dev_halves() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("..");
    let eval = root.join("..").join("shared").join("eval");
    if !eval.is_dir() {
        eprintln!("SKIPPED readme_cue_table_matches_the_dev_halves: ../shared is absent");
        return;
    }
    let scores = amem_gate::eval::evaluate_dir(&eval).expect("the eval corpora load");
    let table = amem_gate::eval::markdown_table(&scores);
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let begin = "<!-- gate:cues:begin -->\n";
    let start = readme.find(begin).expect("README has the gate:cues block") + begin.len();
    let end = readme[start..].find("<!-- gate:cues:end -->").expect("block end") + start;
    assert_eq!(&readme[start..end], table, "README gate cue table drifted from the measurement; run scripts/bench-gate.sh");
}

/// "A memory identical to its source always passes", on real text: the
/// first 400 records of every cue corpus, gated against themselves.
#[test]
fn identical_real_texts_pass() {
    let eval = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("..").join("..").join("shared").join("eval");
    if !eval.is_dir() {
        eprintln!("SKIPPED identical_real_texts_pass: ../shared is absent");
        return;
    }
    for (name, path) in amem_gate::eval::corpora(&eval).expect("corpora") {
        let recs = amem_gate::eval::load(&path).expect("load");
        for r in recs.iter().take(400) {
            let g = amem_gate::check(&r.text, &r.text);
            assert!(g.flags.is_empty(), "{name}: {:?}\n{}", r.text, g.to_text());
            assert!(matches!(g.verdict, amem_model::GateVerdict::Pass | amem_model::GateVerdict::Uncheckable), "{name}: {:?}", r.text);
        }
    }
}
