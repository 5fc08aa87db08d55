//! `amem gate`, `amem inspect`, `amem drift`: the deterministic gate from the
//! command line.
//!
//! Inputs: `--source FILE --memory FILE` (one pair), or `--pairs FILE`: JSON
//! Lines (`{"id","source","memory"}` per line) or CSV with a header naming
//! the columns `id`, `source`, `memory`; the format is taken from the
//! extension (`.jsonl`/`.ndjson`/`.json` vs `.csv`), else from the first
//! non-blank byte (`{` means JSON Lines). `amem drift --chain FILE` reads JSON
//! Lines, one version per line, each either `{"text": "..."}` or a bare JSON
//! string `"..."`, oldest first.
//!
//! stdout: `--format json` prints one JSON object per input pair
//! (`{"id","verdict","flags","alignment","not_checked","threshold"}` for
//! gate, `{"id","verdict","changes","not_checked"}` for inspect, one
//! drift report for drift); `--format text` (default) is for people.
//! stderr: one `error: FILE:LINE: ...` per malformed line (the rest are
//! processed) and a closing count. Exit 0 (also with skipped lines, unless
//! `--strict`), 1 on unreadable files.
//!
//! With a `[[models]]` entry playing a gate role (witness, added_content), `amem gate` asks
//! it as a second reader (`amem_gate::check_with`); `--fix` asks the fixer role for a rewrite
//! of a REWRITE memory, printed (under `"fix"` in JSON) only when it passes the same gate, and
//! never written back: the memory file is only read.

use crate::Exit;
use crate::printer::{Ctx, write_json_line};
use amem_gate::{DriftReport, GateReport, InspectReport};
use anyhow::Context;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Output format.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Format {
    /// Human-readable text
    #[default]
    Text,
    /// One JSON object per input line
    Json,
}

/// Arguments of `amem gate` and `amem inspect`.
#[derive(clap::Args, Debug)]
pub(crate) struct GateArgs {
    /// The text the memory was written from
    #[arg(long, value_name = "FILE", requires = "memory", conflicts_with = "pairs", required_unless_present = "pairs")]
    pub source: Option<PathBuf>,
    /// The memory write to check
    #[arg(long, value_name = "FILE", requires = "source", conflicts_with = "pairs")]
    pub memory: Option<PathBuf>,
    /// Many pairs: JSONL ({"id","source","memory"} per line) or CSV with columns id,source,memory
    #[arg(long, value_name = "FILE")]
    pub pairs: Option<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Exit 1 when any input line was skipped
    #[arg(long)]
    pub strict: bool,
    /// For a REWRITE verdict, ask the model playing the fixer role ([[models]] roles = ["fixer"])
    /// for a rewrite; it is shown only when it passes the same gate, and never written anywhere
    #[arg(long)]
    pub fix: bool,
    /// Ask model endpoints on this machine only (loopback)
    #[arg(long)]
    pub offline: bool,
}

/// Arguments of `amem drift`.
#[derive(clap::Args, Debug)]
pub(crate) struct DriftArgs {
    /// The chain v0..vn, JSONL, oldest first: one version per line, {"text": "..."} or a bare JSON string
    #[arg(long, value_name = "FILE")]
    pub chain: PathBuf,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Exit 1 when any line was skipped
    #[arg(long)]
    pub strict: bool,
}

/// One input pair.
#[derive(Debug, serde::Deserialize)]
struct Pair {
    #[serde(default)]
    id: serde_json::Value,
    source: String,
    memory: String,
}

fn read_text(p: &Path) -> anyhow::Result<String> {
    amem_records::source_file::read_file_to_string(p, amem_records::source_file::Limit::INPUT_TEXT)
        .with_context(|| format!("cannot read {}", p.display()))
}

/// Read the pairs; malformed lines are reported and counted, not fatal.
fn read_pairs(path: &Path, ctx: &Ctx) -> anyhow::Result<(Vec<Pair>, usize)> {
    let limit = amem_records::source_file::Limit { what: "a file of pairs", bytes: 512 << 20 };
    let text = amem_records::source_file::read_file_to_string(path, limit).with_context(|| format!("cannot read {}", path.display()))?;
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let is_csv = match ext.as_deref() {
        Some("csv") => true,
        Some("jsonl" | "ndjson" | "json") => false,
        _ => !text.trim_start().starts_with('{'),
    };
    let mut pairs = Vec::new();
    let mut skipped = 0usize;
    if is_csv {
        let mut rdr = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
        let headers = rdr.headers().with_context(|| format!("{}: cannot read the CSV header", path.display()))?.clone();
        let col = |name: &str| headers.iter().position(|h| h.trim().eq_ignore_ascii_case(name));
        let (Some(ci), Some(cs), Some(cm)) = (col("id"), col("source"), col("memory")) else {
            anyhow::bail!("{}: the CSV header must name the columns id, source, memory (found: {:?})", path.display(), headers);
        };
        for rec in rdr.records() {
            match rec {
                Ok(r) => match (r.get(ci), r.get(cs), r.get(cm)) {
                    (Some(id), Some(s), Some(m)) => {
                        pairs.push(Pair { id: serde_json::Value::String(id.to_string()), source: s.to_string(), memory: m.to_string() })
                    }
                    _ => {
                        let line = r.position().map(|p| p.line()).unwrap_or(0);
                        ctx.warn(format!("{}:{line}: skipped: the record has {} fields, fewer than the header", path.display(), r.len()));
                        skipped += 1;
                    }
                },
                Err(e) => {
                    let line = e.position().map(|p| p.line()).unwrap_or(0);
                    ctx.warn(format!("{}:{line}: skipped: {e}", path.display()));
                    skipped += 1;
                }
            }
        }
    } else {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Pair>(line) {
                Ok(p) => pairs.push(p),
                Err(e) => {
                    ctx.warn(format!("{}:{}: skipped: {e}", path.display(), i + 1));
                    skipped += 1;
                }
            }
        }
    }
    Ok((pairs, skipped))
}

/// The inputs as (id, source, memory) triples.
fn inputs(a: &GateArgs, ctx: &Ctx) -> anyhow::Result<(Vec<Pair>, usize)> {
    match (&a.pairs, &a.source, &a.memory) {
        (Some(p), _, _) => read_pairs(p, ctx),
        (None, Some(s), Some(m)) => {
            Ok((vec![Pair { id: serde_json::Value::String(m.display().to_string()), source: read_text(s)?, memory: read_text(m)? }], 0))
        }
        _ => Err(crate::UsageError("give --source FILE --memory FILE, or --pairs FILE".into()).into()),
    }
}

#[derive(Serialize)]
struct GateLine<'a> {
    id: &'a serde_json::Value,
    #[serde(flatten)]
    report: &'a GateReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<&'a amem_gate::Proposal>,
}

#[derive(Serialize)]
struct InspectLine<'a> {
    id: &'a serde_json::Value,
    #[serde(flatten)]
    report: &'a InspectReport,
}

fn id_text(id: &serde_json::Value) -> String {
    match id {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".into(),
        v => v.to_string(),
    }
}

/// The closing count on stderr (a warning when lines were skipped; silent
/// for a single `--source/--memory` pair with nothing skipped).
fn finish(ctx: &Ctx, what: &str, done: usize, skipped: usize, strict: bool, many: bool) -> Exit {
    let line = format!("{done} {what}, {skipped} skipped");
    if skipped > 0 {
        ctx.warn(line);
    } else if many {
        ctx.note(line);
    }
    if strict && skipped > 0 { Exit::Failure } else { Exit::Success }
}

pub(crate) fn run_gate(a: GateArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let (pairs, skipped) = inputs(&a, ctx)?;
    let many = a.pairs.is_some();
    // The model roles the home configures (witness, added content, fixer), if any: second
    // readers that can only add findings.
    let roles = ctx.gate_roles(a.offline)?;
    let models = roles.as_deref().map(amem_endpoint::EndpointGate::models).unwrap_or_default();
    let fixer = match (a.fix, roles.as_deref().and_then(amem_endpoint::EndpointGate::fixer)) {
        (false, _) => None,
        (true, Some(f)) => Some(f),
        (true, None) => {
            return Err(crate::UsageError(
                "--fix needs a model playing the fixer role: add roles = [\"fixer\"] to a [[models]] entry of config.toml".into(),
            )
            .into());
        }
    };
    let mut out = ctx.stdout();
    let (mut shown, mut asked) = (0usize, 0usize);
    for p in &pairs {
        let r = amem_gate::check_with(&p.source, &p.memory, models);
        let proposal = fixer.and_then(|f| amem_gate::fix(&p.source, &p.memory, &r, models, f));
        asked += usize::from(proposal.is_some());
        shown += usize::from(proposal.as_ref().is_some_and(|p| p.outcome == amem_gate::FixOutcome::Shown));
        match a.format {
            Format::Json => write_json_line(&mut out, &GateLine { id: &p.id, report: &r, fix: proposal.as_ref() })?,
            Format::Text => {
                if many {
                    writeln!(out, "== {}", id_text(&p.id))?;
                }
                out.write_all(r.to_text().as_bytes())?;
                if let Some(p) = &proposal {
                    out.write_all(p.to_text().as_bytes())?;
                }
            }
        }
    }
    out.flush()?;
    if fixer.is_some() {
        ctx.note(format!("fixes: {asked} asked for, {shown} passed the gate and shown (none applied: a fix is a proposal)"));
    }
    Ok(finish(ctx, "pairs gated", pairs.len(), skipped, a.strict, many))
}

pub(crate) fn run_inspect(a: GateArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    if a.fix {
        return Err(crate::UsageError("--fix is for amem gate".into()).into());
    }
    let (pairs, skipped) = inputs(&a, ctx)?;
    let many = a.pairs.is_some();
    let mut out = ctx.stdout();
    for p in &pairs {
        let r = amem_gate::inspect(&p.source, &p.memory);
        match a.format {
            Format::Json => write_json_line(&mut out, &InspectLine { id: &p.id, report: &r })?,
            Format::Text => {
                if many {
                    writeln!(out, "== {}", id_text(&p.id))?;
                }
                out.write_all(r.to_text().as_bytes())?;
            }
        }
    }
    out.flush()?;
    Ok(finish(ctx, "pairs inspected", pairs.len(), skipped, a.strict, many))
}

/// One version line: `{"text": ...}` or a bare JSON string.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Version {
    Bare(String),
    Object { text: String },
}

pub(crate) fn run_drift(a: DriftArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let text = read_text(&a.chain)?;
    let mut versions: Vec<String> = Vec::new();
    let mut skipped = 0usize;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Version>(line) {
            Ok(Version::Bare(t) | Version::Object { text: t }) => versions.push(t),
            Err(_) => {
                ctx.warn(format!(
                    "{}:{}: skipped: a version line must be {{\"text\": \"...\"}} or a JSON string",
                    a.chain.display(),
                    i + 1
                ));
                skipped += 1;
            }
        }
    }
    if versions.len() < 2 {
        anyhow::bail!("{}: a chain needs at least two versions, found {}", a.chain.display(), versions.len());
    }
    let refs: Vec<&str> = versions.iter().map(String::as_str).collect();
    let r: DriftReport = amem_gate::drift(&refs);
    let mut out = ctx.stdout();
    match a.format {
        Format::Json => write_json_line(&mut out, &r)?,
        Format::Text => out.write_all(r.to_text().as_bytes())?,
    }
    out.flush()?;
    Ok(finish(ctx, "versions read", versions.len(), skipped, a.strict, true))
}
