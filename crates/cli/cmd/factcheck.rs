//! `amem factcheck "claim" [--offline] [--format json] [--refresh] [-k N]`: ground
//! one claim. Local recall first (the wiki is brought up to date, then
//! searched); when the local evidence does not settle the claim (or with
//! `--refresh`), the trust list is asked (rate-limited, logged, captured back
//! into the wiki) and the claim decided again on the wiki that now holds what
//! was fetched. The deciding is `amem_audit::check::check_claim`, the audit's
//! own per-claim path, which the MCP tool `amem_factcheck` and the browser
//! bridge call too: the same claim gets the same verdict from all of them.
//!
//! stdout (`--format json`): one object in the RFC shape
//! `{verdict, status, evidence: [{source_uri, snippet, captured_at, similarity}], amem_uri}`
//! plus `claim`, `method`, `reasons` (`facet`, `rule`, `detail`, `claim_span`),
//! `gate` (the gate's summary, `null` when no evidence is cited) and
//! `grounding` (`outcome`: `local`, `captured`, `cached`, `no_evidence`,
//! `unavailable`, `offline`, `disabled`; `searched`, `unavailable`
//! (`source`, `reason`), `stale` (`source_url`, `old_item`, `new_item`),
//! `requests`). `verdict` is the report group (`SUPPORTED`,
//! `CONTRADICTED`, or `NO_EVIDENCE` for everything unverified), except
//! `UNAVAILABLE` for `source_unavailable`; `status` is
//! the finer status (docs/architecture.md, "Status vocabulary"). `similarity` is the share of the claim's
//! search terms found in the snippet (0 to 1). Without `--format json`, the same
//! as text. An unavailable source never turns into "no evidence" silently:
//! it is named on stderr and in `grounding.unavailable`.

use crate::Exit;
use crate::config::HomeConfig;
use crate::printer::{Ctx, write_json_line};
use amem_audit::assess::Assessor;
use amem_audit::capture::RecallStore;
use amem_audit::check::{CheckOptions, Checked, check_claim};
use amem_grounding::{GroundOutcome, Grounder, GrounderOptions};
use amem_recall::IndexOptions;
use anyhow::Context as _;
use serde_json::Value;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

/// Arguments of `amem factcheck`.
#[derive(clap::Args, Debug)]
pub(crate) struct FactcheckArgs {
    /// The claim to check
    #[arg(value_name = "CLAIM")]
    pub claim: String,
    /// Make no network request: the local wiki and earlier captures only
    #[arg(long)]
    pub offline: bool,
    #[command(flatten)]
    pub out: crate::printer::OutputArgs,
    /// Ask the trust list even when the wiki or the cache already answers (finds changed documents)
    #[arg(long)]
    pub refresh: bool,
    /// How many wiki chunks to weigh
    #[arg(long, short = 'k', default_value_t = amem_audit::assess::RECALL_K)]
    pub k: usize,
}

/// The wiki of `home`, its index brought up to date (unchanged files are not
/// re-read); `warn` hears how many files were skipped.
pub(crate) fn open_store(
    home: &Path,
    meaning: Option<amem_recall::Meaning>,
    warn: &mut dyn FnMut(String),
) -> anyhow::Result<Arc<RecallStore>> {
    let store = Arc::new(RecallStore::open(home, meaning).with_context(|| format!("cannot open the wiki of {}", home.display()))?);
    let report = bring_up_to_date(&store).context("cannot update the wiki index")?;
    if !report.skipped.is_empty() {
        warn(format!("{} wiki file(s) skipped while indexing: run `amem index` to see which", report.skipped.len()));
    }
    Ok(store)
}

/// The wiki's index brought up to date with its files (unchanged ones are not re-read).
pub(crate) fn bring_up_to_date(store: &RecallStore) -> amem_recall::Result<amem_recall::IndexReport> {
    store.with_wiki(|w| w.index_wiki(IndexOptions::default(), &mut |_| ControlFlow::Continue(())))
}

/// The trust list of `home` as `amem factcheck` asks it, capturing into `store`.
pub(crate) fn grounder(home: &Path, cfg: &HomeConfig, store: Arc<RecallStore>, offline: bool, refresh: bool) -> anyhow::Result<Grounder> {
    let opts = GrounderOptions { offline, refresh, ..GrounderOptions::default() };
    Grounder::new(home, &cfg.grounding, store, opts).context("cannot set up the trust list")
}

pub(crate) fn run(a: FactcheckArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let cfg = HomeConfig::load(&ctx.home).context("cannot load the configuration")?;
    let store = open_store(&ctx.home, ctx.meaning()?, &mut |w| ctx.warn(w))?;
    let grounder = grounder(&ctx.home, &cfg, store.clone(), a.offline, a.refresh)?;
    // The trust list is asked on this thread's own runtime, only when it is configured.
    let runtime = match grounder.is_enabled() {
        true => Some(tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?),
        false => None,
    };
    let trust_list = &grounder;
    let mut ground_on = runtime.as_ref().map(|rt| move |claim: &str| -> GroundOutcome { rt.block_on(trust_list.ground(claim)) });
    let ground = ground_on.as_mut().map(|g| g as &mut dyn FnMut(&str) -> GroundOutcome);
    let roles = ctx.model_roles(&cfg.models, a.offline, &ctx.home.join(amem_ledger::LEDGER_FILE))?;
    let mut assessor = Assessor::with_model(ctx.model()?).with_endpoint(roles.verifier).with_gate_roles(roles.gate);
    let opts = CheckOptions { k: a.k, refresh: a.refresh, offline: a.offline };
    let Checked { mut answer, warnings } =
        check_claim(&store, ground, &mut assessor, &a.claim, opts, &mut |_, _, _| {}).context("cannot search the wiki")?;
    answer["grounding"]["requests"] = grounder.requests_sent().into();
    for w in warnings {
        ctx.warn(w);
    }
    let mut out = ctx.stdout();
    if a.out.is_json() {
        write_json_line(&mut out, &answer)?;
    } else {
        write_text(&mut out, &answer)?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// The answer as text: verdict and status, the evidence with its times, the reasons.
fn write_text(out: &mut dyn Write, answer: &Value) -> std::io::Result<()> {
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    writeln!(out, "{}  {}", s(&answer["verdict"]), s(&answer["status"]))?;
    if let Some(u) = answer["amem_uri"].as_str() {
        writeln!(out, "  {u}")?;
    }
    for e in answer["evidence"].as_array().into_iter().flatten() {
        // A fetched page's time is when it was captured; an own note's, when it was written.
        let time = match (e["captured_at"].as_str(), e["written_at"].as_str()) {
            (Some(c), _) => format!("captured {c}"),
            (None, Some(w)) => format!("written {w}"),
            (None, None) => "captured unknown".to_string(),
        };
        writeln!(out, "  evidence: {} ({time}, similarity {})", s(&e["source_uri"]), e["similarity"])?;
        writeln!(out, "    \"{}\"", s(&e["snippet"]))?;
    }
    for r in answer["reasons"].as_array().into_iter().flatten() {
        writeln!(out, "  {}: {} [{}]", s(&r["facet"]), s(&r["detail"]), s(&r["rule"]))?;
    }
    writeln!(out, "  grounding: {}", s(&answer["grounding"]["outcome"]))?;
    Ok(())
}
