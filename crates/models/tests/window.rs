//! The window the model reads is cut the same way here as in the training script: both cut
//! the long passages of the shared eval sets (COVID-Fact, WiCE), and the texts must be equal.
//! Needs python3 and `../shared/eval`; says SKIPPED without them.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn windows_match_the_training_script() {
    let shared = root().join("../shared/eval");
    if !shared.is_dir() {
        println!("SKIPPED: ../shared/eval is absent");
        return;
    }
    if Command::new("python3").arg("--version").output().is_err() {
        println!("SKIPPED: python3 is absent");
        return;
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    for set in ["covid_fact", "wice", "healthver"] {
        let Ok(text) = std::fs::read_to_string(shared.join(set).join("pairs.jsonl")) else { continue };
        for line in text.lines().take(150) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            pairs.push((v["evidence"].as_str().unwrap().to_string(), v["claim"].as_str().unwrap().to_string()));
        }
    }
    assert!(pairs.len() > 100, "too few pairs read: {}", pairs.len());
    let script = "import sys, json\n\
                  sys.path.insert(0, sys.argv[1])\n\
                  import generate\n\
                  for line in sys.stdin:\n\
                  \x20   r = json.loads(line)\n\
                  \x20   print(json.dumps(generate.evidence_window(r['e'], r['c'])))\n";
    let mut child = Command::new("python3")
        .args(["-c", script, root().join("models/verifier").to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Written from another thread: the script answers line by line, and a full pipe either
    // way would otherwise stop both sides.
    let mut stdin = child.stdin.take().unwrap();
    let input: Vec<String> = pairs.iter().map(|(e, c)| serde_json::json!({"e": e, "c": c}).to_string()).collect();
    let writer = std::thread::spawn(move || {
        for line in input {
            writeln!(stdin, "{line}").unwrap();
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "the training script's window failed");
    let python: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(python.len(), pairs.len());
    let mut long = 0;
    for ((e, c), want) in pairs.iter().zip(&python) {
        let got = amem_models::evidence_window(e, c);
        assert_eq!(&got, want, "window of a passage of {} chars differs for claim {c:?}", e.len());
        long += usize::from(e.chars().count() > amem_models::WINDOW_CHARS);
    }
    assert!(long > 20, "too few long passages compared: {long}");
}
