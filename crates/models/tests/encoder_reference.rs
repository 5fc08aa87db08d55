//! The verifier's own encoder pass (`crates/models/src/encoder.rs`) held to candle-transformers'
//! `BertModel` on the shipped weights: the same tokens, padded into one batch with an attention
//! mask as candle computes them, mean-pooled over the real tokens and put through the same head,
//! give the same probabilities to within float rounding.

use amem_models::{Passage, Verifier};
use candle_core::{D, DType, Device, Tensor};
use candle_nn::{Module, VarBuilder};
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy};

const WEIGHTS: &[u8] = include_bytes!("../weights/verifier.safetensors");
const TOKENIZER: &[u8] = include_bytes!("../weights/tokenizer.json");
const CONFIG: &[u8] = include_bytes!("../weights/config.json");

/// Probabilities (supported, contradicted, not enough info) of each (evidence, claim) pair by
/// candle's BERT, in one padded batch.
fn candle_probs(pairs: &[(String, String)]) -> Vec<[f32; 3]> {
    let device = Device::Cpu;
    let config: Config = serde_json::from_slice(CONFIG).unwrap();
    let vb = VarBuilder::from_slice_safetensors(WEIGHTS, DType::F32, &device).unwrap();
    let encoder = BertModel::load(vb.clone(), &config).unwrap();
    let head = candle_nn::linear(config.hidden_size, 3, vb.pp("classifier")).unwrap();
    let mut tokenizer = amem_models::pair_tokenizer(TOKENIZER).expect("tokenizer");
    tokenizer.with_padding(Some(PaddingParams { strategy: PaddingStrategy::BatchLongest, ..PaddingParams::default() }));
    let encodings = tokenizer.encode_batch(pairs.to_vec(), true).unwrap();
    let (n, len) = (encodings.len(), encodings[0].get_ids().len());
    let column = |f: fn(&tokenizers::Encoding) -> &[u32]| -> Tensor {
        let v: Vec<i64> = encodings.iter().flat_map(|e| f(e).iter().map(|&x| i64::from(x))).collect();
        Tensor::from_vec(v, (n, len), &device).unwrap()
    };
    let (ids, types, mask) = (column(|e| e.get_ids()), column(|e| e.get_type_ids()), column(|e| e.get_attention_mask()));
    let states = encoder.forward(&ids, &types, Some(&mask)).unwrap();
    let m = mask.to_dtype(DType::F32).unwrap().unsqueeze(2).unwrap();
    let pooled = states.broadcast_mul(&m).unwrap().sum(1).unwrap().broadcast_div(&m.sum(1).unwrap()).unwrap();
    let probs = candle_nn::ops::softmax(&head.forward(&pooled).unwrap(), D::Minus1).unwrap();
    probs.to_vec2::<f32>().unwrap().into_iter().map(|r| [r[0], r[1], r[2]]).collect()
}

#[test]
fn the_encoder_gives_candle_bert_probabilities() {
    let long = "The committee met on Tuesday and reviewed the budget, the hiring plan and the schedule. ".repeat(12);
    let cases: Vec<(&str, &str)> = vec![
        ("Project Falcon. The team has 14 engineers.", "The Falcon team has 14 engineers."),
        ("The plant produced 40 MW in 2019.", "The plant produced 80 MW in 2019."),
        ("Paris is the capital of France.", "Paris is in France."),
        ("Cats sleep for most of the day.", "The launch moved to May."),
        (
            "The company reported revenue of 40 million dollars in 2019, up from 31 million the year before, driven by its cloud business.",
            "Revenue was 40 million dollars in 2019.",
        ),
        // Longer than the model reads: the evidence is cut to leave the claim whole.
        (long.as_str(), "The committee reviewed the hiring plan."),
    ];
    let verifier = Verifier::shipped().unwrap();
    let ours = verifier.score(&cases).unwrap();
    // candle reads the pairs as the verifier does: the claim cut the same way, in one batch.
    let pairs: Vec<(String, String)> = cases.iter().map(|(e, c)| (e.to_string(), c.to_string())).collect();
    let reference = candle_probs(&pairs);
    for (i, (p, r)) in ours.iter().zip(&reference).enumerate() {
        let got = [p.supported, p.contradicted, p.not_enough_info];
        for (a, b) in got.iter().zip(r) {
            assert!((a - b).abs() < 1e-4, "pair {i}: encoder {got:?}, candle {r:?}");
        }
    }
    // The cases are not all alike: the comparison covers different answers.
    let labels: std::collections::BTreeSet<usize> =
        reference.iter().map(|r| (0..3).max_by(|&a, &b| r[a].total_cmp(&r[b])).unwrap_or(0)).collect();
    assert!(labels.len() >= 2, "{reference:?}");
    let title =
        Passage { evidence: "The team has 14 engineers.", title: Some("Project Falcon"), claim: "The Falcon team has 14 engineers." };
    let windowed = verifier.score_passages(&[title]).unwrap()[0];
    assert_eq!(windowed, ours[0]);
}
