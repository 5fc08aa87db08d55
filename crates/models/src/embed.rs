//! The static embedder: a text's meaning as one vector, for recall by meaning.
//!
//! One vector per wordpiece of the shared encoder's tokenizer, summed over a text's
//! wordpieces and L2-normalised (`models/embed/`, its README is the model card). The
//! table was distilled from the encoder (all-MiniLM-L6-v2, a sentence-embedding model):
//! trained so that the normalised sum lands where the encoder puts the text, and so that
//! texts stand as near one another as the encoder puts them. The encoder costs about
//! 20 ms a sentence on one core, and recall embeds every audited claim; this costs a
//! tokenizer pass and a few hundred additions a wordpiece.

use crate::ModelError;
use crate::sums::{check_files, recorded_sha256};
use crate::vector::{prefix, tensor};
use candle_core::Device;
use serde::Deserialize;
use std::sync::OnceLock;
use tokenizers::Tokenizer;

/// The method name embeddings are recorded under (with the weights' checksum, see
/// [`StaticEmbedder::id`]).
pub const EMBED_METHOD: &str = "model:embed@1";

/// Bytes of a text the embedder reads at most: a wiki chunk is at most a few kilobytes;
/// a megabyte paste is read by its head.
pub const EMBED_BYTES: usize = 16 * 1024;

/// The weights file, as errors name it.
const FILE: &str = "embed.safetensors";

mod shipped {
    pub(crate) const WEIGHTS: &[u8] = include_bytes!("../weights/embed.safetensors");
    pub(crate) const CONFIG: &[u8] = include_bytes!("../weights/embed.json");
    pub(crate) const TOKENIZER: &[u8] = include_bytes!("../weights/tokenizer.json");
    pub(crate) const SHA256SUMS: &str = include_str!("../weights/SHA256SUMS");
}

#[derive(Deserialize)]
struct Config {
    method: String,
    dim: usize,
    floor: f32,
}

/// The files the embedder is built from.
#[derive(Clone, Copy, Debug)]
pub struct EmbedFiles<'a> {
    /// safetensors with one tensor, `embeddings`: `[vocabulary, dim]`.
    pub weights: &'a [u8],
    /// embed.json: `{"method": "model:embed@1", "dim": n, "floor": cosine, ...}`.
    pub config: &'a [u8],
    /// The shared encoder's tokenizer.json.
    pub tokenizer: &'a [u8],
    /// SHA256SUMS naming the three files above.
    pub sha256sums: &'a str,
}

/// The static embedder, loaded. One per process ([`StaticEmbedder::shipped`]); embedding
/// takes `&self`.
pub struct StaticEmbedder {
    tokenizer: Tokenizer,
    table: Vec<f32>,
    dim: usize,
    vocab: usize,
    floor: f32,
    id: String,
}

impl std::fmt::Debug for StaticEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticEmbedder").field("id", &self.id).field("dim", &self.dim).finish_non_exhaustive()
    }
}

impl StaticEmbedder {
    /// The embedder shipped in the binary, loaded once per process and checked against its
    /// recorded checksums.
    ///
    /// # Errors
    /// A shipped file does not match its checksum, or does not parse.
    pub fn shipped() -> Result<&'static StaticEmbedder, ModelError> {
        static SHIPPED: OnceLock<Result<StaticEmbedder, ModelError>> = OnceLock::new();
        SHIPPED
            .get_or_init(|| {
                StaticEmbedder::from_files(EmbedFiles {
                    weights: shipped::WEIGHTS,
                    config: shipped::CONFIG,
                    tokenizer: shipped::TOKENIZER,
                    sha256sums: shipped::SHA256SUMS,
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The embedder from its files, each checked against the sha256 recorded for it first.
    ///
    /// # Errors
    /// [`ModelError::Checksum`] when a file's sha256 is not the recorded one (or none is
    /// recorded); [`ModelError::Load`] when a file does not parse or the table's shape is not
    /// the one the config names.
    pub fn from_files(files: EmbedFiles<'_>) -> Result<StaticEmbedder, ModelError> {
        check_files(files.sha256sums, &[(FILE, files.weights), ("embed.json", files.config), ("tokenizer.json", files.tokenizer)])?;
        let config: Config = serde_json::from_slice(files.config).map_err(|e| ModelError::Load(format!("embed.json: {e}")))?;
        if config.method != EMBED_METHOD {
            return Err(ModelError::Load(format!("embed.json: method {} is not {EMBED_METHOD}", config.method)));
        }
        let map =
            candle_core::safetensors::load_buffer(files.weights, &Device::Cpu).map_err(|e| ModelError::Load(format!("{FILE}: {e}")))?;
        let (table, shape) = tensor(&map, FILE, "embeddings")?;
        let [vocab, dim] = shape[..] else { return Err(ModelError::Load(format!("{FILE}: embeddings is not a matrix"))) };
        if dim != config.dim || dim == 0 {
            return Err(ModelError::Load(format!("{FILE}: embeddings are {dim} wide, embed.json says {}", config.dim)));
        }
        let mut tokenizer = Tokenizer::from_bytes(files.tokenizer).map_err(|e| ModelError::Load(format!("tokenizer.json: {e}")))?;
        // The file pads and truncates to 128 for the encoder; the table is summed over every
        // wordpiece read.
        tokenizer.with_padding(None);
        tokenizer.with_truncation(None).map_err(|e| ModelError::Load(format!("tokenizer.json (truncation): {e}")))?;
        let sha = recorded_sha256(files.sha256sums, FILE).unwrap_or_default().to_ascii_lowercase();
        let id = format!("{EMBED_METHOD}/{}", &sha[..sha.len().min(12)]);
        Ok(StaticEmbedder { tokenizer, table, dim, vocab, floor: config.floor, id })
    }

    /// What names these vectors: the method and the weights' checksum. Vectors stored under
    /// another id were made by other weights and are made again.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The cosine below which two texts are not near in meaning: the one that 1 pair in
    /// 100 of unrelated texts reaches (calibrated by the training script on texts it did
    /// not train on).
    pub fn floor(&self) -> f32 {
        self.floor
    }

    /// The vectors' width.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The unit vector of `text` (its first [`EMBED_BYTES`] bytes); all zeros when the text
    /// has no wordpiece the table knows (punctuation the tokenizer drops, an empty text).
    ///
    /// # Errors
    /// The tokenizer failed.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, ModelError> {
        let encoding =
            self.tokenizer.encode(prefix(text, EMBED_BYTES), false).map_err(|e| ModelError::Compute(format!("tokenizer: {e}")))?;
        let mut sum = vec![0.0f32; self.dim];
        for &id in encoding.get_ids() {
            let id = id as usize;
            // The special pieces' rows are zero; an id past the table reads as one.
            if id < self.vocab {
                for (s, &w) in sum.iter_mut().zip(&self.table[id * self.dim..(id + 1) * self.dim]) {
                    *s += w;
                }
            }
        }
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            sum.iter_mut().for_each(|x| *x /= norm);
        }
        Ok(sum)
    }
}
