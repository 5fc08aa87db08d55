//! The verifier: a cross-encoder reading (evidence window, claim) and giving the
//! probabilities of supported, contradicted and not enough info.
//!
//! A 6-layer BERT (all-MiniLM-L6-v2, fine-tuned by `models/verifier/train.py`),
//! the mean of its last layer's token states, and a linear head. The weights are
//! stored in fp16 and computed in f32 by [`crate::encoder`] (plain rows and `matrixmultiply`,
//! after candle's pass measured several times slower on this project's machine).

use crate::ModelError;
use crate::encoder::{Encoder, Sequence, Shape};
use crate::sums::{check_files, recorded_sha256};
use crate::window::evidence_window;
use candle_core::{DType, Device};
use serde::Deserialize;
use std::sync::OnceLock;
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

/// The method name the verifier's readings are recorded under.
pub const METHOD: &str = "model:verifier@1";

/// Tokens of (evidence, claim) the model reads at most: the training script's `MAX_TOKENS`.
pub const MAX_TOKENS: usize = 160;

/// Characters of a claim the model reads at most, so that the evidence always keeps room
/// (a claim is a sentence; this cuts only pathological ones).
pub const CLAIM_CHARS: usize = 400;

/// Pairs scored in one forward pass.
pub const BATCH: usize = 32;

/// The three answers, in the order of the head's outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Label {
    /// The evidence entails the claim.
    Supported,
    /// The evidence contradicts the claim.
    Contradicted,
    /// The evidence does not decide the claim (unrelated, or on topic and silent).
    NotEnoughInfo,
}

impl Label {
    /// The name used in the training data and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Supported => "supported",
            Label::Contradicted => "contradicted",
            Label::NotEnoughInfo => "not_enough_info",
        }
    }
}

/// The model's probabilities for one pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probs {
    /// P(supported).
    pub supported: f32,
    /// P(contradicted).
    pub contradicted: f32,
    /// P(not enough info).
    pub not_enough_info: f32,
}

impl Probs {
    /// The most probable label.
    pub fn label(&self) -> Label {
        if self.supported >= self.contradicted && self.supported >= self.not_enough_info {
            Label::Supported
        } else if self.contradicted >= self.not_enough_info {
            Label::Contradicted
        } else {
            Label::NotEnoughInfo
        }
    }

    /// The probability of `label`.
    pub fn of(&self, label: Label) -> f32 {
        match label {
            Label::Supported => self.supported,
            Label::Contradicted => self.contradicted,
            Label::NotEnoughInfo => self.not_enough_info,
        }
    }
}

/// The probabilities above which the policy takes the model's supported or contradicted, and
/// above which it reads evidence as unrelated. Calibrated by the training script on the
/// calibration part (documents neither trained on nor in the held-out part): the lowest
/// probability at which the committed answers reach the target precision.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
pub struct Thresholds {
    /// Take supported at or above this.
    pub supported: f32,
    /// Take contradicted at or above this.
    pub contradicted: f32,
    /// Read the evidence as unrelated at or above this P(not enough info).
    #[serde(default = "default_unrelated")]
    pub unrelated: f32,
}

fn default_unrelated() -> f32 {
    0.9
}

#[derive(Deserialize)]
struct Calibration {
    thresholds: Thresholds,
}

/// The shipped weights, tokenizer, configuration, calibration and their checksums: part of
/// the binary, so no step downloads anything.
mod shipped {
    pub(crate) const WEIGHTS: &[u8] = include_bytes!("../weights/verifier.safetensors");
    pub(crate) const TOKENIZER: &[u8] = include_bytes!("../weights/tokenizer.json");
    pub(crate) const CONFIG: &[u8] = include_bytes!("../weights/config.json");
    pub(crate) const CALIBRATION: &[u8] = include_bytes!("../weights/calibration.json");
    pub(crate) const SHA256SUMS: &str = include_str!("../weights/SHA256SUMS");
}

/// The files a verifier is built from.
#[derive(Clone, Copy, Debug)]
pub struct VerifierFiles<'a> {
    /// safetensors: the encoder's tensors (BERT names) and `classifier.weight`/`.bias`.
    pub weights: &'a [u8],
    /// The tokenizer.json of the base model.
    pub tokenizer: &'a [u8],
    /// The base model's config.json.
    pub config: &'a [u8],
    /// calibration.json: `{"thresholds": {"supported": p, "contradicted": p}}`.
    pub calibration: &'a [u8],
    /// SHA256SUMS: the sha256 of each of the four files above, by name.
    pub sha256sums: &'a str,
}

/// The verifier model, loaded. Share one per process ([`Verifier::shipped`]): scoring takes
/// `&self`, and the tensors are read-only.
pub struct Verifier {
    encoder: Encoder,
    /// The head's weights (3 rows of the hidden width) and biases.
    head: (Vec<f32>, [f32; 3]),
    tokenizer: Tokenizer,
    thresholds: Thresholds,
    /// The sha256 of the weights it was built from.
    weights_sha256: String,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier").field("thresholds", &self.thresholds).finish_non_exhaustive()
    }
}

impl Verifier {
    /// The verifier shipped in the binary, loaded once per process (about 0.3 s) and checked
    /// against its recorded checksums.
    ///
    /// # Errors
    /// A shipped file does not match its checksum, or does not parse.
    pub fn shipped() -> Result<&'static Verifier, ModelError> {
        static SHIPPED: OnceLock<Result<Verifier, ModelError>> = OnceLock::new();
        SHIPPED
            .get_or_init(|| {
                Verifier::from_files(VerifierFiles {
                    weights: shipped::WEIGHTS,
                    tokenizer: shipped::TOKENIZER,
                    config: shipped::CONFIG,
                    calibration: shipped::CALIBRATION,
                    sha256sums: shipped::SHA256SUMS,
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The sha256 recorded for the shipped weights.
    pub fn shipped_weights_sha256() -> &'static str {
        recorded_sha256(shipped::SHA256SUMS, "verifier.safetensors").unwrap_or("")
    }

    /// A verifier from its files, each checked against the sha256 recorded for it first.
    ///
    /// # Errors
    /// [`ModelError::Checksum`] when a file's sha256 is not the recorded one (or none is
    /// recorded); [`ModelError::Load`] when a file does not parse.
    pub fn from_files(files: VerifierFiles<'_>) -> Result<Verifier, ModelError> {
        check_files(
            files.sha256sums,
            &[
                ("verifier.safetensors", files.weights),
                ("tokenizer.json", files.tokenizer),
                ("config.json", files.config),
                ("calibration.json", files.calibration),
            ],
        )?;
        let load = |what: &str, e: &dyn std::fmt::Display| ModelError::Load(format!("{what}: {e}"));
        let shape: Shape = serde_json::from_slice(files.config).map_err(|e| load("config.json", &e))?;
        let calibration: Calibration = serde_json::from_slice(files.calibration).map_err(|e| load("calibration.json", &e))?;
        let tensors = candle_core::safetensors::load_buffer(files.weights, &Device::Cpu).map_err(|e| load("verifier.safetensors", &e))?;
        let encoder = Encoder::from_tensors(&tensors, &shape).map_err(|e| load("verifier.safetensors (encoder)", &e))?;
        let head = read_head(&tensors, encoder.hidden()).map_err(|e| load("verifier.safetensors (head)", &e))?;
        let tokenizer = pair_tokenizer(files.tokenizer)?;
        let weights_sha256 = recorded_sha256(files.sha256sums, "verifier.safetensors").unwrap_or_default().to_ascii_lowercase();
        Ok(Verifier { encoder, head, tokenizer, thresholds: calibration.thresholds, weights_sha256 })
    }

    /// The verifier files in `dir` (`verifier.safetensors`, `tokenizer.json`, `config.json`,
    /// `calibration.json`, checked against the folder's own `SHA256SUMS`): a candidate the
    /// training script exported elsewhere, scored before it replaces the shipped weights.
    ///
    /// # Errors
    /// A file is missing or unreadable ([`ModelError::Load`], naming it), or see
    /// [`Verifier::from_files`].
    pub fn from_dir(dir: &std::path::Path) -> Result<Verifier, ModelError> {
        let read = |name: &str| std::fs::read(dir.join(name)).map_err(|e| ModelError::Load(format!("{}: {e}", dir.join(name).display())));
        let sums = String::from_utf8(read("SHA256SUMS")?).map_err(|e| ModelError::Load(format!("{}/SHA256SUMS: {e}", dir.display())))?;
        let (weights, tokenizer, config, calibration) =
            (read("verifier.safetensors")?, read("tokenizer.json")?, read("config.json")?, read("calibration.json")?);
        Verifier::from_files(VerifierFiles {
            weights: &weights,
            tokenizer: &tokenizer,
            config: &config,
            calibration: &calibration,
            sha256sums: &sums,
        })
    }

    /// The sha256 of the weights this verifier was built from (checked at load).
    pub fn weights_sha256(&self) -> &str {
        &self.weights_sha256
    }

    /// The calibrated thresholds.
    pub fn thresholds(&self) -> Thresholds {
        self.thresholds
    }

    /// Score (evidence window, claim) pairs as given (see [`Verifier::score_passages`] to cut
    /// the windows first), [`BATCH`] at a time.
    ///
    /// # Errors
    /// The tokenizer or a tensor operation failed.
    pub fn score(&self, pairs: &[(&str, &str)]) -> Result<Vec<Probs>, ModelError> {
        let mut out = Vec::with_capacity(pairs.len());
        // Similar lengths together pad least: sort by length, score, put back in order.
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        order.sort_by_key(|&i| pairs[i].0.len() + pairs[i].1.len());
        let mut scored = vec![None; pairs.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<(String, String)> =
                chunk.iter().map(|&i| (pairs[i].0.to_string(), cut_chars(pairs[i].1, CLAIM_CHARS))).collect();
            for (&i, p) in chunk.iter().zip(self.forward(batch)?) {
                scored[i] = Some(p);
            }
        }
        out.extend(scored.into_iter().flatten());
        Ok(out)
    }

    /// Score passages against claims, each passage first cut to the window the model reads
    /// ([`evidence_window`]). `title`, when given, is put in front of the window as in
    /// training ("Title. window").
    ///
    /// # Errors
    /// See [`Verifier::score`].
    pub fn score_passages(&self, pairs: &[Passage<'_>]) -> Result<Vec<Probs>, ModelError> {
        let windows: Vec<String> = pairs.iter().map(|p| p.window()).collect();
        let refs: Vec<(&str, &str)> = windows.iter().zip(pairs).map(|(w, p)| (w.as_str(), p.claim)).collect();
        self.score(&refs)
    }

    fn forward(&self, batch: Vec<(String, String)>) -> Result<Vec<Probs>, ModelError> {
        let encodings = match self.tokenizer.encode_batch(batch.clone(), true) {
            Ok(e) => e,
            // A claim too long to leave the evidence any room: cut both sides instead.
            Err(_) => {
                let mut tk = self.tokenizer.clone();
                tk.with_truncation(Some(TruncationParams {
                    max_length: MAX_TOKENS,
                    strategy: TruncationStrategy::LongestFirst,
                    stride: 0,
                    direction: TruncationDirection::Right,
                }))
                .map_err(|e| ModelError::Compute(e.to_string()))?;
                tk.encode_batch(batch, true).map_err(|e| ModelError::Compute(e.to_string()))?
            }
        };
        let sequences: Vec<Sequence<'_>> = encodings.iter().map(|e| Sequence { ids: e.get_ids(), types: e.get_type_ids() }).collect();
        let pooled = self.encoder.pooled_on(&sequences, rayon::current_num_threads()).map_err(ModelError::Compute)?;
        let (weights, bias) = &self.head;
        let hidden = self.encoder.hidden();
        Ok(pooled
            .chunks_exact(hidden)
            .map(|state| {
                let logits: Vec<f32> =
                    weights.chunks_exact(hidden).zip(bias).map(|(w, b)| b + w.iter().zip(state).map(|(w, x)| w * x).sum::<f32>()).collect();
                let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
                let sum: f32 = exp.iter().sum();
                Probs { supported: exp[0] / sum, contradicted: exp[1] / sum, not_enough_info: exp[2] / sum }
            })
            .collect())
    }
}

/// The base model's tokenizer (`tokenizer.json`) as the verifier reads a pair: (evidence,
/// claim) cut to [`MAX_TOKENS`] from the evidence's end, no padding (each sequence is computed
/// at its own length). A reference pass that batches pairs adds its own padding.
///
/// # Errors
/// The file does not parse ([`ModelError::Load`]).
pub fn pair_tokenizer(tokenizer_json: &[u8]) -> Result<Tokenizer, ModelError> {
    let load = |what: &str, e: &dyn std::fmt::Display| ModelError::Load(format!("{what}: {e}"));
    let mut tokenizer = Tokenizer::from_bytes(tokenizer_json).map_err(|e| load("tokenizer.json", &e))?;
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: MAX_TOKENS,
            strategy: TruncationStrategy::OnlyFirst,
            stride: 0,
            direction: TruncationDirection::Right,
        }))
        .map_err(|e| load("tokenizer.json (truncation)", &e))?;
    tokenizer.with_padding(None);
    Ok(tokenizer)
}

/// The classification head's tensors: `classifier.weight` (3 rows of `hidden`) and
/// `classifier.bias`.
fn read_head(tensors: &std::collections::HashMap<String, candle_core::Tensor>, hidden: usize) -> Result<(Vec<f32>, [f32; 3]), String> {
    let read = |name: &str| -> Result<Vec<f32>, String> {
        let t = tensors.get(name).ok_or_else(|| format!("tensor {name} is missing"))?;
        t.to_dtype(DType::F32).and_then(|t| t.flatten_all()).and_then(|t| t.to_vec1::<f32>()).map_err(|e| format!("tensor {name}: {e}"))
    };
    let (weight, bias) = (read("classifier.weight")?, read("classifier.bias")?);
    match <[f32; 3]>::try_from(bias.as_slice()) {
        Ok(bias) if weight.len() == 3 * hidden => Ok((weight, bias)),
        _ => Err(format!("classifier: {} weights and {} biases, expected {} and 3", weight.len(), bias.len(), 3 * hidden)),
    }
}

/// One passage to score against one claim.
#[derive(Clone, Copy, Debug)]
pub struct Passage<'a> {
    /// The evidence text (a chunk, a page's text, a sentence).
    pub evidence: &'a str,
    /// The title of the note or page it comes from, if any.
    pub title: Option<&'a str>,
    /// The claim.
    pub claim: &'a str,
}

impl Passage<'_> {
    /// The text the model reads on the evidence side.
    pub fn window(&self) -> String {
        let window = evidence_window(self.evidence, self.claim);
        match self.title.map(str::trim).filter(|t| !t.is_empty()) {
            Some(title) => format!("{title}. {window}"),
            None => window,
        }
    }
}

fn cut_chars(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_recorded_sums() {
        let sums = "abc  verifier.safetensors\ndef *tokenizer.json\n";
        assert_eq!(recorded_sha256(sums, "verifier.safetensors"), Some("abc"));
        assert_eq!(recorded_sha256(sums, "tokenizer.json"), Some("def"));
        assert_eq!(recorded_sha256(sums, "config.json"), None);
    }

    #[test]
    fn probs_label_is_the_argmax() {
        let p = Probs { supported: 0.2, contradicted: 0.5, not_enough_info: 0.3 };
        assert_eq!(p.label(), Label::Contradicted);
        assert_eq!(p.of(Label::NotEnoughInfo), 0.3);
    }
}
