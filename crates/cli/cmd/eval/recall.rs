//! `amem eval recall --corpus DIR`: the recall presence instrument with its
//! shuffled control (see `amem_eval::recall`). DIR is one set, Climate-FEVER
//! shaped (`corpus.jsonl`, `claims.jsonl`, e.g. `../shared/eval/climate_fever`)
//! or verification pairs (`pairs.jsonl`), or a folder of sets
//! (`../shared/eval`: every readable set in it). Each set is indexed as a
//! wiki in a temporary home, never in `$AMEM_HOME`.
//!
//! stdout: `--format markdown` (default) the table published in docs/benchmarks.md;
//! `--format json` one report object per set and line.

use crate::Exit;
use crate::printer::{Ctx, RecallMethodArg, write_json_line};
use amem_recall::RecallMethod;
use anyhow::Context as _;
use std::io::Write;
use std::path::PathBuf;

/// Output formats of `amem eval recall`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RecallFormat {
    /// The docs/benchmarks.md block: a sentence on the set, then a table per k
    Markdown,
    /// One JSON object with every count
    Json,
}

/// Arguments of `amem eval recall`.
#[derive(clap::Args, Debug)]
pub(crate) struct RecallEvalArgs {
    /// A set folder (corpus.jsonl + claims.jsonl, or pairs.jsonl) or a folder of sets
    #[arg(long, value_name = "DIR")]
    pub corpus: PathBuf,
    /// Context sizes (chunks) to score, comma-separated
    #[arg(long, value_delimiter = ',', default_values_t = amem_eval::recall::DEFAULT_KS.to_vec())]
    pub k: Vec<usize>,
    /// Recall methods to score, comma-separated (dense and hybrid need the models)
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = vec![RecallMethodArg::Bm25, RecallMethodArg::Dense, RecallMethodArg::Hybrid])]
    pub method: Vec<RecallMethodArg>,
    /// Output format
    #[arg(long, value_enum, default_value_t = RecallFormat::Markdown)]
    pub format: RecallFormat,
}

pub(crate) fn run(a: RecallEvalArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    if a.k.is_empty() || a.k.contains(&0) {
        anyhow::bail!("--k needs one or more sizes of at least 1, e.g. --k 1,3,5");
    }
    let sets = amem_eval::recall::corpora(&a.corpus);
    if sets.is_empty() {
        anyhow::bail!(
            "no evaluation set in {}: a set folder holds corpus.jsonl and claims.jsonl (e.g. ../shared/eval/climate_fever) or pairs.jsonl",
            a.corpus.display()
        );
    }
    let methods: Vec<RecallMethod> = a.method.iter().map(|&m| m.into()).collect();
    let embedder = ctx.meaning()?.map(|m| m.embedder);
    if embedder.is_none() && methods.iter().any(|m| m.reads_vectors()) {
        return Err(
            crate::UsageError("--method dense and hybrid read the static embedder: drop --no-models, or use --method bm25".into()).into()
        );
    }
    let mut reports = Vec::with_capacity(sets.len() * methods.len());
    for dir in &sets {
        let pb = ctx.progress_bar(None, &format!("recall {}", dir.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()));
        let report = amem_eval::recall::run(dir, &a.k, &methods, embedder, &mut |done, total| {
            pb.set_length(total as u64);
            pb.set_position(done as u64);
        });
        pb.finish_and_clear();
        reports.extend(report.with_context(|| format!("cannot score {}", dir.display()))?);
    }
    let mut out = ctx.stdout();
    match a.format {
        RecallFormat::Markdown => out.write_all(amem_eval::recall::markdown_table(&reports).as_bytes())?,
        RecallFormat::Json => {
            for r in &reports {
                write_json_line(&mut out, r)?;
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}
