//! The shipped verifier: loaded from the binary, refused when a file does not match its
//! recorded checksum, deterministic, and the same whether a pair is scored alone or in a batch.

use amem_models::{ModelError, Passage, Verifier, VerifierFiles};

const WEIGHTS: &[u8] = include_bytes!("../weights/verifier.safetensors");
const TOKENIZER: &[u8] = include_bytes!("../weights/tokenizer.json");
const CONFIG: &[u8] = include_bytes!("../weights/config.json");
const CALIBRATION: &[u8] = include_bytes!("../weights/calibration.json");
const SUMS: &str = include_str!("../weights/SHA256SUMS");

fn files<'a>(weights: &'a [u8], sums: &'a str) -> VerifierFiles<'a> {
    VerifierFiles { weights, tokenizer: TOKENIZER, config: CONFIG, calibration: CALIBRATION, sha256sums: sums }
}

#[test]
fn shipped_verifier_loads_and_gives_probabilities() {
    let v = Verifier::shipped().expect("the shipped verifier loads");
    let probs = v.score(&[("Project Falcon. The team has 14 engineers.", "The Falcon team has 14 engineers.")]).unwrap();
    let p = probs[0];
    let sum = p.supported + p.contradicted + p.not_enough_info;
    assert!((sum - 1.0).abs() < 1e-4, "{p:?}");
    assert_eq!(Verifier::shipped_weights_sha256().len(), 64);
    let t = v.thresholds();
    for x in [t.supported, t.contradicted, t.unrelated] {
        assert!((0.5..=1.0).contains(&x), "{t:?}");
    }
}

#[test]
fn a_changed_weight_file_is_refused_with_its_name() {
    let mut changed = WEIGHTS.to_vec();
    let last = changed.len() - 1;
    changed[last] ^= 1;
    let err = Verifier::from_files(files(&changed, SUMS)).unwrap_err();
    match &err {
        ModelError::Checksum { file, expected, found } => {
            assert_eq!(file, "verifier.safetensors");
            assert_ne!(expected, found);
        }
        other => panic!("expected a checksum error, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains("verifier.safetensors") && msg.contains("refusing") && msg.contains("--no-models"), "{msg}");
}

#[test]
fn a_file_with_no_recorded_checksum_is_refused() {
    let sums: String = SUMS.lines().filter(|l| !l.ends_with("tokenizer.json")).map(|l| format!("{l}\n")).collect();
    let err = Verifier::from_files(files(WEIGHTS, &sums)).unwrap_err();
    assert!(matches!(&err, ModelError::Checksum { file, .. } if file == "tokenizer.json"), "{err:?}");
}

#[test]
fn the_same_files_load_the_same_model() {
    let v = Verifier::from_files(files(WEIGHTS, SUMS)).unwrap();
    let shipped = Verifier::shipped().unwrap();
    let pair = [("The plant produced 40 MW in 2019.", "The plant produced 80 MW in 2019.")];
    assert_eq!(v.score(&pair).unwrap(), shipped.score(&pair).unwrap());
    assert_eq!(v.weights_sha256(), Verifier::shipped_weights_sha256());
}

#[test]
fn batching_and_threads_do_not_change_a_score() {
    let v = Verifier::shipped().unwrap();
    let pairs = [
        ("Paris is the capital of France.", "Paris is in France."),
        (
            "The company reported revenue of 40 million dollars in 2019, up from 31 million the year before, driven by its cloud business.",
            "Revenue was 40 million dollars in 2019.",
        ),
        ("Cats sleep for most of the day.", "The launch moved to May."),
    ];
    // Each pair is computed at its own length, whatever else is in its batch or on which thread
    // it ran: the same bits.
    let together = v.score(&pairs).unwrap();
    for (i, pair) in pairs.iter().enumerate() {
        let alone = v.score(std::slice::from_ref(pair)).unwrap()[0];
        assert_eq!(alone, together[i], "pair {i}");
    }
}

#[test]
fn empty_input_and_huge_claims_are_handled() {
    let v = Verifier::shipped().unwrap();
    assert!(v.score(&[]).unwrap().is_empty());
    let huge = "word ".repeat(20_000);
    let p = v.score(&[("Short evidence.", huge.as_str()), (huge.as_str(), "A claim.")]).unwrap();
    assert_eq!(p.len(), 2);
    let title = Passage { evidence: "The team has 14 engineers.", title: Some("Project Falcon"), claim: "x" };
    assert_eq!(title.window(), "Project Falcon. The team has 14 engineers.");
}
