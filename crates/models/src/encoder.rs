//! The verifier's BERT encoder, computed on plain `f32` rows with `matrixmultiply`'s sgemm (through
//! `ndarray`'s safe `general_mat_mul`, which hands it the views' strides).
//!
//! Why not candle's `BertModel`, which loads the same tensors (docs/adr/0005-verifier-encoder-pass.md):
//! on this project's machine (two cores with AVX-512) candle's CPU matrix product (the `gemm`
//! crate) ran a 1280x384 by 384x1536 product at 57 GFLOPS on two threads, `matrixmultiply` at
//! 139 on one (PyTorch's at 165), and the rest of candle's pass (a thread handoff per operation,
//! a tensor allocated per step, the GELU's `erf` and the softmax's `exp` element by element)
//! took as long again: an MCP fact-check that consulted the model took up to 244 ms at p99,
//! against a budget of 50. Here each sequence is computed at its own length (no padding, so no
//! attention mask: a padded position never reached a real token's state, nor the mean), the
//! three attention projections are one product, the GELU and softmax loops vectorise (compiled for
//! the CPU's vector unit at run time, through pulp), and the
//! work is shared among rayon's threads by sequence, or for a single passage by the products'
//! columns and the attention's heads. Every split computes each value the same way, so a
//! passage scores the same bits however it was shared. `crates/models/tests/encoder_reference.rs`
//! holds this pass to candle's; `benches/verifier.rs` times the two side by side.

use candle_core::{DType, Tensor};
use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, Axis, ShapeBuilder, Slice};
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

    /// `rows` rows of `x` (`inp` wide) into `y` (`out` wide), replacing it, the output's columns
    /// shared among `parts` threads.
    fn apply(&self, x: &[f32], rows: usize, y: &mut Vec<f32>, parts: usize) {
        self.apply_then(x, rows, y, parts, |_| {});
    }

    /// [`Dense::apply`], then `then` on each row's run of output values, on the thread that
    /// computed them (an element-wise activation shared among the threads with the product).
    fn apply_then(&self, x: &[f32], rows: usize, y: &mut Vec<f32>, parts: usize, then: impl Fn(&mut [f32]) + Sync) {
        y.clear();
        y.reserve(rows * self.out);
        for _ in 0..rows {
            y.extend_from_slice(&self.bias);
        }
        let x = ArrayView2::from_shape((rows, self.inp), x).unwrap_or_else(|_| unreachable!("invariant: x holds rows x inp values"));
        let y = ArrayViewMut2::from_shape((rows, self.out), y.as_mut_slice())
            .unwrap_or_else(|_| unreachable!("invariant: y was filled to rows x out"));
        product_by_columns(&x, self.weight_t(), y, parts, &then);
    }
}

/// `y += x w`, then `then` on each row's run of `y`'s values, the columns of `w` and `y` shared
/// among `parts` threads of rayon's pool. Each output value is the same sum in the same order
/// whichever thread computes it.
fn product_by_columns<F: Fn(&mut [f32]) + Sync>(
    x: &ArrayView2<'_, f32>,
    w: ArrayView2<'_, f32>,
    mut y: ArrayViewMut2<'_, f32>,
    parts: usize,
    then: &F,
) {
    // Below this many columns a part is not worth a thread.
    const MIN_COLUMNS: usize = 64;
    let cols = w.ncols();
    if parts <= 1 || cols < 2 * MIN_COLUMNS {
        general_mat_mul(1.0, x, &w, 1.0, &mut y);
        for mut row in y.rows_mut() {
            then(row.as_slice_mut().unwrap_or_else(|| unreachable!("invariant: y's rows are contiguous (row-major, split by columns)")));
        }
        return;
    }
    let left_parts = parts / 2;
    // A multiple of 16 columns: whole tiles of the product's kernel on each side.
    let mid = (cols * left_parts / parts) / 16 * 16;
    let (w_left, w_right) = w.split_at(Axis(1), mid);
    let (y_left, y_right) = y.split_at(Axis(1), mid);
    rayon::join(
        || product_by_columns(x, w_left, y_left, left_parts, then),
        || product_by_columns(x, w_right, y_right, parts - left_parts, then),
    );
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
    /// order, computed on up to `threads` threads of rayon's pool: the sequences in runs of about
    /// equal tokens (a fact-check's two passages read at once on two cores), or, with fewer
    /// sequences than threads, each operation shared. Every value is computed the same way
    /// whichever thread computes it, so the split changes no bit of the answer.
    ///
    /// # Errors
    /// A sequence is empty, longer than the position table, or names a token or type id the
    /// tables do not have.
    pub(crate) fn pooled_on(&self, sequences: &[Sequence<'_>], threads: usize) -> Result<Vec<f32>, String> {
        if sequences.len() < threads {
            // Fewer sequences than threads (one passage read alone): each operation is shared
            // instead, the products by columns, the attention by heads.
            return self.pooled(sequences, threads);
        }
        let threads = threads.max(1);
        if threads == 1 {
            return self.pooled(sequences, 1);
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
        let results: Vec<Result<Vec<f32>, String>> = runs.par_iter().map(|run| self.pooled(run, 1)).collect();
        let mut pooled = Vec::with_capacity(sequences.len() * self.hidden);
        for r in results {
            pooled.extend(r?);
        }
        Ok(pooled)
    }

    /// [`Encoder::pooled_on`] with each operation shared among `parts` threads (1: this one).
    fn pooled(&self, sequences: &[Sequence<'_>], parts: usize) -> Result<Vec<f32>, String> {
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
            self.layer(layer, &mut x, &lens, &mut scratch, parts);
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

    /// One layer over every sequence's rows (`lens` of them each, in order), in place, each
    /// operation shared among `parts` threads.
    fn layer(&self, layer: &Layer, x: &mut [f32], lens: &[usize], s: &mut Scratch, parts: usize) {
        let h = self.hidden;
        let rows = x.len() / h;
        layer.qkv.apply(x, rows, &mut s.qkv, parts);
        s.context.clear();
        s.context.resize(rows * h, 0.0);
        let head = h / self.heads;
        let qkv = &s.qkv;
        let context = ArrayViewMut2::from_shape((rows, h), &mut s.context[..]).unwrap_or_else(|_| unreachable!("invariant: rows x h"));
        let parts = parts.clamp(1, self.heads);
        if parts == 1 {
            attend(qkv, context, lens, 0..self.heads, head, &mut s.scores);
        } else {
            // The heads in `parts` runs, each writing its own columns of the context.
            let mut runs = Vec::with_capacity(parts);
            let mut rest = context;
            let mut first = 0;
            for p in 0..parts {
                let last = self.heads * (p + 1) / parts;
                let (mine, others) = rest.split_at(Axis(1), (last - first) * head);
                runs.push((first..last, mine));
                rest = others;
                first = last;
            }
            runs.into_par_iter().for_each(|(heads, columns)| attend(qkv, columns, lens, heads, head, &mut Vec::new()));
        }
        layer.attention_out.apply(&s.context, rows, &mut s.projected, parts);
        for (v, r) in s.projected.iter_mut().zip(x.iter()) {
            *v += r;
        }
        layer.attention_norm.apply(&mut s.projected);
        layer.up.apply_then(&s.projected, rows, &mut s.up, parts, gelu_all);
        layer.down.apply(&s.up, rows, &mut s.context, parts);
        for (v, r) in s.context.iter_mut().zip(&s.projected) {
            *v += r;
        }
        layer.out_norm.apply(&mut s.context);
        x.copy_from_slice(&s.context);
    }
}

/// Self-attention of `heads` (a range of the layer's heads, `head` wide each) over every
/// sequence's rows (`lens`) of the fused projection `qkv`, written into `context`: the columns
/// of those heads, from the first, for every row.
fn attend(
    qkv: &[f32],
    mut context: ArrayViewMut2<'_, f32>,
    lens: &[usize],
    heads: std::ops::Range<usize>,
    head: usize,
    scores: &mut Vec<f32>,
) {
    // The hidden width: a row of the fused projection holds the queries, keys and values.
    let h = qkv.len() / (3 * context.nrows().max(1));
    let scale = 1.0 / (head as f32).sqrt();
    let first = heads.start;
    let mut start = 0;
    for &len in lens {
        scores.resize(len * len, 0.0);
        for k in heads.clone() {
            let base = start * 3 * h + k * head;
            let q = strided(&qkv[base..], len, head, 3 * h);
            let key = strided(&qkv[base + h..], len, head, 3 * h);
            let value = strided(&qkv[base + 2 * h..], len, head, 3 * h);
            let mut weights =
                ArrayViewMut2::from_shape((len, len), &mut scores[..len * len]).unwrap_or_else(|_| unreachable!("invariant: len x len"));
            general_mat_mul(scale, &q, &key.t(), 0.0, &mut weights);
            vectorized(
                #[inline(always)]
                || {
                    for row in scores.chunks_exact_mut(len) {
                        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                        for v in row.iter_mut() {
                            *v = exp_nonpositive(*v - max);
                        }
                        let sum: f32 = row.iter().sum();
                        for v in row.iter_mut() {
                            *v /= sum;
                        }
                    }
                },
            );
            let weights = ArrayView2::from_shape((len, len), &scores[..len * len]).unwrap_or_else(|_| unreachable!("invariant: as above"));
            let col = (k - first) * head;
            let mut sequence_rows = context.slice_axis_mut(Axis(0), Slice::from(start..start + len));
            let mut out = sequence_rows.slice_axis_mut(Axis(1), Slice::from(col..col + head));
            general_mat_mul(1.0, &weights, &value, 0.0, &mut out);
        }
        start += len;
    }
}

/// `rows` rows of `cols` values, `stride` apart, from the start of `data`: one head's columns of
/// a sequence's rows in the fused projection.
fn strided(data: &[f32], rows: usize, cols: usize, stride: usize) -> ArrayView2<'_, f32> {
    ArrayView2::from_shape((rows, cols).strides((stride, 1)), &data[..(rows - 1) * stride + cols])
        .unwrap_or_else(|_| unreachable!("invariant: the slice holds every strided row"))
}

/// [`gelu`] over `values`, its loop compiled for the widest vector unit the CPU has (pulp's
/// run-time dispatch: AVX2 with FMA where present, else the build's baseline, 4 wide without
/// FMA). The same operations in the same order, so the same bits.
fn gelu_all(values: &mut [f32]) {
    vectorized(
        #[inline(always)]
        || {
            for v in values {
                *v = gelu(*v);
            }
        },
    );
}

/// Run `f` compiled for the widest vector unit the CPU has (pulp's run-time dispatch: AVX2 with
/// FMA where present, else the build's baseline), for the element-wise loops around the
/// products. Floating-point operations are neither reordered nor fused by it, so the answers are
/// the same bits on either path; `f` and what it calls must be inlined to be compiled so.
fn vectorized(f: impl FnOnce()) {
    static ARCH: std::sync::LazyLock<pulp::Arch> = std::sync::LazyLock::new(pulp::Arch::new);
    ARCH.dispatch(f);
}

/// The exact GELU, `x Φ(x)`, as BERT was trained with it: `x/2 (2 - erfc(z))` for `x >= 0`,
/// `x/2 erfc(z)` below, `z = |x|/√2`, with [`erfc`]. Written without branches or calls, so the
/// loop over a layer's activations is vectorised: with libm's `erff` the GELU and the softmax's
/// `exp` were a third of a one-pair pass.
#[inline(always)]
fn gelu(x: f32) -> f32 {
    let e = erfc(x.abs() * std::f32::consts::FRAC_1_SQRT_2);
    0.5 * x * if x >= 0.0 { 2.0 - e } else { e }
}

/// The complementary error function of `z >= 0`, to a relative error under 1.2e-7: the
/// Chebyshev fit `t exp(-z² + P(t))`, `t = 1 / (1 + z/2)`, published in Numerical Recipes
/// (`erfcc`).
#[inline(always)]
fn erfc(z: f32) -> f32 {
    const P: [f32; 10] = [
        -1.265_512_2,
        1.000_023_7,
        0.374_091_96,
        0.096_784_18,
        -0.186_288_06,
        0.278_868_07,
        -1.135_204,
        1.488_515_9,
        -0.822_152_23,
        0.170_872_77,
    ];
    let t = 1.0 / (1.0 + 0.5 * z);
    let mut p = P[9];
    for c in P[..9].iter().rev() {
        p = p * t + c;
    }
    t * exp_nonpositive(p - z * z)
}

/// `e^x` for `x <= 0` (inputs below -87 give e^-87, about 1.6e-38), to about two units in the
/// last place: `2^n e^r` with `n` the nearest integer to `x / ln 2`, `r` what is left (split
/// ln 2 in two so `r` is exact), `e^r` by its Taylor series to the sixth power (`|r| <= 0.35`).
#[inline(always)]
fn exp_nonpositive(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // Adding 1.5 * 2^23 rounds to the nearest integer and leaves it in the low bits of the sum:
    // `n` and `2^n` come from there without a float-to-integer conversion, whose saturation
    // kept the loop from vectorising (`round` is a call where the target has no instruction).
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 0.0);
    let k = x * std::f32::consts::LOG2_E + ROUND;
    let n = k - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    p * f32::from_bits(k.to_bits().wrapping_sub(ROUND.to_bits()).wrapping_add(127) << 23)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_gelu_match_the_library_functions() {
        let mut worst_exp = 0f32;
        let mut worst_gelu = 0f32;
        for i in 0..=200_000 {
            let x = -87.0 + 87.0 * i as f32 / 200_000.0;
            let (ours, libm) = (exp_nonpositive(x), x.exp());
            worst_exp = worst_exp.max(((ours - libm) / libm).abs());
            let g = -12.0 + 24.0 * i as f32 / 200_000.0;
            let exact = 0.5 * g * (1.0 + libm::erff(g * std::f32::consts::FRAC_1_SQRT_2));
            worst_gelu = worst_gelu.max((gelu(g) - exact).abs() / g.abs().max(1.0));
        }
        assert!(worst_exp < 4e-7, "exp: relative error {worst_exp}");
        assert!(worst_gelu < 4e-7, "gelu: error {worst_gelu}");
        assert_eq!(exp_nonpositive(0.0), 1.0);
        assert!(exp_nonpositive(-1e9) > 0.0 && exp_nonpositive(-1e9) < 1e-37);
        assert_eq!(gelu(0.0), 0.0);
        assert!(gelu(-1e4).abs() < 1e-30 && (gelu(1e4) - 1e4).abs() < 1e-3);
    }
}
