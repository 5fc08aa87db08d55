//! The check-worthiness model: is this sentence a factual claim worth checking?
//!
//! A student distilled from the shared encoder (`models/checkworthy/`, its README
//! is the model card): the encoder's tokenizer, a static vector per wordpiece
//! (what the encoder makes of the token), hashed wordpiece bigrams, a
//! convolution over word trigrams, and the rules' kind of the sentence; mean and
//! max pooling, one hidden layer, one logit. It is small because the audit reads every
//! sentence of every mail (some 20 a mail): the full encoder would cost about
//! 20 ms a sentence on one core, this costs tens of microseconds. Plain loops
//! over f32 slices: the tensors are a few hundred numbers wide, below where a
//! tensor library's dispatch pays for itself.

use crate::ModelError;
use crate::sums::{check_files, recorded_sha256};
use crate::vector::{dot, prefix, tensor};
use candle_core::Device;
use serde::Deserialize;
use std::sync::OnceLock;
use tokenizers::Tokenizer;

/// The method name the model's decisions are recorded under.
pub const CHECKWORTHY_METHOD: &str = "model:checkworthy@1";

/// Wordpiece tokens of a sentence the model reads at most (`common.MAX_TOKENS`).
pub const CHECKWORTHY_TOKENS: usize = 64;

/// The rules' kinds, in the order of the model's one-hot input (`common.KINDS`).
pub const RULE_KINDS: [&str; 11] =
    ["fact", "quantity", "date", "attribution", "comparison", "causal", "prediction", "opinion", "question", "logistics", "greeting"];

const BIGRAM_BUCKETS: u64 = 1 << 16;

/// The weights file, as errors name it.
const FILE: &str = "checkworthy.safetensors";

#[derive(Deserialize)]
struct Calibration {
    threshold: f32,
    demote_below: f32,
}

mod shipped {
    pub(crate) const WEIGHTS: &[u8] = include_bytes!("../weights/checkworthy.safetensors");
    pub(crate) const CALIBRATION: &[u8] = include_bytes!("../weights/checkworthy.json");
    pub(crate) const TOKENIZER: &[u8] = include_bytes!("../weights/tokenizer.json");
    pub(crate) const SHA256SUMS: &str = include_str!("../weights/SHA256SUMS");
}

/// The files the model is built from.
#[derive(Clone, Copy, Debug)]
pub struct CheckWorthyFiles<'a> {
    /// safetensors: `words`, `bigrams`, `conv.weight`, `conv.bias`, `hidden.weight`, `hidden.bias`,
    /// `out.weight`, `out.bias`.
    pub weights: &'a [u8],
    /// checkworthy.json: `{"threshold": p, "demote_below": p, ...}`.
    pub calibration: &'a [u8],
    /// The shared encoder's tokenizer.json.
    pub tokenizer: &'a [u8],
    /// SHA256SUMS naming the three files above.
    pub sha256sums: &'a str,
}

/// The check-worthiness model, loaded. One per process ([`CheckWorthiness::shipped`]);
/// scoring takes `&self`.
pub struct CheckWorthiness {
    tokenizer: Tokenizer,
    words: Vec<f32>,
    word_dim: usize,
    vocab: usize,
    bigrams: Vec<f32>,
    bigram_dim: usize,
    /// The convolution's weights as `[channel][tap][word_dim]` (torch's `[channel][word_dim][tap]`
    /// transposed at load, so the inner loop runs over contiguous word vectors).
    conv_w: Vec<f32>,
    conv_b: Vec<f32>,
    hidden_w: Vec<f32>,
    hidden_b: Vec<f32>,
    out_w: Vec<f32>,
    out_b: f32,
    threshold: f32,
    demote_below: f32,
    weights_sha256: String,
}

impl std::fmt::Debug for CheckWorthiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckWorthiness").field("threshold", &self.threshold).finish_non_exhaustive()
    }
}

impl CheckWorthiness {
    /// The model shipped in the binary, loaded once per process and checked against its
    /// recorded checksums.
    ///
    /// # Errors
    /// A shipped file does not match its checksum, or does not parse.
    pub fn shipped() -> Result<&'static CheckWorthiness, ModelError> {
        static SHIPPED: OnceLock<Result<CheckWorthiness, ModelError>> = OnceLock::new();
        SHIPPED
            .get_or_init(|| {
                CheckWorthiness::from_files(CheckWorthyFiles {
                    weights: shipped::WEIGHTS,
                    calibration: shipped::CALIBRATION,
                    tokenizer: shipped::TOKENIZER,
                    sha256sums: shipped::SHA256SUMS,
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The sha256 recorded for the shipped weights.
    pub fn shipped_weights_sha256() -> &'static str {
        recorded_sha256(shipped::SHA256SUMS, "checkworthy.safetensors").unwrap_or("")
    }

    /// The model from its files, each checked against the sha256 recorded for it first.
    ///
    /// # Errors
    /// [`ModelError::Checksum`] when a file's sha256 is not the recorded one (or none is
    /// recorded); [`ModelError::Load`] when a file does not parse or a tensor's shape is not
    /// the one the others imply.
    pub fn from_files(files: CheckWorthyFiles<'_>) -> Result<CheckWorthiness, ModelError> {
        check_files(
            files.sha256sums,
            &[("checkworthy.safetensors", files.weights), ("checkworthy.json", files.calibration), ("tokenizer.json", files.tokenizer)],
        )?;
        let calibration: Calibration =
            serde_json::from_slice(files.calibration).map_err(|e| ModelError::Load(format!("checkworthy.json: {e}")))?;
        let map = candle_core::safetensors::load_buffer(files.weights, &Device::Cpu)
            .map_err(|e| ModelError::Load(format!("checkworthy.safetensors: {e}")))?;
        let (words, ws) = tensor(&map, FILE, "words")?;
        let (bigrams, bs) = tensor(&map, FILE, "bigrams")?;
        let (conv_torch, cs) = tensor(&map, FILE, "conv.weight")?;
        let (conv_b, _) = tensor(&map, FILE, "conv.bias")?;
        let (hidden_w, hs) = tensor(&map, FILE, "hidden.weight")?;
        let (hidden_b, _) = tensor(&map, FILE, "hidden.bias")?;
        let (out_w, os) = tensor(&map, FILE, "out.weight")?;
        let (out_b, _) = tensor(&map, FILE, "out.bias")?;
        let bad = |what: &str| ModelError::Load(format!("checkworthy.safetensors: {what}"));
        let [vocab, word_dim] = ws[..] else { return Err(bad("words is not a matrix")) };
        let [buckets, bigram_dim] = bs[..] else { return Err(bad("bigrams is not a matrix")) };
        let [hidden, width] = hs[..] else { return Err(bad("hidden.weight is not a matrix")) };
        let [channels, conv_in, TAPS] = cs[..] else { return Err(bad("conv.weight is not [channels, word_dim, 3]")) };
        if buckets as u64 != BIGRAM_BUCKETS
            || word_dim > ZEROS.len()
            || conv_in != word_dim
            || conv_b.len() != channels
            || width != 2 * word_dim + bigram_dim + channels + RULE_KINDS.len() + 2
            || hidden_b.len() != hidden
            || os[..] != [1, hidden]
            || out_b.len() != 1
        {
            return Err(bad("the tensors' shapes do not fit together"));
        }
        let mut tokenizer = Tokenizer::from_bytes(files.tokenizer).map_err(|e| ModelError::Load(format!("tokenizer.json: {e}")))?;
        // The file pads and truncates to 128 for the encoder; the model reads the tokens as they are.
        tokenizer.with_padding(None);
        tokenizer.with_truncation(None).map_err(|e| ModelError::Load(format!("tokenizer.json (truncation): {e}")))?;
        let mut conv_w = vec![0.0f32; conv_torch.len()];
        for c in 0..channels {
            for d in 0..word_dim {
                for k in 0..TAPS {
                    conv_w[(c * TAPS + k) * word_dim + d] = conv_torch[(c * word_dim + d) * TAPS + k];
                }
            }
        }
        let weights_sha256 = recorded_sha256(files.sha256sums, "checkworthy.safetensors").unwrap_or_default().to_ascii_lowercase();
        Ok(CheckWorthiness {
            tokenizer,
            words,
            word_dim,
            vocab,
            bigrams,
            bigram_dim,
            conv_w,
            conv_b,
            hidden_w,
            hidden_b,
            out_w,
            out_b: out_b[0],
            threshold: calibration.threshold,
            demote_below: calibration.demote_below,
            weights_sha256,
        })
    }

    /// The sha256 of the weights this model was built from (checked at load).
    pub fn weights_sha256(&self) -> &str {
        &self.weights_sha256
    }

    /// The probability at or above which a sentence is check-worthy (calibrated by the
    /// training script on sentences it did not train on: the F1-best).
    pub fn threshold(&self) -> f32 {
        self.threshold
    }

    /// The probability below which a sentence the rules would audit is taken out of the
    /// audit: the highest, at most [`CheckWorthiness::threshold`], at which the sentences so
    /// taken out of the calibration part were not check-worthy 9 times in 10. Taking a claim
    /// out hides it from the report, so overruling the rules takes more confidence.
    pub fn demote_below(&self) -> f32 {
        self.demote_below
    }

    /// P(check-worthy) of `sentence`, given the rules' kind of it (one of [`RULE_KINDS`];
    /// another name reads as no kind).
    ///
    /// # Errors
    /// The tokenizer failed.
    pub fn probability(&self, sentence: &str, rule_kind: &str) -> Result<f32, ModelError> {
        // The model reads 64 wordpieces and counts up to 128: a few kilobytes hold them, and a
        // megabyte "sentence" (a paste with no full stop) must not be tokenized whole.
        let sentence = prefix(sentence, SENTENCE_BYTES);
        let encoding = self.tokenizer.encode(sentence, false).map_err(|e| ModelError::Compute(format!("tokenizer: {e}")))?;
        let all = encoding.get_ids();
        let ids = &all[..all.len().min(CHECKWORTHY_TOKENS)];
        let (wd, bd) = (self.word_dim, self.bigram_dim);
        let mut x = vec![0.0f32; self.hidden_w.len() / self.hidden_b.len()];
        // mean and max of the word vectors
        let (mean, rest) = x.split_at_mut(wd);
        let (max, rest) = rest.split_at_mut(wd);
        let (bigram_mean, rest) = rest.split_at_mut(bd);
        let (conv_max, extra) = rest.split_at_mut(self.conv_b.len());
        // Word vectors in order (an id past the table reads as padding: zeros).
        let vectors: Vec<&[f32]> = ids
            .iter()
            .map(|&id| {
                let id = id as usize;
                if id < self.vocab { &self.words[id * wd..(id + 1) * wd] } else { &ZEROS[..wd] }
            })
            .collect();
        if let Some((first, rest)) = vectors.split_first() {
            max.copy_from_slice(first);
            for v in rest {
                for (m, &a) in max.iter_mut().zip(*v) {
                    *m = m.max(a);
                }
            }
            for v in &vectors {
                for (s, &a) in mean.iter_mut().zip(*v) {
                    *s += a;
                }
            }
            let n = vectors.len() as f32;
            mean.iter_mut().for_each(|s| *s /= n);
        }
        let pairs = ids.len().saturating_sub(1);
        for w in ids.windows(2) {
            let b = bigram_bucket(w[0], w[1]);
            let v = &self.bigrams[b * bd..(b + 1) * bd];
            for (s, &a) in bigram_mean.iter_mut().zip(v) {
                *s += a;
            }
        }
        if pairs > 0 {
            let n = pairs as f32;
            bigram_mean.iter_mut().for_each(|s| *s /= n);
        }
        // Trigram convolution, zero beyond both ends, ReLU, max over positions (0 with no token,
        // as the training script's masked max over non-negative values).
        for (c, (m, &b)) in conv_max.iter_mut().zip(&self.conv_b).enumerate() {
            let taps = &self.conv_w[c * TAPS * wd..(c + 1) * TAPS * wd];
            for t in 0..vectors.len() {
                let mut h = b;
                for (k, tap) in taps.chunks_exact(wd).enumerate() {
                    // position t + k - 1
                    if let Some(v) = (t + k).checked_sub(1).and_then(|i| vectors.get(i)) {
                        h += dot(tap, v);
                    }
                }
                *m = m.max(h);
            }
        }
        if let Some(k) = RULE_KINDS.iter().position(|k| *k == rule_kind) {
            extra[k] = 1.0;
        }
        extra[RULE_KINDS.len()] = all.len().min(128) as f32 / 32.0;
        extra[RULE_KINDS.len() + 1] = if sentence.bytes().any(|b| b.is_ascii_digit()) { 1.0 } else { 0.0 };
        let width = x.len();
        let mut logit = self.out_b;
        for (j, (&b, &o)) in self.hidden_b.iter().zip(&self.out_w).enumerate() {
            let row = &self.hidden_w[j * width..(j + 1) * width];
            let h = b + dot(row, &x);
            if h > 0.0 {
                logit += o * h;
            }
        }
        Ok(1.0 / (1.0 + (-logit).exp()))
    }
}

/// Bytes of a sentence the model tokenizes at most ([`CheckWorthiness::probability`]).
const SENTENCE_BYTES: usize = 4096;

/// Taps of the convolution (word trigrams).
const TAPS: usize = 3;

/// Zeros as wide as any word vector the shipped model has, for an id past its table.
static ZEROS: [f32; 512] = [0.0; 512];

/// The bucket of a wordpiece bigram: 64-bit FNV-1a over the two ids as little-endian u32s,
/// masked (the training script's `common.bigram_bucket`).
fn bigram_bucket(a: u32, b: u32) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in a.to_le_bytes().into_iter().chain(b.to_le_bytes()) {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h & (BIGRAM_BUCKETS - 1)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_sentence_is_read_by_its_first_kilobytes() {
        let model = CheckWorthiness::shipped().expect("the shipped model loads");
        // 10 MB with no sentence break, its only digits past the first kilobytes: read whole, the
        // digit would count; read by its first kilobytes, as the training script never saw more
        // of a sentence, it does not.
        let huge = format!("{}in 2001", "the pipeline was full and the market was calm ".repeat(220_000));
        let cut = &huge[..SENTENCE_BYTES];
        assert!(!cut.bytes().any(|b| b.is_ascii_digit()));
        assert_eq!(model.probability(&huge, "fact").unwrap(), model.probability(cut, "fact").unwrap());
        // (and the digit would have counted: the same first wordpieces with a digit read otherwise)
        let short = &cut[..3000];
        assert_ne!(model.probability(short, "fact").unwrap(), model.probability(&format!("{short} 2001"), "fact").unwrap());
    }

    #[test]
    fn bigram_buckets_are_the_training_scripts() {
        // common.bigram_bucket(101, 2023), (0, 0), (30521, 7) in Python
        assert_eq!(bigram_bucket(101, 2023), 60822);
        assert_eq!(bigram_bucket(0, 0), 14789);
        assert_eq!(bigram_bucket(30521, 7), 24326);
    }
}
