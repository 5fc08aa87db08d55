//! `amem-models`: amem's own learned models, run in-process on the CPU: the
//! verifier, the check-worthiness model and the static embedder recall reads meaning with.
//!
//! Where it sits (docs/architecture.md, "Deterministic first, models
//! subordinate"): the verify stage's rules decide first; the verifier here
//! reads the claim against the evidence the rules found and is combined with
//! them by one fixed table (`amem_verify::combine`). Nothing in this crate
//! knows about claims or reports: it turns (evidence, claim) text pairs into
//! probabilities.
//!
//! The weights ship inside the crate (`weights/`, fp16 safetensors) and are
//! checked against `weights/SHA256SUMS` when loaded; they were trained by
//! `models/verifier/train.py` (its README is the model card). Inference is
//! pure Rust: the verifier's encoder pass is this crate's own (`encoder`, on
//! matrixmultiply), the safetensors read by candle, the base model's tokenizer
//! by `tokenizers`.
#![deny(missing_docs)]

mod checkworthy;
mod embed;
mod encoder;
mod sums;
mod vector;
mod verifier;
mod window;

pub use checkworthy::{CHECKWORTHY_METHOD, CHECKWORTHY_TOKENS, CheckWorthiness, CheckWorthyFiles, RULE_KINDS};
pub use embed::{EMBED_BYTES, EMBED_METHOD, EmbedFiles, StaticEmbedder};
pub use vector::dot;
pub use verifier::{BATCH, CLAIM_CHARS, Label, MAX_TOKENS, METHOD, Passage, Probs, Thresholds, Verifier, VerifierFiles, pair_tokenizer};
pub use window::{WINDOW_CHARS, WINDOW_SENTENCES, content_words, evidence_window, sentence_spans, sentences, window_spans};

/// Why a model could not be loaded or run.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum ModelError {
    /// A shipped file is not the one its checksum names: refused.
    #[error(
        "model file {file}: sha256 {found} does not match the recorded {expected}; refusing to load it (rebuild amem, or run with --no-models)"
    )]
    Checksum {
        /// The file.
        file: String,
        /// The recorded sha256.
        expected: String,
        /// The sha256 of the bytes found.
        found: String,
    },
    /// A file did not parse.
    #[error("model file {0}")]
    Load(String),
    /// Tokenizing or computing failed.
    #[error("model computation failed: {0}")]
    Compute(String),
}
