//! The research loop on real Enron mail: build a pool with the rules
//! extractor, draw a blind session, fill labels deterministically, score,
//! and check the figures against a computation done here by hand.

use crate::util::*;
use std::collections::HashMap;

fn read_csv(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r.records().map(|rec| rec.unwrap().iter().map(str::to_string).collect()).collect();
    (header, rows)
}

#[test]
fn pool_loop_on_enron_samples() {
    let Some(shared) = shared("pool_loop_on_enron_samples") else { return };
    let t = TestDir::new();
    let pool = t.path().join("pool");
    let maildir = shared.join("corpora/enron/maildir");
    ok(t.amem()
        .args(["pool", "build", "--extractor", "rules", "--out"])
        .arg(&pool)
        .arg("--source")
        .arg(format!("enron:{}", maildir.display())));
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(pool.join("manifest.json")).unwrap()).unwrap();
    assert!(manifest["sources_selected"].as_u64().unwrap() > 10, "{manifest}");
    assert!(manifest["messages_read"].as_u64().unwrap() > manifest["sources_selected"].as_u64().unwrap());
    let by_verdict = &manifest["by_verdict"];
    let flagged_n = by_verdict["REWRITE"].as_u64().unwrap_or(0) + by_verdict["REJECT"].as_u64().unwrap_or(0);
    let passed_n = by_verdict["PASS"].as_u64().unwrap_or(0) + by_verdict["PASS_WITH_FLAGS"].as_u64().unwrap_or(0);
    assert!(flagged_n >= 12 && passed_n >= 12, "{manifest}");

    ok(t.amem().args(["pool", "session", "--per-stratum", "12", "--seed", "2024", "--pool"]).arg(&pool));
    let (header, rows) = read_csv(&pool.join("session.csv"));
    assert_eq!(header, ["id", "source", "memory", "label", "mechanism"]);
    assert_eq!(rows.len(), 24);
    // No column but the texts carries anything, and no cell is a stratum or verdict
    // (the mail itself may use such words, so whole cells are compared).
    for r in &rows {
        assert!(r[3].is_empty() && r[4].is_empty(), "label and mechanism start empty");
        assert_eq!(r[0].len(), 12, "the id is an opaque digest");
        for leak in ["flagged", "passed", "PASS", "REWRITE", "REJECT", "PASS_WITH_FLAGS", "UNCHECKABLE"] {
            assert!(r.iter().all(|cell| cell != leak), "session.csv leaks {leak}");
        }
    }
    let (_, key) = read_csv(&pool.join("key.csv"));
    let stratum: HashMap<String, String> = key.iter().map(|k| (k[0].clone(), k[1].clone())).collect();

    // Deterministic labels: in the flagged stratum every 4th row (by session
    // order) is ok and the rest bad; in the passed stratum every 3rd row is
    // bad; row 0 of the session is ambiguous whatever its stratum.
    let mut labelled = csv::Writer::from_path(t.path().join("labelled.csv")).unwrap();
    labelled.write_record(["id", "source", "memory", "label", "mechanism"]).unwrap();
    let (mut fb, mut fo, mut pb, mut po) = (0u64, 0u64, 0u64, 0u64);
    let (mut fi, mut pi) = (0, 0);
    for (i, r) in rows.iter().enumerate() {
        let s = stratum[&r[0]].as_str();
        let label = if i == 0 {
            "ambiguous"
        } else if s == "flagged" {
            fi += 1;
            if fi % 4 == 0 { "ok" } else { "bad" }
        } else {
            pi += 1;
            if pi % 3 == 0 { "bad" } else { "ok" }
        };
        match (s, label) {
            ("flagged", "bad") => fb += 1,
            ("flagged", "ok") => fo += 1,
            ("passed", "bad") => pb += 1,
            ("passed", "ok") => po += 1,
            _ => {}
        }
        let mech = if label == "bad" { if s == "flagged" { "stance_loss" } else { "inferred" } } else { "" };
        labelled.write_record([&r[0], &r[1], &r[2], label, mech]).unwrap();
    }
    labelled.flush().unwrap();

    let out = ok(t
        .amem()
        .args(["pool", "score", "--json", "--session"])
        .arg(t.path().join("labelled.csv"))
        .arg("--key")
        .arg(pool.join("key.csv")));
    let s: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    // By hand: precision = bad / (bad + ok) in the flagged stratum.
    assert_eq!(s["precision"]["numerator"], fb);
    assert_eq!(s["precision"]["denominator"], fb + fo);
    let p = fb as f64 / (fb + fo) as f64;
    assert!((s["precision"]["value"].as_f64().unwrap() - p).abs() < 1e-12);
    // By hand: IPW recall = (fb / pi_f) / (fb / pi_f + pb / pi_p), pi = 12 / N per stratum.
    let (pf, pp) = (12.0 / flagged_n as f64, 12.0 / passed_n as f64);
    let recall = (fb as f64 / pf) / (fb as f64 / pf + pb as f64 / pp);
    assert!((s["recall"].as_f64().unwrap() - recall).abs() < 1e-9, "{s}");
    let (lo, hi) = (s["recall_interval"][0].as_f64().unwrap(), s["recall_interval"][1].as_f64().unwrap());
    assert!(lo <= recall && recall <= hi);
    // The ambiguous row is reported apart and counted in neither figure.
    let amb: u64 = s["counts"].as_object().unwrap().values().filter_map(|m| m["ambiguous"].as_u64()).sum();
    assert_eq!(amb, 1);
    assert_eq!(fb + fo + pb + po + 1, 24);

    // A second pass that agrees everywhere but one row: kappa below 1, direction named.
    let (_, lrows) = read_csv(&t.path().join("labelled.csv"));
    let mut second = csv::Writer::from_path(t.path().join("second.csv")).unwrap();
    second.write_record(["id", "source", "memory", "label", "mechanism"]).unwrap();
    let mut flipped = false;
    for r in &lrows {
        let mut label = r[3].clone();
        if !flipped && label == "bad" {
            label = "ok".into();
            flipped = true;
        }
        second.write_record([&r[0], &r[1], &r[2], &label, ""]).unwrap();
    }
    second.flush().unwrap();
    let out = ok(t
        .amem()
        .args(["pool", "score", "--json", "--session"])
        .arg(t.path().join("labelled.csv"))
        .arg("--key")
        .arg(pool.join("key.csv"))
        .arg("--second-pass")
        .arg(t.path().join("second.csv")));
    let s: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(s["agreement"]["bad_then_not"], 1);
    assert_eq!(s["agreement"]["not_then_bad"], 0);
    assert!(s["agreement"]["kappa_flag"].as_f64().unwrap() < 1.0);

    // Compare the pool with itself: identical mechanism counts, p = 1.
    std::fs::copy(pool.join("key.csv"), t.path().join("key.csv")).unwrap();
    let out = ok(t.amem().args(["pool", "compare", "--json"]).arg(t.path().join("labelled.csv")).arg(t.path().join("labelled.csv")));
    let c: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!((c["fisher_p_two_sided"].as_f64().unwrap() - 1.0).abs() < 1e-9, "{c}");
}

#[test]
fn bench_prints_three_figures_together() {
    let t = TestDir::new();
    let s = t.write("s.jsonl", "{\"source_id\":\"a\",\"source\":\"Reportedly the plant closed in May.\"}\n{\"source_id\":\"b\",\"source\":\"Sales rose 5% in 2001.\"}\n");
    let w = t.write("w.jsonl", "{\"source_id\":\"a\",\"write_id\":\"1\",\"memory\":\"The plant closed in May.\"}\n");
    let out = ok(t.amem().arg("bench").arg("--sources").arg(&s).arg("--writes").arg(&w).args(["--stimulus-set", "demo"]));
    assert!(out.contains("stimulus set demo"), "{out}");
    for f in ["flag rate among checkable writes", "uncheckable share", "abstention share"] {
        assert!(out.contains(f), "{f} missing: {out}");
    }
    assert!(out.contains("1/2"), "abstention 1 of 2 sources shown as counts: {out}");
}
