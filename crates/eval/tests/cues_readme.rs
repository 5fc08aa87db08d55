//! The benchmarks page's dev-set cue table is a measurement: recompute it from
//! `../shared/eval` and fail when the benchmarks page block differs.

use std::path::PathBuf;

#[test]
fn readme_cue_table_matches_the_dev_halves() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("..");
    let eval = root.join("..").join("shared").join("eval");
    if !eval.is_dir() {
        eprintln!("SKIPPED readme_cue_table_matches_the_dev_halves: ../shared is absent");
        return;
    }
    let scores = amem_eval::cues::evaluate_dir(&eval).expect("the eval corpora load");
    let table = amem_eval::cues::markdown_table(&scores);
    let readme = std::fs::read_to_string(root.join("docs").join("benchmarks.md")).expect("docs/benchmarks.md");
    let begin = "<!-- gate:cues:begin -->\n";
    let start = readme.find(begin).expect("benchmarks page has the gate:cues block") + begin.len();
    let end = readme[start..].find("<!-- gate:cues:end -->").expect("block end") + start;
    assert_eq!(&readme[start..end], table, "benchmarks page gate cue table drifted from the measurement; run scripts/bench-gate.sh");
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
    for (name, path) in amem_eval::cues::corpora(&eval).expect("corpora") {
        let recs = amem_eval::cues::load(&path).expect("load");
        for r in recs.iter().take(400) {
            let g = amem_gate::check(&r.text, &r.text);
            assert!(g.flags.is_empty(), "{name}: {:?}\n{}", r.text, g.to_text());
            assert!(matches!(g.verdict, amem_records::GateVerdict::Pass | amem_records::GateVerdict::Uncheckable), "{name}: {:?}", r.text);
        }
    }
}

/// "Deleting one cue from an otherwise identical memory raises exactly that
/// check", on real text: for the first records of every cue corpus that
/// carry cues, each cue deleted in turn.
#[test]
fn deleting_one_real_cue_raises_exactly_its_check() {
    use amem_gate::Check;
    use amem_records::CueClass;
    let eval = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("..").join("..").join("shared").join("eval");
    if !eval.is_dir() {
        eprintln!("SKIPPED deleting_one_real_cue_raises_exactly_its_check: ../shared is absent");
        return;
    }
    let limit: usize = std::env::var("AMEM_GATE_REAL_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(150);
    let (mut tried, mut uncheckable, mut failed) = (0usize, 0usize, Vec::new());
    for (name, path) in amem_eval::cues::corpora(&eval).expect("corpora") {
        let recs = amem_eval::cues::load(&path).expect("load");
        for r in recs.iter().filter(|r| !amem_text::cues::detect_cues(&r.text).is_empty()).take(limit) {
            let cues = amem_text::cues::detect_cues(&r.text);
            for c in &cues {
                // only a cue that is the sole one of its class in the text
                if cues.iter().filter(|d| d.class == c.class).count() != 1 {
                    continue;
                }
                let want = match c.class {
                    CueClass::Negation => Check::Polarity,
                    CueClass::Hedge => Check::Hedge,
                    CueClass::Attribution => Check::Attribution,
                    CueClass::Condition => Check::Condition,
                    CueClass::Temporal => Check::Temporal,
                };
                let memory = format!("{}{}", &r.text[..c.span.start], &r.text[c.span.end..]);
                tried += 1;
                let report = amem_gate::check(&r.text, &memory);
                if report.verdict == amem_records::GateVerdict::Uncheckable {
                    // "Not really ." without "Not": nothing left to align
                    uncheckable += 1;
                    continue;
                }
                let got = report.checks();
                if got.len() != 1 || !got.contains(&want) {
                    failed.push(format!("{name}: deleting {:?} ({}) from {:?} raised {got:?}", c.text, c.rule, r.text));
                }
            }
        }
    }
    assert!(tried > 100, "too few cases: {tried}");
    assert!(uncheckable * 20 <= tried, "{uncheckable} of {tried} deletions left nothing to align");
    // Real text has sentence-splitting edge cases a deletion can shift
    // ("? '' I asked ." leaves "I asked" a sentence of its own; "Oct. 15th"):
    // on all dev records (AMEM_GATE_REAL_CASES=100000) 52 of 19,765
    // deletions are not exact, 48 of them a missed check (the cue sat in a
    // sentence no memory sentence aligned to) and 4 an extra one. Allow
    // 0.5%, and list them.
    assert!(failed.len() * 200 <= tried, "{} of {tried} deletions did not raise exactly their check:\n{}", failed.len(), failed.join("\n"));
}
