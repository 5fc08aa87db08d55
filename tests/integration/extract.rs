//! `amem eval claims`: the extractor's classifier against hand labels.

use crate::util::{TestDir, code, ok};

/// The extractor version the binary was built with (from the crate's source,
/// so this test does not need editing when the rules are bumped).
fn amem_extract_version() -> String {
    extractor_const("EXTRACTOR")
}

fn extractor_const(name: &str) -> String {
    let src = include_str!("../../crates/extract/src/lib.rs");
    let line = src.lines().find(|l| l.starts_with(&format!("pub const {name}: &str = "))).expect("extractor const");
    line.split('"').nth(1).expect("quoted version").to_string()
}

#[test]
fn eval_claims_on_the_committed_labels_json() {
    let t = TestDir::new();
    // The check-worthiness model reads beside the rules by default; --no-models is the rules alone.
    let with = ok(t.amem().args(["eval", "claims", "--format", "json"]));
    let with: serde_json::Value = serde_json::from_str(with.trim()).expect("one JSON object");
    assert_eq!(with["score"]["extractor"], extractor_const("EXTRACTOR_WITH_MODEL"));
    let out = ok(t.amem().args(["--no-models", "eval", "claims", "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["labels"], "crates/extract/eval/labels.jsonl");
    let s = &v["score"];
    assert!(s["n"].as_u64().unwrap() >= 300);
    assert_eq!(s["extractor"], amem_extract_version());
    let (tp, fp, fn_) =
        (s["true_positives"].as_f64().unwrap(), s["false_positives"].as_f64().unwrap(), s["false_negatives"].as_f64().unwrap());
    assert!((s["precision"].as_f64().unwrap() - tp / (tp + fp)).abs() < 1e-9);
    assert!((s["recall"].as_f64().unwrap() - tp / (tp + fn_)).abs() < 1e-9);
    // misses are listed only on request
    assert_eq!(s["misses"].as_array().map(Vec::len), Some(0));
}

#[test]
fn eval_claims_text_on_a_labels_file_lists_misses() {
    let t = TestDir::new();
    let labels = t.write(
        "labels.jsonl",
        concat!(
            "{\"source\":\"x#1\",\"text\":\"Prices fell 3% because storage was full.\",\"audited\":true,\"kind\":\"causal\"}\n",
            "{\"source\":\"x#2\",\"text\":\"Please send me the file.\",\"audited\":false,\"kind\":\"logistics\"}\n",
            "{\"source\":\"x#3\",\"text\":\"Hey Eva,\",\"audited\":true,\"kind\":\"fact\"}\n",
        ),
    );
    let out = ok(t.amem().args(["eval", "claims", "--misses", "--labels"]).arg(&labels));
    assert!(out.contains("| precision, audited claim | 1.000 (1 of 1) |"), "{out}");
    assert!(out.contains("| recall, audited claim | 0.500 (1 of 2) |"), "{out}");
    assert!(out.contains("fact → greeting\tx#3\tHey Eva,"), "{out}");
}

#[test]
fn eval_claims_bad_labels_name_file_and_line() {
    let t = TestDir::new();
    let labels = t.write("bad.jsonl", "{\"source\":\"x#1\",\"text\":\"a\",\"audited\":true,\"kind\":\"fact\"}\nnot json\n");
    let (_, err) = code(t.amem().args(["eval", "claims", "--labels"]).arg(&labels), 1);
    assert!(err.contains("bad.jsonl:2:"), "{err}");
    let (_, err) = code(t.amem().args(["eval", "claims", "--labels", "missing.jsonl"]), 1);
    assert!(err.contains("missing.jsonl"), "{err}");
}
