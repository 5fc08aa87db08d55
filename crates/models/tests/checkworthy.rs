//! The shipped check-worthiness model against the training script: the
//! probabilities the export recorded for sentences written here
//! (`models/checkworthy/agreement.jsonl`) are the ones the Rust model computes,
//! so its features (tokens, bigram buckets, the rules' kind, length, digits)
//! are the training script's.

use amem_models::{CheckWorthiness, CheckWorthyFiles, ModelError, RULE_KINDS};

#[derive(serde::Deserialize)]
struct Recorded {
    text: String,
    kind: String,
    p: f32,
}

#[test]
fn the_rust_model_gives_the_training_scripts_probabilities() {
    let model = CheckWorthiness::shipped().expect("the shipped model loads");
    let recorded = include_str!("../../../models/checkworthy/agreement.jsonl");
    let mut n = 0;
    for line in recorded.lines().filter(|l| !l.trim().is_empty()) {
        let r: Recorded = serde_json::from_str(line).expect("an agreement line");
        assert!(RULE_KINDS.contains(&r.kind.as_str()), "{}", r.kind);
        let p = model.probability(&r.text, &r.kind).expect("scored");
        assert!((p - r.p).abs() < 1e-4, "{:?} ({}): Rust {p}, training script {}", r.text, r.kind, r.p);
        n += 1;
    }
    assert!(n >= 10, "{n} recorded sentences");
}

#[test]
fn the_model_separates_a_checkable_figure_from_a_thank_you() {
    let model = CheckWorthiness::shipped().expect("the shipped model loads");
    let figure = model.probability("Unemployment fell to 4.1 percent last year.", "quantity").unwrap();
    let thanks = model.probability("Thanks for sending the draft!", "greeting").unwrap();
    assert!(figure >= model.threshold() && thanks < model.threshold(), "figure {figure}, thanks {thanks}, threshold {}", model.threshold());
}

#[test]
fn altered_weights_are_refused() {
    let weights = include_bytes!("../weights/checkworthy.safetensors");
    let mut altered = weights.to_vec();
    let last = altered.len() - 1;
    altered[last] ^= 1;
    let files = CheckWorthyFiles {
        weights: &altered,
        calibration: include_bytes!("../weights/checkworthy.json"),
        tokenizer: include_bytes!("../weights/tokenizer.json"),
        sha256sums: include_str!("../weights/SHA256SUMS"),
    };
    match CheckWorthiness::from_files(files) {
        Err(ModelError::Checksum { file, .. }) => assert_eq!(file, "checkworthy.safetensors"),
        other => panic!("altered weights were not refused: {other:?}"),
    }
}
