//! `amem eval recall --corpus DIR`: the recall presence instrument with its
//! shuffled control (see `amem_recall::presence`). DIR is a Climate-FEVER
//! shaped folder (`corpus.jsonl`, `claims.jsonl`), e.g.
//! `../shared/eval/climate_fever`; the corpus is indexed as a wiki in a
//! temporary home, never in `$AMEM_HOME`.
//!
//! stdout: `--format markdown` (default) the block published in the README;
//! `--format json` the whole report as one JSON object.

use crate::Exit;
use crate::printer::{Ctx, write_json_line};
use anyhow::Context as _;
use std::io::Write;
use std::path::PathBuf;

/// Output formats of `amem eval recall`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RecallFormat {
    /// The README block: a sentence on the set, then a table per k
    Markdown,
    /// One JSON object with every count
    Json,
}

/// Arguments of `amem eval recall`.
#[derive(clap::Args, Debug)]
pub(crate) struct RecallEvalArgs {
    /// The corpus folder holding corpus.jsonl and claims.jsonl
    #[arg(long, value_name = "DIR")]
    pub corpus: PathBuf,
    /// Context sizes (chunks) to score, comma-separated
    #[arg(long, value_delimiter = ',', default_values_t = vec![1usize, 3, 5])]
    pub k: Vec<usize>,
    /// Output format
    #[arg(long, value_enum, default_value_t = RecallFormat::Markdown)]
    pub format: RecallFormat,
}

pub(crate) fn run(a: RecallEvalArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    if a.k.is_empty() || a.k.contains(&0) {
        anyhow::bail!("--k needs one or more sizes of at least 1, e.g. --k 1,3,5");
    }
    let pb = ctx.progress_bar(None, "recall");
    let report = amem_recall::presence::run(&a.corpus, &a.k, &mut |done, total| {
        pb.set_length(total as u64);
        pb.set_position(done as u64);
    });
    pb.finish_and_clear();
    let report = report.with_context(|| {
        format!("cannot score {}: it should hold corpus.jsonl and claims.jsonl (e.g. ../shared/eval/climate_fever)", a.corpus.display())
    })?;
    let mut out = ctx.stdout();
    match a.format {
        RecallFormat::Markdown => out.write_all(report.to_markdown().as_bytes())?,
        RecallFormat::Json => write_json_line(&mut out, &report)?,
    }
    out.flush()?;
    Ok(Exit::Success)
}
