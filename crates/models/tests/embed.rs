//! The shipped static embedder against the training side: the vectors the export's
//! table gives sentences written here (`models/embed/agreement.jsonl`) are the ones the
//! Rust embedder computes, so its tokens and sums are the training script's.

use amem_models::{EmbedFiles, ModelError, StaticEmbedder, dot};

#[derive(serde::Deserialize)]
struct Recorded {
    text: String,
    vector: Vec<f32>,
}

#[test]
fn the_rust_embedder_gives_the_recorded_vectors() {
    let e = StaticEmbedder::shipped().expect("the shipped embedder loads");
    let recorded = include_str!("../../../models/embed/agreement.jsonl");
    let mut n = 0;
    for line in recorded.lines().filter(|l| !l.trim().is_empty()) {
        let r: Recorded = serde_json::from_str(line).expect("an agreement line");
        let v = e.embed(&r.text).expect("embedded");
        assert_eq!(v.len(), e.dim());
        let worst = v.iter().zip(&r.vector).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{:?}: largest difference {worst}", r.text);
        n += 1;
    }
    assert!(n >= 10, "{n} recorded sentences");
}

#[test]
fn a_paraphrase_is_nearer_than_an_unrelated_sentence_and_above_the_floor() {
    let e = StaticEmbedder::shipped().expect("the shipped embedder loads");
    let claim = e.embed("The ice sheet shrank").unwrap();
    let paraphrase = e.embed("The frozen mass of the glacier got smaller every year.").unwrap();
    let unrelated = e.embed("The project budget for the launch is two million dollars.").unwrap();
    let (near, far) = (dot(&claim, &paraphrase), dot(&claim, &unrelated));
    assert!(near > far && near >= e.floor() && far < e.floor(), "paraphrase {near}, unrelated {far}, floor {}", e.floor());
    // Nothing to read: the zero vector, never NaN.
    assert!(e.embed("").unwrap().iter().all(|&x| x == 0.0));
    assert!(e.embed("!!!").unwrap().iter().all(|x| x.is_finite()));
}

#[test]
fn a_huge_text_is_read_by_its_head() {
    let e = StaticEmbedder::shipped().expect("the shipped embedder loads");
    let head = "The pipeline was full and the market was calm. ".repeat(400);
    let huge = format!("{head}{}", "Volcanoes erupt lava. ".repeat(200_000));
    assert_eq!(e.embed(&huge).unwrap(), e.embed(amem_models_prefix(&huge)).unwrap());
}

/// The first `EMBED_BYTES` of `text`, cut at a character boundary (as the embedder cuts).
fn amem_models_prefix(text: &str) -> &str {
    let mut cut = text.len().min(amem_models::EMBED_BYTES);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

#[test]
fn altered_weights_are_refused() {
    let weights = include_bytes!("../weights/embed.safetensors");
    let mut altered = weights.to_vec();
    let last = altered.len() - 1;
    altered[last] ^= 1;
    let files = EmbedFiles {
        weights: &altered,
        config: include_bytes!("../weights/embed.json"),
        tokenizer: include_bytes!("../weights/tokenizer.json"),
        sha256sums: include_str!("../weights/SHA256SUMS"),
    };
    match StaticEmbedder::from_files(files) {
        Err(ModelError::Checksum { file, .. }) => assert_eq!(file, "embed.safetensors"),
        other => panic!("altered weights were not refused: {other:?}"),
    }
}
