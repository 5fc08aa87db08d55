//! The verifier's pass on (passage, claim) pairs of the lengths the audit gives it, beside
//! candle-transformers' `BertModel` on the same tokens (the pass amem's own replaced,
//! docs/adr/0005-verifier-encoder-pass.md): the ratio between the two in one run is the
//! figure that travels. `cargo bench -p amem-models --bench verifier`.

use amem_models::Verifier;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use std::sync::LazyLock;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer};

fn main() {
    divan::main();
}

const WEIGHTS: &[u8] = include_bytes!("../weights/verifier.safetensors");
const TOKENIZER: &[u8] = include_bytes!("../weights/tokenizer.json");
const CONFIG: &[u8] = include_bytes!("../weights/config.json");

/// A passage of about `tokens` wordpieces and a claim of about 15: a fact-check's passage is a
/// window of up to 600 characters (some 130 tokens), the claim a sentence.
fn pair(tokens: usize, seed: usize) -> (String, String) {
    const SENTENCES: [&str; 4] = [
        "The committee met on Tuesday and reviewed the budget for the coming year.",
        "Revenue rose 12 percent to 4.1 billion dollars, driven by the cloud business.",
        "The plant in Texas produced 40 megawatts in 2019, up from 31 the year before.",
        "Storage was full by March, so prices at Henry Hub fell for a second week.",
    ];
    let mut passage = String::new();
    let mut i = seed;
    // About 16 wordpieces a sentence.
    while passage.split_whitespace().count() * 4 / 3 < tokens {
        passage.push_str(SENTENCES[i % SENTENCES.len()]);
        passage.push(' ');
        i += 1;
    }
    (passage.trim().to_string(), format!("The plant produced {} megawatts in 2019.", 40 + seed))
}

fn pairs(n: usize, tokens: usize) -> Vec<(String, String)> {
    (0..n).map(|i| pair(tokens, i)).collect()
}

#[divan::bench(args = [(1, 40), (1, 150), (2, 150), (8, 150)])]
fn amem_pass(bencher: divan::Bencher, (n, tokens): (usize, usize)) {
    let verifier = Verifier::shipped().expect("the shipped verifier loads");
    let owned = pairs(n, tokens);
    let refs: Vec<(&str, &str)> = owned.iter().map(|(e, c)| (e.as_str(), c.as_str())).collect();
    bencher.counter(divan::counter::ItemsCount::new(n)).bench(|| verifier.score(&refs).expect("scores"));
}

struct Reference {
    model: BertModel,
    tokenizer: Tokenizer,
}

static REFERENCE: LazyLock<Reference> = LazyLock::new(|| {
    let config: Config = serde_json::from_slice(CONFIG).expect("config");
    let vb = VarBuilder::from_slice_safetensors(WEIGHTS, DType::F32, &Device::Cpu).expect("weights");
    let model = BertModel::load(vb, &config).expect("encoder");
    let mut tokenizer = amem_models::pair_tokenizer(TOKENIZER).expect("tokenizer");
    tokenizer.with_padding(Some(PaddingParams { strategy: PaddingStrategy::BatchLongest, ..PaddingParams::default() }));
    Reference { model, tokenizer }
});

/// candle's pass on the same pairs: tokenized and padded as amem did before, the encoder's
/// states (the pooling and head are a few thousand operations either way).
#[divan::bench(args = [(1, 40), (1, 150), (2, 150), (8, 150)])]
fn candle_pass(bencher: divan::Bencher, (n, tokens): (usize, usize)) {
    let r = &*REFERENCE;
    let owned = pairs(n, tokens);
    bencher.counter(divan::counter::ItemsCount::new(n)).bench(|| {
        let encodings = r.tokenizer.encode_batch(owned.clone(), true).expect("tokens");
        let len = encodings[0].get_ids().len();
        let column = |f: fn(&tokenizers::Encoding) -> &[u32]| -> Tensor {
            let v: Vec<i64> = encodings.iter().flat_map(|e| f(e).iter().map(|&x| i64::from(x))).collect();
            Tensor::from_vec(v, (encodings.len(), len), &Device::Cpu).expect("tensor")
        };
        let mask = column(|e| e.get_attention_mask());
        r.model.forward(&column(|e| e.get_ids()), &column(|e| e.get_type_ids()), Some(&mask)).expect("states")
    });
}
