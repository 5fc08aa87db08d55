//! `amem eval verify --corpus DIR`: score the deterministic verifier on the
//! claim–evidence sets under DIR (`fever_symmetric`, `healthver`,
//! `covid_fact`, `wice` pairs, and `climate_fever` assembled from its claims
//! and corpus; see `amem_eval::verify`).
//!
//! Every figure comes with its shuffled control: the same measure with each
//! claim verified against the evidence of the next document's claim (a fixed
//! rotation), and the margin between the two.
//!
//! stdout: `--format markdown` (default) prints the tables kept in the
//! README's `verify` section; `--format json` prints one JSON object per set
//! (accuracy, macro_f1, balanced_accuracy, per-class precision/recall/f1, the
//! confusion table, the statuses given, `floor`, and the same figures under
//! `shuffled` with their `margin`). Exit 1 when a set cannot be read.

use crate::Exit;
use crate::printer::{Ctx, write_json_line};
use amem_eval::verify as eval;
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// Output format.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Format {
    /// The markdown tables of the README
    #[default]
    Markdown,
    /// One JSON object per set
    Json,
}

/// Arguments of `amem eval verify`.
#[derive(clap::Args, Debug)]
pub(crate) struct VerifyEvalArgs {
    /// Folder holding the sets (e.g. ../shared/eval): fever_symmetric/, healthver/, covid_fact/, wice/, climate_fever/
    #[arg(long, value_name = "DIR")]
    pub corpus: PathBuf,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
}

pub(crate) fn run(a: VerifyEvalArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let sets = eval::load_corpus(&a.corpus).with_context(|| format!("cannot load the claim-evidence sets in {}", a.corpus.display()))?;
    let total: u64 = sets.iter().map(|(_, p)| p.len() as u64).sum();
    let pb = ctx.progress_bar(Some(total), "verify");
    let mut scores = Vec::new();
    for (name, pairs) in &sets {
        pb.set_message(name.clone());
        scores.push(eval::score_with_control(name, pairs));
        pb.inc(pairs.len() as u64);
    }
    pb.finish_and_clear();
    let mut out = ctx.stdout();
    match a.format {
        Format::Markdown => out.write_all(eval::render_markdown(&scores).as_bytes())?,
        Format::Json => {
            for s in &scores {
                write_json_line(&mut out, &eval::to_json(s))?;
            }
        }
    }
    out.flush()?;
    ctx.note(format!("{} sets, {total} pairs scored with {}", scores.len(), amem_verify::METHOD));
    Ok(Exit::Success)
}
