//! `amem verify --pairs FILE`: the verifier on any set of claim–evidence pairs: the
//! rules combined with the learned verifier (`amem_audit::combine`), or the rules alone
//! with `--no-models`.
//!
//! Input: JSON Lines, one `{"id", "claim", "evidence"}` per line, where
//! `evidence` is a string (one evidence item) or an array of items, each a
//! string or `{"text", "title"?, "url"?}`; `id` is any JSON value and is
//! echoed back. `--pairs -` reads stdin.
//!
//! stdout: `--format json` prints one `{"id","status","group","method","reasons":[...]}`
//! per pair, in input order (reasons as in `amem_records::Reason`, each citing
//! the evidence sentence it rests on, `amem://text-<digest>#chunk=<i>` naming
//! the i-th evidence string); `--format text` (default) is for people.
//! stderr: one `error: FILE:LINE: ...` per malformed line (the rest are
//! processed) and a closing count. Exit 0 (also with skipped lines, unless
//! `--strict`), 1 when the file cannot be read.

use crate::Exit;
use crate::printer::{Ctx, write_json_line};
use amem_records::Evidence;
use amem_verify::combine::{Combined, Row, combine};
use amem_verify::{METHOD, text_evidence, verify};
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::PathBuf;

/// Output format.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Format {
    /// Human-readable text
    #[default]
    Text,
    /// One JSON object per pair
    Json,
}

/// Arguments of `amem verify`.
#[derive(clap::Args, Debug)]
pub(crate) struct VerifyArgs {
    /// JSON Lines, one {"id","claim","evidence"} per line (evidence: a string, or an array of strings or {"text","title","url"}); "-" reads stdin
    #[arg(long, value_name = "FILE")]
    pub pairs: PathBuf,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Exit 1 when any input line was skipped
    #[arg(long)]
    pub strict: bool,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum EvidenceField {
    One(String),
    Many(Vec<EvidenceItem>),
}

/// One evidence item: a string, or an object with the text and, optionally,
/// the title of the document it is from (a sentence opening with a pronoun
/// borrows the title's words) and its URL.
#[derive(Deserialize)]
#[serde(untagged)]
enum EvidenceItem {
    Text(String),
    Record {
        text: String,
        #[serde(default)]
        title: Option<String>,
        #[serde(default)]
        url: Option<String>,
    },
}

#[derive(Deserialize)]
struct PairLine {
    id: serde_json::Value,
    claim: String,
    evidence: EvidenceField,
}

#[derive(Serialize)]
struct Output<'a> {
    id: &'a serde_json::Value,
    status: &'static str,
    group: &'static str,
    method: &'a str,
    reasons: &'a [amem_records::Reason],
}

#[allow(clippy::print_stderr)]
fn line_error(file: &str, line: usize, msg: impl std::fmt::Display) {
    eprintln!("error: {file}:{line}: {msg}");
}

pub(crate) fn run(a: VerifyArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let name = a.pairs.display().to_string();
    let reader: Box<dyn BufRead> = if a.pairs.as_os_str() == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin().lock()))
    } else {
        let f = std::fs::File::open(&a.pairs)
            .with_context(|| format!("cannot open {name} (expected a JSON Lines file of claim-evidence pairs)"))?;
        Box::new(std::io::BufReader::new(f))
    };
    let model = ctx.model()?;
    let mut out = ctx.stdout();
    let (mut done, mut skipped) = (0usize, 0usize);
    for (i, line) in reader.lines().enumerate() {
        let n = i + 1;
        let line = line.with_context(|| format!("cannot read {name} at line {n}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let pair: PairLine = match serde_json::from_str(&line) {
            Ok(p) => p,
            Err(e) => {
                line_error(&name, n, format!("skipped: not a {{\"id\",\"claim\",\"evidence\"}} record: {e}"));
                skipped += 1;
                continue;
            }
        };
        let items = match pair.evidence {
            EvidenceField::One(t) => vec![EvidenceItem::Text(t)],
            EvidenceField::Many(v) => v,
        };
        let evidence: Vec<Evidence> = items
            .iter()
            .enumerate()
            .map(|(k, item)| match item {
                EvidenceItem::Text(t) => text_evidence(t, k as u32),
                EvidenceItem::Record { text, title, url } => {
                    let mut e = text_evidence(text, k as u32);
                    e.title = title.clone();
                    e.source_url = url.clone();
                    e
                }
            })
            .collect();
        let rules = verify(&pair.claim, &evidence);
        let v = match model {
            Some(m) => combine(m, &pair.claim, rules.status, rules.reasons, &evidence),
            None => Combined { status: rules.status, reasons: rules.reasons, method: METHOD.to_string(), row: Row::NotConsulted },
        };
        match a.format {
            Format::Json => write_json_line(
                &mut out,
                &Output {
                    id: &pair.id,
                    status: v.status.as_str(),
                    group: v.status.group().as_str(),
                    method: &v.method,
                    reasons: &v.reasons,
                },
            )?,
            Format::Text => write_text(&mut out, &pair.id, &v)?,
        }
        done += 1;
    }
    out.flush()?;
    let summary = format!("{done} pairs verified, {skipped} skipped");
    if skipped > 0 {
        ctx.warn(summary);
    } else {
        ctx.note(summary);
    }
    Ok(if a.strict && skipped > 0 { Exit::Failure } else { Exit::Success })
}

fn write_text(out: &mut impl Write, id: &serde_json::Value, v: &Combined) -> anyhow::Result<()> {
    let id = match id {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    writeln!(out, "{id}\t{}\t({})", v.status.as_str(), v.status.group().as_str())?;
    for r in &v.reasons {
        writeln!(out, "  - [{}] {} ({})", r.facet, r.detail, r.rule)?;
        for e in &r.evidence {
            writeln!(out, "      {:?} {} bytes {}..{}", e.quote, e.uri, e.span.start, e.span.end)?;
        }
    }
    Ok(())
}
