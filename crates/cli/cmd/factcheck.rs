//! `amem factcheck "claim" [--offline] [--format json] [--refresh] [-k N]`: ground
//! one claim. Local recall first (the wiki is brought up to date, then
//! searched); when the local evidence does not settle the claim (or with
//! `--refresh`), the trust list is asked (rate-limited, logged, captured back into the wiki); then
//! the audit's per-claim function (`amem_audit::assess::Assessor::assess_evidence`:
//! the deterministic verifier, then the gate on the evidence the verdict rests
//! on) judges the claim against all the evidence, as `amem audit` does.
//!
//! stdout (`--format json`): one object in the RFC shape
//! `{verdict, status, evidence: [{source_uri, snippet, captured_at, similarity}], amem_uri}`
//! plus `claim`, `method`, `reasons` (`facet`, `rule`, `detail`), `gate` (the
//! gate's summary, `null` when no evidence is cited) and
//! `grounding` (`outcome`: `local`, `captured`, `cached`, `no_evidence`,
//! `unavailable`, `offline`, `disabled`; `searched`, `unavailable`
//! (`source`, `reason`), `stale` (`source_url`, `old_item`, `new_item`),
//! `requests`). `verdict` is the report group (`SUPPORTED`,
//! `CONTRADICTED`, or `NO_EVIDENCE` for everything unverified); `status` is
//! the finer DESIGN.md status. `similarity` is the share of the claim's
//! search terms found in the snippet (0 to 1). Without `--format json`, the same
//! as text. An unavailable source never turns into "no evidence" silently:
//! it is named on stderr and in `grounding.unavailable`.

use crate::Exit;
use crate::config::HomeConfig;
use crate::printer::{Ctx, write_json_line};
use amem_audit::assess::Assessor;
use amem_audit::capture::RecallStore;
use amem_factcheck::{GroundOutcome, Grounder, GrounderOptions};
use amem_model::Reason;
use amem_model::{AmemUri, Evidence};
use amem_recall::{IndexOptions, Recall};
use amem_verify::METHOD;
use anyhow::Context as _;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::Write;
use std::ops::ControlFlow;
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
    #[arg(long, short = 'k', default_value_t = 5)]
    pub k: usize,
}

/// The share of the claim's search terms present in `text`.
fn similarity(terms: &[String], text: &str) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let lower = text.to_lowercase();
    let found = terms.iter().filter(|t| lower.contains(&t.to_lowercase())).count();
    ((found as f64 / terms.len() as f64) * 1000.0).round() / 1000.0
}

/// The evidence the verdict cites (deduplicated, in citation order), or
/// when nothing is cited, everything weighed.
fn shown_evidence(reasons: &[Reason], weighed: &[Evidence], k: usize) -> Vec<Evidence> {
    let mut seen = BTreeSet::new();
    let mut cited: Vec<Evidence> = Vec::new();
    for r in reasons {
        for e in &r.evidence {
            if seen.insert((e.uri.clone(), e.span)) {
                cited.push(e.clone());
            }
        }
    }
    if cited.is_empty() {
        cited = weighed.to_vec();
    }
    cited.truncate(k.max(1));
    cited
}

pub(crate) fn run(a: FactcheckArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let cfg = HomeConfig::load(&ctx.home).context("cannot load the configuration")?;
    let store = Arc::new(RecallStore::open(&ctx.home).with_context(|| format!("cannot open the wiki of {}", ctx.home.display()))?);
    // Local recall first, over an up-to-date index (unchanged files are not re-read).
    let report = store
        .with_wiki(|w| w.index_wiki(IndexOptions::default(), &mut |_| ControlFlow::Continue(())))
        .context("cannot update the wiki index")?;
    if !report.skipped.is_empty() {
        ctx.warn(format!("{} wiki file(s) skipped while indexing: run `amem index` to see which", report.skipped.len()));
    }
    let k = a.k.max(1);
    let search = |k: usize| store.with_wiki(|w| w.search(&a.claim, k)).context("cannot search the wiki");
    let mut weighed: Vec<Evidence> = search(k)?.iter().map(|h| h.to_evidence()).collect();
    // The audit's per-claim function: the verdict and the gate on the
    // evidence weighed, so `amem factcheck` and `amem audit` never differ.
    let mut assessor = Assessor::with_model(ctx.model()?);
    let mut assessed = assessor.assess_evidence(&a.claim, &weighed);
    let mut grounding = json!({"outcome": "local", "searched": [], "unavailable": [], "stale": [], "requests": 0});

    if a.refresh || assessed.status.group() == amem_model::Group::Unverified {
        let opts = GrounderOptions { offline: a.offline, refresh: a.refresh, ..GrounderOptions::default() };
        let grounder = Grounder::new(&ctx.home, &cfg.grounding, store.clone(), opts).context("cannot set up the trust list")?;
        let outcome = if grounder.is_enabled() {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
            Some(rt.block_on(grounder.ground(&a.claim)))
        } else {
            None
        };
        grounding = describe(outcome.as_ref(), a.offline, grounder.requests_sent());
        if let Some(GroundOutcome::Captured { items, stale, .. }) = &outcome {
            for s in stale {
                ctx.warn(format!(
                    "{} changed since it was captured: assessments citing amem://{} are stale (new revision amem://{})",
                    s.source_url, s.old_item, s.new_item
                ));
            }
            let captured: BTreeSet<&str> = items.iter().map(|i| i.item.as_str()).collect();
            // The captures are indexed: search again and weigh their chunks
            // beside the local ones; a capture the search does not rank is
            // opened chunk by chunk.
            let hits = search(k * 3)?;
            let mut extra: Vec<Evidence> = hits.iter().filter(|h| captured.contains(h.item.0.as_str())).map(|h| h.to_evidence()).collect();
            for item in &captured {
                if extra.iter().any(|e| e.uri.item == *item) {
                    continue;
                }
                extra.extend(open_item(&store, item));
            }
            // Earlier revisions of re-fetched documents are stale: they no
            // longer count as evidence.
            let replaced: BTreeSet<&str> = stale.iter().map(|s| s.old_item.as_str()).collect();
            weighed.retain(|e| !captured.contains(e.uri.item.as_str()) && !replaced.contains(e.uri.item.as_str()));
            weighed.extend(extra);
            assessed = assessor.assess_evidence(&a.claim, &weighed);
        }
        if let Some(GroundOutcome::Unavailable { reasons, .. }) = &outcome {
            for r in reasons {
                ctx.warn(format!("source {} unavailable: {}", r.source, r.reason));
            }
        }
    }

    let terms = amem_factcheck::terms::key_terms(&a.claim);
    let shown = shown_evidence(&assessed.reasons, &weighed, k);
    let amem_uri = shown.first().map(|e| e.uri.to_string());
    let evidence: Vec<Value> = shown
        .iter()
        .map(|e| {
            json!({
                "source_uri": e.source_url.clone().unwrap_or_else(|| e.uri.to_string()),
                "snippet": e.quote,
                "captured_at": e.captured_at,
                "written_at": e.written_at,
                "similarity": similarity(&terms, &e.quote),
                "amem_uri": e.uri.to_string(),
            })
        })
        .collect();
    let reasons: Vec<Value> = assessed.reasons.iter().map(|r| json!({"facet": r.facet, "rule": r.rule, "detail": r.detail})).collect();
    let result = json!({
        "claim": a.claim,
        "verdict": assessed.status.group().rfc_verdict(),
        "status": assessed.status.as_str(),
        "evidence": evidence,
        "amem_uri": amem_uri,
        "method": METHOD,
        "reasons": reasons,
        "gate": assessed.gate,
        "grounding": grounding,
    });
    let mut out = ctx.stdout();
    if a.out.is_json() {
        write_json_line(&mut out, &result)?;
    } else {
        writeln!(out, "{}  {}", result["verdict"].as_str().unwrap_or(""), result["status"].as_str().unwrap_or(""))?;
        if let Some(u) = &amem_uri {
            writeln!(out, "  {u}")?;
        }
        for e in &evidence {
            // A fetched page's time is when it was captured; an own note's, when it was written.
            let time = match (e["captured_at"].as_str(), e["written_at"].as_str()) {
                (Some(c), _) => format!("captured {c}"),
                (None, Some(w)) => format!("written {w}"),
                (None, None) => "captured unknown".to_string(),
            };
            writeln!(out, "  evidence: {} ({time}, similarity {})", e["source_uri"].as_str().unwrap_or(""), e["similarity"])?;
            writeln!(out, "    \"{}\"", e["snippet"].as_str().unwrap_or(""))?;
        }
        for r in &assessed.reasons {
            writeln!(out, "  {}: {} [{}]", r.facet, r.detail, r.rule)?;
        }
        writeln!(out, "  grounding: {}", result["grounding"]["outcome"].as_str().unwrap_or(""))?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// Every chunk of a captured item as evidence (the quote is the whole chunk).
fn open_item(store: &RecallStore, item: &str) -> Vec<Evidence> {
    let mut out = Vec::new();
    let mut n = 0u32;
    loop {
        let opened = store.with_wiki(|w| w.open(&AmemUri::chunk(item, n)));
        let Ok(c) = opened else { break };
        out.push(Evidence {
            uri: c.uri.clone(),
            quote: c.text.clone(),
            span: amem_model::Span::new(0, c.text.len()),
            item_digest: c.item_digest,
            captured_at: c.retrieved_at.clone(),
            written_at: None,
            source_url: c.source_url.clone(),
            title: c.title.clone(),
        });
        n += 1;
        if n >= c.chunks {
            break;
        }
    }
    out
}

/// The `grounding` object of the output.
fn describe(outcome: Option<&GroundOutcome>, offline: bool, requests: u64) -> Value {
    let (name, searched, unavailable, stale) = match outcome {
        None => ("disabled", Vec::new(), Vec::new(), Vec::new()),
        Some(GroundOutcome::Captured { cached, stale, failures, .. }) => (
            if *cached { "cached" } else { "captured" },
            Vec::new(),
            failures.iter().map(|f| json!({"source": f.source, "reason": f.reason})).collect(),
            stale.iter().map(|s| json!({"source_url": s.source_url, "old_item": s.old_item, "new_item": s.new_item})).collect(),
        ),
        Some(GroundOutcome::NoEvidence { searched }) => ("no_evidence", searched.clone(), Vec::new(), Vec::new()),
        Some(GroundOutcome::Unavailable { reasons, searched }) => (
            if offline { "offline" } else { "unavailable" },
            searched.clone(),
            reasons.iter().map(|f| json!({"source": f.source, "reason": f.reason})).collect(),
            Vec::new(),
        ),
    };
    json!({"outcome": name, "searched": searched, "unavailable": unavailable, "stale": stale, "requests": requests})
}
