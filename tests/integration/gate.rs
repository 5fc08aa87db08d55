//! `amem gate`, `amem inspect`, `amem drift`: the CLI contract of issue 2
//! (item 4), on the bundled example and small handmade pair files.

use crate::util::*;

#[test]
fn readme_example_prints_rewrite_with_the_dropped_attribution() {
    let t = TestDir::new();
    let root = repo_root();
    let out = ok(t
        .amem()
        .args(["gate", "--source"])
        .arg(root.join("examples/gate/source.txt"))
        .arg("--memory")
        .arg(root.join("examples/gate/memory.txt")));
    assert!(out.starts_with("verdict: REWRITE"), "{out}");
    assert!(out.contains("attribution") && out.contains("\"said\""), "{out}");
    assert!(out.contains("not checked (no detector): broadened, weakened"), "{out}");
}

#[test]
fn single_pair_json_has_the_contract_fields() {
    let t = TestDir::new();
    let s = t.write("s.txt", "The settlement was 1.2 million dollars.");
    let m = t.write("m.txt", "The settlement was 1.2 million euros.");
    let out = ok(t.amem().args(["gate", "--format", "json", "--source"]).arg(&s).arg("--memory").arg(&m));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1);
    let v: serde_json::Value = serde_json::from_str(lines[0]).expect("json");
    for k in ["id", "verdict", "flags", "alignment", "not_checked"] {
        assert!(v.get(k).is_some(), "missing {k}: {v}");
    }
    assert_eq!(v["verdict"], "REWRITE");
    let f = &v["flags"][0];
    assert_eq!(f["check"], "unit");
    for k in ["source_span", "memory_sentence", "cue", "rule", "source_sentence"] {
        assert!(f.get(k).is_some(), "flag lacks {k}: {f}");
    }
    assert_eq!(f["source_span"]["start"], 19);
    assert_eq!(v["not_checked"], serde_json::json!(["broadened", "weakened"]));
    assert!(v["alignment"][0]["score"].as_f64().is_some());
}

const PAIRS_JSONL: &str = r#"{"id":"a","source":"someone said Alice was promoted this morning","memory":"Alice was elevated to administrator status on August 3, 2026"}
{"id":"b","source":"Alice has admin. Not sure though.","memory":"Alice has admin."}
this line is not json
{"id":"c","source":"Alice can access the test server","memory":"Alice has server access"}
{"id":"d","source":"Revenue was 5 and costs were 3, so profit was 2.","memory":"Profit was 2."}
{"id":"e","source":"The quarterly numbers look strong.","memory":"Bob likes hiking."}
"#;

#[test]
fn pairs_jsonl_one_line_per_pair_bad_line_named_and_counted() {
    let t = TestDir::new();
    let p = t.write("pairs.jsonl", PAIRS_JSONL);
    let (out, err) = code(t.amem().args(["gate", "--format", "json", "--pairs"]).arg(&p), 0);
    let rows: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect("json line")).collect();
    let got: Vec<(String, String)> =
        rows.iter().map(|r| (r["id"].as_str().unwrap_or("").to_string(), r["verdict"].as_str().unwrap_or("").to_string())).collect();
    let want = [("a", "REWRITE"), ("b", "REWRITE"), ("c", "PASS"), ("d", "REJECT"), ("e", "UNCHECKABLE")];
    assert_eq!(got, want.map(|(a, b)| (a.to_string(), b.to_string())));
    assert!(err.contains("pairs.jsonl:3:"), "stderr names the malformed line: {err}");
    assert!(err.contains("5 pairs gated, 1 skipped"), "closing count: {err}");
    // --strict turns the skip into a failure
    code(t.amem().args(["gate", "--strict", "--format", "json", "--pairs"]).arg(&p), 1);
}

#[test]
fn pairs_csv_detected_by_extension_and_by_content() {
    let t = TestDir::new();
    let csv = "id,source,memory\nx,\"According to Reuters, the plant will close.\",The plant will close.\ny,\"The fine was $40,000.\",\"The fine was 40,000 dollars.\"\n";
    for name in ["pairs.csv", "pairs.txt"] {
        let p = t.write(name, csv);
        let out = ok(t.amem().args(["gate", "--format", "json", "--pairs"]).arg(&p));
        let rows: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect("json")).collect();
        assert_eq!(rows.len(), 2, "{name}");
        assert_eq!(rows[0]["verdict"], "REWRITE");
        assert_eq!(rows[0]["flags"][0]["check"], "attribution");
        assert_eq!(rows[1]["verdict"], "PASS");
    }
}

#[test]
fn pairs_csv_bad_record_named() {
    let t = TestDir::new();
    let p =
        t.write("pairs.csv", "id,source,memory\nx,Alice has admin.,Alice has admin.\ny,only two\nz,Bob runs payroll.,Bob runs payroll.\n");
    let (out, err) = code(t.amem().args(["gate", "--format", "json", "--pairs"]).arg(&p), 0);
    assert_eq!(out.lines().count(), 2);
    assert!(err.contains("pairs.csv:3:"), "{err}");
    assert!(err.contains("2 pairs gated, 1 skipped"), "{err}");
}

#[test]
fn csv_without_the_columns_is_an_error() {
    let t = TestDir::new();
    let p = t.write("pairs.csv", "a,b\n1,2\n");
    let (_, err) = code(t.amem().args(["gate", "--pairs"]).arg(&p), 1);
    assert!(err.contains("id, source, memory"), "{err}");
}

#[test]
fn inspect_prints_typed_changes() {
    let t = TestDir::new();
    let p = t.write("pairs.jsonl", PAIRS_JSONL);
    let out = ok(t.amem().args(["inspect", "--format", "json", "--pairs"]).arg(&p));
    let rows: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect("json")).collect();
    assert_eq!(rows[0]["changes"][0]["type"], "dropped_attribution");
    assert_eq!(rows[1]["changes"][0]["type"], "strengthened_certainty");
    assert_eq!(rows[2]["changes"], serde_json::json!([]));
    assert_eq!(rows[2]["not_checked"], serde_json::json!(["broadened", "weakened"]));
    assert_eq!(rows[3]["changes"][0]["type"], "dropped_inputs");
    let text = ok(t.amem().args(["inspect", "--pairs"]).arg(&p));
    assert!(text.contains("== a") && text.contains("dropped_attribution"), "{text}");
}

#[test]
fn drift_over_a_chain() {
    let t = TestDir::new();
    let chain = t.write(
        "chain.jsonl",
        "{\"text\": \"According to Reuters, the plant will probably close next year.\"}\n\"Reuters said the plant will probably close next year.\"\n{\"text\": \"The plant will probably close next year.\"}\nnot json\n\"The plant will close next year.\"\n",
    );
    let (out, err) = code(t.amem().args(["drift", "--format", "json", "--chain"]).arg(&chain), 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    assert_eq!(v["versions"], 4);
    assert_eq!(v["hops"].as_array().map(Vec::len), Some(3));
    let losses = v["losses"].as_array().expect("losses");
    let att = losses.iter().find(|l| l["type"] == "dropped_attribution").expect("attribution loss");
    assert_eq!(att["hop"], serde_json::json!([1, 2]));
    assert!(err.contains("chain.jsonl:4:"), "{err}");
    let text = ok(t.amem().args(["drift", "--chain"]).arg(&chain));
    assert!(text.contains("lost at hop v1 -> v2"), "{text}");
}

#[test]
fn drift_needs_two_versions() {
    let t = TestDir::new();
    let chain = t.write("chain.jsonl", "\"only one\"\n");
    code(t.amem().args(["drift", "--chain"]).arg(&chain), 1);
}

#[test]
fn gate_needs_inputs() {
    let t = TestDir::new();
    code(t.amem().args(["gate"]), 2);
    code(t.amem().args(["gate", "--source", "a.txt"]), 2);
}

#[test]
fn eval_cues_scores_a_small_corpus_as_json_lines() {
    let t = TestDir::new();
    // offsets are code points: "é" is one code point, two bytes
    t.write(
        "eval/sherlock_cdsco/sentences.jsonl",
        concat!(
            "{\"id\":\"1\",\"doc\":\"d\",\"text\":\"Café is not open .\",\"cues\":[{\"start\":8,\"end\":11,\"type\":\"negation\",\"text\":\"not\",\"fragments\":[[8,11]]}]}\n",
            "{\"id\":\"2\",\"doc\":\"d\",\"text\":\"He saw nobody .\",\"cues\":[]}\n",
            "{\"id\":\"3\",\"doc\":\"d\",\"text\":\"It is open .\",\"cues\":[]}\n",
        ),
    );
    let out = ok(t.amem().args(["eval", "cues", "--format", "json", "--corpus"]).arg(t.path().join("eval")));
    let rows: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect("json")).collect();
    assert_eq!(rows.len(), 1, "{out}");
    let r = &rows[0];
    assert_eq!((r["corpus"].as_str(), r["class"].as_str(), r["n"].as_u64()), (Some("sherlock_cdsco"), Some("negation"), Some(1)));
    // "not" found (recall 1); "nobody" detected but not annotated (precision 1/2)
    assert_eq!(r["recall"], 1.0);
    assert_eq!(r["precision"], 0.5);
    // one corpus folder works too, and text is a table
    let text = ok(t.amem().args(["eval", "cues", "--corpus"]).arg(t.path().join("eval/sherlock_cdsco")));
    assert!(text.contains("| sherlock_cdsco | negation | 0.500 | 1.000 | 0.667 | 1 |"), "{text}");
    // a folder without corpora is an error that says what was expected
    let (_, err) = code(t.amem().args(["eval", "cues", "--corpus"]).arg(t.path()), 1);
    assert!(err.contains("sentences.jsonl"), "{err}");
}

#[test]
fn bundled_examples_behave_as_documented() {
    let t = TestDir::new();
    let root = repo_root();
    let out = ok(t.amem().args(["gate", "--format", "json", "--pairs"]).arg(root.join("examples/gate/pairs.jsonl")));
    let verdicts: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json")["verdict"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(verdicts, ["REWRITE", "REWRITE", "REWRITE", "REWRITE", "PASS", "REJECT", "UNCHECKABLE"]);
    let text = ok(t.amem().args(["drift", "--chain"]).arg(root.join("examples/gate/chain.jsonl")));
    assert!(text.contains("dropped_attribution") && text.contains("lost at hop v1 -> v2"), "{text}");
    assert!(text.contains("strengthened_certainty") && text.contains("lost at hop v2 -> v3"), "{text}");
}
