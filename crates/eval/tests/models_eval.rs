//! The learned verifier's recorded figures are the figures of the shipped weights: this test
//! recomputes FEVER-Symmetric's held-out part (rules, model, combined, each with its claim-only
//! control) and compares them with `crates/models/weights/eval.json`, which
//! `scripts/eval-models.py` writes with the weights' sha256. New weights fail here until the
//! eval is rerun and recorded. Needs `../shared/eval`; says SKIPPED without it.

use amem_eval::verify::{Method, heldout_part, load_pairs, score_method};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn model_figures_match_the_recorded_eval() {
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("crates/models/weights/eval.json")).unwrap()).unwrap();
    let model = amem_models::Verifier::shipped().unwrap();
    assert_eq!(
        recorded["weights_sha256"].as_str().unwrap(),
        amem_models::Verifier::shipped_weights_sha256(),
        "eval.json was recorded for other weights: rerun python3 scripts/eval-models.py"
    );
    let path = root().join("../shared/eval/fever_symmetric/pairs.jsonl");
    if !path.is_file() {
        println!("SKIPPED: ../shared/eval/fever_symmetric is absent");
        return;
    }
    let pairs = heldout_part("fever_symmetric", &load_pairs(&path).unwrap());
    assert!(pairs.len() > 100, "{}", pairs.len());
    for method in [Method::Rules, Method::Model, Method::Combined] {
        let s = score_method("fever_symmetric", &pairs, method, Some(model));
        let want = &recorded["sets"]["fever_symmetric"][method.as_str()];
        let close = |got: f64, key: &str| {
            let w = want[key].as_f64().unwrap_or_else(|| panic!("{key} missing for {}", method.as_str()));
            assert!((got - w).abs() < 1e-3, "{} {key}: recomputed {got:.4}, recorded {w:.4}", method.as_str());
        };
        assert_eq!(want["pairs"].as_u64().unwrap() as usize, s.signal.pairs());
        close(s.signal.macro_f1(), "macro_f1");
        close(s.shuffled.macro_f1(), "claim_only_macro_f1");
        close(s.shuffled.decided(), "shuffled_committed");
    }
}
