//! The few numeric helpers the plain-loop models share: reading a safetensors tensor as
//! f32 values, the dot product, and cutting a text to the bytes a model reads.

use crate::ModelError;
use candle_core::{DType, Tensor};
use std::collections::HashMap;

/// A tensor of `file`'s weights as f32 values, with its shape.
pub(crate) fn tensor(map: &HashMap<String, Tensor>, file: &str, name: &str) -> Result<(Vec<f32>, Vec<usize>), ModelError> {
    let t = map.get(name).ok_or_else(|| ModelError::Load(format!("{file}: no tensor {name}")))?;
    let shape = t.dims().to_vec();
    let values = t
        .to_dtype(DType::F32)
        .and_then(|t| t.flatten_all())
        .and_then(|t| t.to_vec1::<f32>())
        .map_err(|e| ModelError::Load(format!("{file} ({name}): {e}")))?;
    Ok((values, shape))
}

/// The dot product of two equal-length slices, in eight lanes so the compiler vectorises it
/// (a plain sum over `zip` must keep the order of additions and so stays scalar).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// The first `bytes` bytes of `text`, cut back to a character boundary: what a model
/// tokenizes of a text that may be a megabyte paste.
pub(crate) fn prefix(text: &str, bytes: usize) -> &str {
    let mut cut = text.len().min(bytes);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}
