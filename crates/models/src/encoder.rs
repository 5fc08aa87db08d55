//! The verifier's BERT encoder, computed on plain `f32` rows with `matrixmultiply`'s sgemm (through
//! `ndarray`'s safe `general_mat_mul`, which hands it the views' strides).
//!
//! Why not candle's `BertModel`, which loads the same tensors: on this project's machine (two
//! cores with AVX-512) candle's CPU matrix product (the `gemm` crate) ran a
//! 1280x384 by 384x1536 product at 57 GFLOPS on two threads, `matrixmultiply` at 139 on one
//! (PyTorch's at 165), and the rest of candle's pass (a thread pool per operation, a tensor
//! allocated per step, exact GELU and softmax element by element) took as long again: two
//! (window, claim) pairs cost 70 to 160 ms of wall time, over the MCP factcheck's 50 ms
//! budget by themselves. Here each sequence is computed at its own length (no padding, so no
//! attention mask: a padded position never reached a real token's state, nor the mean), the
//! three attention projections are one product, and nothing is allocated per layer.
//! `crates/models/tests/verifier.rs` holds this pass to candle's on real pairs.

use candle_core::{DType, Tensor};
use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, ShapeBuilder};
use rayon::prelude::*;
use std::collections::HashMap;

/// The encoder's shape, from the base model's config.json.
#[derive(Clone, Debug, serde::Deserialize)]
pub(crate) struct Shape {
    pub(crate) hidden_size: usize,
    pub(crate) num_attention_heads: usize,
    pub(crate) num_hidden_layers: usize,
    pub(crate) intermediate_size: usize,
    pub(crate) max_position_embeddings: usize,
    pub(crate) type_vocab_size: usize,
    pub(crate) vocab_size: usize,
    pub(crate) layer_norm_eps: f64,
    pub(crate) hidden_act: String,
}

/// A linear layer: `y = x W^T + b`.
struct Dense {
    /// `W^T`, row-major (`inp` rows of `out`): the layout the product packs fastest (as
    /// stored, `W`'s rows read down columns, and packing took a third of a one-pair pass).
    weight_t: Vec<f32>,
    bias: Vec<f32>,
    inp: usize,
    out: usize,
}

impl Dense {
    /// A layer from `W` as stored (`out` rows of `inp`) and its bias.
    fn new(weight: &[f32], bias: Vec<f32>, inp: usize, out: usize) -> Dense {
        let mut weight_t = vec![0.0; inp * out];
        for (o, row) in weight.chunks_exact(inp).enumerate() {
            for (i, w) in row.iter().enumerate() {
                weight_t[i * out + o] = *w;
            }
        }
        Dense { weight_t, bias, inp, out }
    }

    /// `W^T` (`inp x out`).
    fn weight_t(&self) -> ArrayView2<'_, f32> {
        ArrayView2::from_shape((self.inp, self.out), &self.weight_t[..]).unwrap_or_else(|_| unreachable!("invariant: checked at load"))
    }

    /// `rows` rows of `x` (`inp` wide) into `y` (`out` wide), replacing it.
    fn apply(&self, x: &[f32], rows: usize, y: &mut Vec<f32>) {
        y.clear();
        y.reserve(rows * self.out);
        for _ in 0..rows {
            y.extend_from_slice(&self.bias);
        }
        let x = ArrayView2::from_shape((rows, self.inp), x).unwrap_or_else(|_| unreachable!("invariant: x holds rows x inp values"));
        let mut y = ArrayViewMut2::from_shape((rows, self.out), y.as_mut_slice())
            .unwrap_or_else(|_| unreachable!("invariant: y was filled to rows x out"));
        general_mat_mul(1.0, &x, &self.weight_t(), 1.0, &mut y);
    }
}

/// Layer normalisation over each row.
struct Norm {
    gain: Vec<f32>,
    bias: Vec<f32>,
    eps: f32,
}

impl Norm {
    fn apply(&self, x: &mut [f32]) {
        let width = self.gain.len();
        for row in x.chunks_exact_mut(width) {
            let mean = row.iter().sum::<f32>() / width as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / width as f32;
            let scale = 1.0 / (var + self.eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(&self.gain).zip(&self.bias) {
                *v = (*v - mean) * scale * g + b;
            }
        }
    }
}

/// One transformer layer.
struct Layer {
    /// Query, key and value projections as one (`3 x hidden` outputs).
    qkv: Dense,
    attention_out: Dense,
    attention_norm: Norm,
    up: Dense,
    down: Dense,
    out_norm: Norm,
}

/// The encoder's tensors, as `f32` rows.
pub(crate) struct Encoder {
    words: Vec<f32>,
    positions: Vec<f32>,
    types: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    hidden: usize,
    heads: usize,
    max_positions: usize,
    type_count: usize,
}

/// One tokenized sequence: its token ids and token type ids (of equal length).
pub(crate) struct Sequence<'a> {
    pub(crate) ids: &'a [u32],
    pub(crate) types: &'a [u32],
}

/// Buffers reused across the layers of one pass.
#[derive(Default)]
struct Scratch {
    qkv: Vec<f32>,
    context: Vec<f32>,
    projected: Vec<f32>,
    up: Vec<f32>,
    scores: Vec<f32>,
}

impl Encoder {
    /// The encoder from `tensors` (the safetensors of a BERT encoder, BERT names, any float
    /// type) shaped as `shape` says.
    pub(crate) fn from_tensors(tensors: &HashMap<String, Tensor>, shape: &Shape) -> Result<Encoder, String> {
        if shape.hidden_act != "gelu" {
            return Err(format!("hidden_act {:?}: only \"gelu\" (the exact one) is computed", shape.hidden_act));
        }
        if shape.num_attention_heads == 0 || !shape.hidden_size.is_multiple_of(shape.num_attention_heads) {
            return Err(format!("{} heads do not divide hidden size {}", shape.num_attention_heads, shape.hidden_size));
        }
        let h = shape.hidden_size;
        let read = |name: &str, len: usize| -> Result<Vec<f32>, String> {
            let t = tensors.get(name).ok_or_else(|| format!("tensor {name} is missing"))?;
            let v = t
                .to_dtype(DType::F32)
                .and_then(|t| t.flatten_all())
                .and_then(|t| t.to_vec1::<f32>())
                .map_err(|e| format!("tensor {name}: {e}"))?;
            if v.len() == len { Ok(v) } else { Err(format!("tensor {name} has {} values, expected {len}", v.len())) }
        };
        let eps = shape.layer_norm_eps as f32;
        let norm = |prefix: &str| -> Result<Norm, String> {
            Ok(Norm { gain: read(&format!("{prefix}.weight"), h)?, bias: read(&format!("{prefix}.bias"), h)?, eps })
        };
        let dense = |prefix: &str, inp: usize, out: usize| -> Result<(Vec<f32>, Vec<f32>), String> {
            Ok((read(&format!("{prefix}.weight"), inp * out)?, read(&format!("{prefix}.bias"), out)?))
        };
        let mut layers = Vec::with_capacity(shape.num_hidden_layers);
        for i in 0..shape.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            let (q, k, v) = (
                dense(&format!("{p}.attention.self.query"), h, h)?,
                dense(&format!("{p}.attention.self.key"), h, h)?,
                dense(&format!("{p}.attention.self.value"), h, h)?,
            );
            let qkv = Dense::new(&[q.0, k.0, v.0].concat(), [q.1, k.1, v.1].concat(), h, 3 * h);
            let layer = |name: &str, inp: usize, out: usize| -> Result<Dense, String> {
                let (weight, bias) = dense(&format!("{p}.{name}"), inp, out)?;
                Ok(Dense::new(&weight, bias, inp, out))
            };
            layers.push(Layer {
                qkv,
                attention_out: layer("attention.output.dense", h, h)?,
                attention_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
                up: layer("intermediate.dense", h, shape.intermediate_size)?,
                down: layer("output.dense", shape.intermediate_size, h)?,
                out_norm: norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        Ok(Encoder {
            words: read("embeddings.word_embeddings.weight", shape.vocab_size * h)?,
            positions: read("embeddings.position_embeddings.weight", shape.max_position_embeddings * h)?,
            types: read("embeddings.token_type_embeddings.weight", shape.type_vocab_size * h)?,
            embedding_norm: norm("embeddings.LayerNorm")?,
            layers,
            hidden: h,
            heads: shape.num_attention_heads,
            max_positions: shape.max_position_embeddings,
            type_count: shape.type_vocab_size,
        })
    }

    /// The hidden width (the length of each pooled vector).
    pub(crate) fn hidden(&self) -> usize {
        self.hidden
    }

    /// The mean of the last layer's token states of each sequence, `hidden` values each, in
    /// order, the sequences shared among up to `threads` threads of rayon's pool (in runs of
    /// about equal tokens): a fact-check's two passages are read at once on two cores. A sequence's states depend on its own tokens alone, so the split changes no value.
    ///
    /// # Errors
    /// A sequence is empty, longer than the position table, or names a token or type id the
    /// tables do not have.
    pub(crate) fn pooled_on(&self, sequences: &[Sequence<'_>], threads: usize) -> Result<Vec<f32>, String> {
        let threads = threads.clamp(1, sequences.len().max(1));
        if threads == 1 {
            return self.pooled(sequences);
        }
        let total: usize = sequences.iter().map(|s| s.ids.len()).sum();
        let mut runs: Vec<&[Sequence<'_>]> = Vec::with_capacity(threads);
        let (mut start, mut seen) = (0, 0);
        for (i, s) in sequences.iter().enumerate() {
            seen += s.ids.len();
            // Close a run once it holds its share of the tokens, or when the sequences left are
            // only enough for the runs still to fill (the last run takes the rest).
            let closing = runs.len() + 1;
            if closing < threads && (seen * threads >= total * closing || sequences.len() - (i + 1) == threads - closing) {
                runs.push(&sequences[start..=i]);
                start = i + 1;
            }
        }
        if start < sequences.len() {
            runs.push(&sequences[start..]);
        }
        // rayon's pool, not threads spawned per call: its threads live for the process, so their
        // allocator heaps do too (a thread spawned for each of an audit's model calls left its
        // heap behind on exit: `scripts/bench-models.py`'s models-on run peaked at 542 MB that
        // way, 469 MB on the pool, as with candle's pass).
        let results: Vec<Result<Vec<f32>, String>> = runs.par_iter().map(|run| self.pooled(run)).collect();
        let mut pooled = Vec::with_capacity(sequences.len() * self.hidden);
        for r in results {
            pooled.extend(r?);
        }
        Ok(pooled)
    }

    /// [`Encoder::pooled_on`] on this thread alone.
    fn pooled(&self, sequences: &[Sequence<'_>]) -> Result<Vec<f32>, String> {
        let h = self.hidden;
        let vocab = self.words.len() / h;
        for (i, s) in sequences.iter().enumerate() {
            if s.ids.is_empty() || s.ids.len() > self.max_positions || s.types.len() != s.ids.len() {
                return Err(format!(
                    "sequence {i}: {} tokens, {} type ids (1 to {} tokens)",
                    s.ids.len(),
                    s.types.len(),
                    self.max_positions
                ));
            }
            if s.ids.iter().any(|&t| t as usize >= vocab) || s.types.iter().any(|&t| t as usize >= self.type_count) {
                return Err(format!("sequence {i}: a token or type id outside the tables"));
            }
        }
        let lens: Vec<usize> = sequences.iter().map(|s| s.ids.len()).collect();
        let rows: usize = lens.iter().sum();
        let mut x = Vec::with_capacity(rows * h);
        for s in sequences {
            for (pos, (&id, &ty)) in s.ids.iter().zip(s.types).enumerate() {
                let (w, p, t) = (id as usize * h, pos * h, ty as usize * h);
                x.extend((0..h).map(|j| self.words[w + j] + self.positions[p + j] + self.types[t + j]));
            }
        }
        self.embedding_norm.apply(&mut x);
        let mut scratch = Scratch::default();
        for layer in &self.layers {
            self.layer(layer, &mut x, &lens, &mut scratch);
        }
        let mut pooled = Vec::with_capacity(sequences.len() * h);
        let mut start = 0;
        for &len in &lens {
            let mut sum = vec![0f32; h];
            for row in x[start * h..(start + len) * h].chunks_exact(h) {
                for (s, v) in sum.iter_mut().zip(row) {
                    *s += v;
                }
            }
            pooled.extend(sum.into_iter().map(|s| s / len as f32));
            start += len;
        }
        Ok(pooled)
    }

    /// One layer over every sequence's rows (`lens` of them each, in order), in place.
    fn layer(&self, layer: &Layer, x: &mut [f32], lens: &[usize], s: &mut Scratch) {
        let h = self.hidden;
        let rows = x.len() / h;
        layer.qkv.apply(x, rows, &mut s.qkv);
        s.context.clear();
        s.context.resize(rows * h, 0.0);
        let head = h / self.heads;
        let scale = 1.0 / (head as f32).sqrt();
        let mut start = 0;
        for &len in lens {
            s.scores.resize(len * len, 0.0);
            for k in 0..self.heads {
                let base = start * 3 * h + k * head;
                let q = strided(&s.qkv[base..], len, head, 3 * h);
                let key = strided(&s.qkv[base + h..], len, head, 3 * h);
                let value = strided(&s.qkv[base + 2 * h..], len, head, 3 * h);
                let mut scores = ArrayViewMut2::from_shape((len, len), &mut s.scores[..len * len])
                    .unwrap_or_else(|_| unreachable!("invariant: scores holds len x len"));
                general_mat_mul(scale, &q, &key.t(), 0.0, &mut scores);
                for row in s.scores.chunks_exact_mut(len) {
                    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    let mut sum = 0.0;
                    for v in row.iter_mut() {
                        *v = (*v - max).exp();
                        sum += *v;
                    }
                    for v in row.iter_mut() {
                        *v /= sum;
                    }
                }
                let scores =
                    ArrayView2::from_shape((len, len), &s.scores[..len * len]).unwrap_or_else(|_| unreachable!("invariant: as above"));
                let offset = start * h + k * head;
                let mut out = ArrayViewMut2::from_shape((len, head).strides((h, 1)), &mut s.context[offset..offset + (len - 1) * h + head])
                    .unwrap_or_else(|_| unreachable!("invariant: the head's columns of the sequence's rows"));
                general_mat_mul(1.0, &scores, &value, 0.0, &mut out);
            }
            start += len;
        }
        layer.attention_out.apply(&s.context, rows, &mut s.projected);
        for (v, r) in s.projected.iter_mut().zip(x.iter()) {
            *v += r;
        }
        layer.attention_norm.apply(&mut s.projected);
        layer.up.apply(&s.projected, rows, &mut s.up);
        for v in s.up.iter_mut() {
            *v = gelu(*v);
        }
        layer.down.apply(&s.up, rows, &mut s.context);
        for (v, r) in s.context.iter_mut().zip(&s.projected) {
            *v += r;
        }
        layer.out_norm.apply(&mut s.context);
        x.copy_from_slice(&s.context);
    }
}

/// `rows` rows of `cols` values, `stride` apart, from the start of `data`: one head's columns of
/// a sequence's rows in the fused projection.
fn strided(data: &[f32], rows: usize, cols: usize, stride: usize) -> ArrayView2<'_, f32> {
    ArrayView2::from_shape((rows, cols).strides((stride, 1)), &data[..(rows - 1) * stride + cols])
        .unwrap_or_else(|_| unreachable!("invariant: the slice holds every strided row"))
}

/// The exact GELU, `x Φ(x)`, as BERT was trained with it.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + libm::erff(x * std::f32::consts::FRAC_1_SQRT_2))
}
