//! `amem eval claims`: the claim extractor's classifier against hand labels
//! ("audited claim or not", and kind). With no `--labels`, the labels
//! committed in `crates/extract/eval/labels.jsonl` (compiled in) are used.
//! The ClaimBuster dev half (`--claimbuster`, default
//! `../shared/eval/claimbuster/labels.jsonl`) is scored beside them when it
//! is there, each set whole and in its tuning and checking halves.

use crate::Exit;
use crate::printer::{Ctx, write_json_line};
use amem_eval::claims::{
    BUNDLED_LABELS, BUNDLED_LABELS_NAME, CLAIMBUSTER_DEV, halves_markdown, load_labels, model_parts_markdown, parse_labels,
    score_with_model,
};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// Output format.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// A readable table
    Text,
    /// One JSON object
    Json,
}

#[derive(clap::Args, Debug)]
pub(crate) struct ClaimsArgs {
    /// JSON-lines labels: {"source","text","audited","kind"} per line [default: the committed labels]
    #[arg(long, value_name = "FILE")]
    labels: Option<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Also list every sentence whose kind differs from its label
    #[arg(long)]
    misses: bool,
    /// Crowd check-worthiness labels scored beside the hand labels (skipped when absent)
    #[arg(long, value_name = "FILE", default_value = CLAIMBUSTER_DEV)]
    claimbuster: PathBuf,
}

pub(crate) fn run(a: ClaimsArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let (labels, name) = match &a.labels {
        Some(p) => (load_labels(p).with_context(|| format!("loading labels from {}", p.display()))?, p.display().to_string()),
        None => (parse_labels(BUNDLED_LABELS, BUNDLED_LABELS_NAME)?, BUNDLED_LABELS_NAME.to_string()),
    };
    if labels.is_empty() {
        anyhow::bail!("no labels in {name}: expected one JSON object per line with source, text, audited and kind");
    }
    let model = ctx.check_worthiness()?;
    let mut s = score_with_model(&labels, model);
    let claimbuster = if a.claimbuster.is_file() {
        Some(load_labels(&a.claimbuster).with_context(|| format!("loading labels from {}", a.claimbuster.display()))?)
    } else {
        None
    };
    let cb_name = format!("ClaimBuster dev ({})", a.claimbuster.display());
    let mut out = ctx.stdout();
    match a.format {
        Format::Json => {
            if !a.misses {
                s.misses.clear();
            }
            let cb = claimbuster.as_deref().map(|l| {
                let mut c = score_with_model(l, model);
                c.misses.clear();
                c
            });
            let v = serde_json::json!({ "labels": name, "score": s, "claimbuster": { "labels": a.claimbuster.display().to_string(), "score": cb } });
            write_json_line(&mut out, &v)?;
        }
        Format::Text => {
            out.write_all(s.figures_markdown(&name).as_bytes())?;
            writeln!(out)?;
            writeln!(out, "confusion (label → classifier):")?;
            for (label, row) in &s.confusion {
                let cells: Vec<String> = row.iter().map(|(k, n)| format!("{}={n}", k.as_str())).collect();
                writeln!(out, "  {:<12} {}", label.as_str(), cells.join(" "))?;
            }
            writeln!(out)?;
            writeln!(out, "audited claim by label set and half (tuning half: what the rules were tuned on):")?;
            let mut sets: Vec<(&str, &[amem_eval::claims::Label])> = vec![(name.as_str(), &labels)];
            match &claimbuster {
                Some(cb) => sets.push((cb_name.as_str(), cb)),
                None => writeln!(out, "({} not found: ClaimBuster skipped)", a.claimbuster.display())?,
            }
            out.write_all(halves_markdown(&sets).as_bytes())?;
            if let (Some(m), Some(cb)) = (model, &claimbuster) {
                writeln!(out)?;
                writeln!(out, "the check-worthiness model beside the rules, by the part of ClaimBuster dev its training split it into:")?;
                out.write_all(model_parts_markdown("ClaimBuster dev", cb, m).as_bytes())?;
            }
            if a.misses {
                writeln!(out)?;
                writeln!(out, "misses (label → classifier):")?;
                for m in &s.misses {
                    writeln!(out, "  {} → {}\t{}\t{}", m.expected.as_str(), m.got.as_str(), m.source, m.text.replace('\n', " "))?;
                }
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}
