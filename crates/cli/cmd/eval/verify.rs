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
//! docs/benchmarks.md (deterministic verification); `--format json` prints one JSON object per set
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
    /// The markdown tables of docs/benchmarks.md
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
    /// What gives the verdicts: the rules (on every pair), or the learned verifier alone, the
    /// combination, or all three side by side (on the part of each set the model never saw)
    #[arg(long, value_enum, default_value_t = MethodArg::Rules)]
    pub method: MethodArg,
    /// Also put what the rules and the learned verifier leave undecided to the [[models]] entry
    /// NAME, as the audit would (on each set's held-out part): rules, combined and
    /// combined+endpoint side by side, then the calls made, remembered answers, tokens and time
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// With --model: at most this many pairs per set, evenly spaced (0: all)
    #[arg(long, default_value_t = 0, requires = "model")]
    pub limit: usize,
    /// With --model: allow a model endpoint on this machine only
    #[arg(long, requires = "model")]
    pub offline: bool,
    /// With --method model|combined|all: score with the verifier files in DIR (a
    /// crates/models/weights folder the training script exported elsewhere, checked against its
    /// own SHA256SUMS) instead of the shipped weights: how a candidate is measured before it
    /// replaces them
    #[arg(long, value_name = "DIR")]
    pub weights: Option<PathBuf>,
}

/// `--method`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum MethodArg {
    /// The deterministic rules alone, on every pair of every set
    #[default]
    Rules,
    /// The learned verifier alone, on each set's held-out part
    Model,
    /// The rules and the model by the combination table, on each set's held-out part
    Combined,
    /// Rules, model and combined side by side, on each set's held-out part
    All,
}

pub(crate) fn run(a: VerifyEvalArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let sets = eval::load_corpus(&a.corpus).with_context(|| format!("cannot load the claim-evidence sets in {}", a.corpus.display()))?;
    if let Some(name) = a.model.clone() {
        return run_endpoint(a, &name, ctx, sets);
    }
    if a.method != MethodArg::Rules {
        return run_methods(a, ctx, sets);
    }
    if a.weights.is_some() {
        anyhow::bail!("--weights scores a learned verifier: give it with --method model, combined or all");
    }
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

/// `--method model|combined|all`: each set's held-out part (documents the model never saw),
/// scored by each method with its claim-only control.
fn run_methods(a: VerifyEvalArgs, ctx: &Ctx, sets: Vec<(String, Vec<eval::Pair>)>) -> anyhow::Result<Exit> {
    let candidate = match &a.weights {
        Some(dir) => Some(amem_models::Verifier::from_dir(dir).with_context(|| format!("cannot load the verifier in {}", dir.display()))?),
        None => None,
    };
    let Some(model) = candidate.as_ref().map_or_else(|| ctx.model(), |c| Ok(Some(c)))? else {
        anyhow::bail!("--method {:?} needs the learned verifier: drop --no-models", a.method);
    };
    let methods: &[eval::Method] = match a.method {
        MethodArg::Model => &[eval::Method::Model],
        MethodArg::Combined => &[eval::Method::Combined],
        _ => &[eval::Method::Rules, eval::Method::Model, eval::Method::Combined],
    };
    let parts: Vec<(String, Vec<eval::Pair>)> = sets.iter().map(|(n, p)| (n.clone(), eval::heldout_part(n, p))).collect();
    let total: u64 = parts.iter().map(|(_, p)| (p.len() * methods.len()) as u64).sum();
    let pb = ctx.progress_bar(Some(total), "verify");
    let mut rows = Vec::new();
    for (name, pairs) in &parts {
        pb.set_message(name.clone());
        for &m in methods {
            rows.push((m, eval::score_method(name, pairs, m, Some(model))));
            pb.inc(pairs.len() as u64);
        }
    }
    pb.finish_and_clear();
    write_method_rows(ctx, a.format, &rows, None)?;
    ctx.note(format!(
        "{} sets' held-out parts ({} pairs) scored by {}; weights sha256 {}",
        parts.len(),
        parts.iter().map(|(_, p)| p.len()).sum::<usize>(),
        methods.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", "),
        model.weights_sha256()
    ));
    Ok(Exit::Success)
}

/// `--model NAME`: each set's held-out part (spread to `--limit`) scored by the rules, the
/// combination, and the combination with the endpoint consulted as the audit consults it, each
/// with its shuffled control; then what the endpoint cost.
fn run_endpoint(a: VerifyEvalArgs, name: &str, ctx: &Ctx, sets: Vec<(String, Vec<eval::Pair>)>) -> anyhow::Result<Exit> {
    let config = ctx.named_model(name, amem_endpoint::Role::Verifier)?;
    let answers = ctx.home.join(amem_ledger::LEDGER_FILE);
    let Some(endpoint) =
        crate::printer::open_model_roles(&ctx.home, std::slice::from_ref(&config), a.offline, Some(&answers), &mut |n| ctx.note(n))?
            .verifier
    else {
        anyhow::bail!("the model {name:?} cannot be asked offline");
    };
    let model = ctx.model()?;
    let started = std::time::Instant::now();
    let parts: Vec<(String, Vec<eval::Pair>)> =
        sets.iter().map(|(n, p)| (n.clone(), eval::spread(&eval::heldout_part(n, p), a.limit))).collect();
    let mut rows = Vec::new();
    for (set, pairs) in &parts {
        rows.push((eval::Method::Rules, eval::score_method(set, pairs, eval::Method::Rules, model)));
        if model.is_some() {
            rows.push((eval::Method::Combined, eval::score_method(set, pairs, eval::Method::Combined, model)));
        }
        let scored = eval::score_with(set, pairs, &mut |rules, claim, evidence| {
            let r = rules.verify(claim, evidence);
            let (status, reasons) = match model {
                Some(m) => {
                    let c = amem_verify::combine::combine(m, claim, r.status, r.reasons, evidence);
                    (c.status, c.reasons)
                }
                None => (r.status, r.reasons),
            };
            match endpoint.judge(claim, status, &reasons, evidence) {
                Some(amem_endpoint::Judgement::Answered { row, .. }) => row.status(status),
                _ => status,
            }
        });
        rows.push((eval::Method::WithEndpoint, scored));
    }
    write_method_rows(ctx, a.format, &rows, Some(endpoint.method()))?;
    ctx.note(format!(
        "verifier {} ({} at {}), held-out parts of {} sets ({} pairs, each also against shuffled evidence): {}; {:.1} s in all",
        endpoint.method(),
        config.name,
        config.url,
        parts.len(),
        parts.iter().map(|(_, p)| p.len()).sum::<usize>(),
        endpoint.counts().describe(),
        started.elapsed().as_secs_f64()
    ));
    Ok(Exit::Success)
}

/// The rows of a methods table (held-out parts): markdown, or one JSON object per row naming
/// its method, the part and, when an endpoint was asked, the endpoint's method.
fn write_method_rows(ctx: &Ctx, format: Format, rows: &[(eval::Method, eval::Scored)], endpoint: Option<&str>) -> anyhow::Result<()> {
    let mut out = ctx.stdout();
    match format {
        Format::Markdown => out.write_all(eval::render_methods_markdown(rows).as_bytes())?,
        Format::Json => {
            for (m, s) in rows {
                let mut v = eval::to_json(s);
                if let Some(o) = v.as_object_mut() {
                    o.insert("method".into(), serde_json::json!(m.as_str()));
                    o.insert("part".into(), serde_json::json!("heldout"));
                    if let Some(e) = endpoint {
                        o.insert("endpoint_method".into(), serde_json::json!(e));
                    }
                }
                write_json_line(&mut out, &v)?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
