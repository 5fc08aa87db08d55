//! `amem grounding init [--opinionated] [--force]` and `amem grounding list`:
//! the trust list in `$AMEM_HOME/config.toml` (docs/reference.md, "Fact-check and verification").
//! `amem grounding fetch [--queue DIR]...`: the trust list asked, in one process, for every claim
//! a sharded audit's shards filed as unverified (docs/reference.md, "Scale-out").
//!
//! stdout: `init` prints the path written; `list` prints one line per source
//! (`priority name adapter rate url_pattern`), or with `--format json` one
//! `{"type":"source","data":{...}}` line per source then a
//! `{"type":"grounding","data":{"enabled","default_action","sources"}}` line.

use crate::Exit;
use crate::config::HomeConfig;
use crate::printer::{Ctx, write_json_line};
use anyhow::Context as _;
use serde_json::json;
use std::io::Write;

/// `amem grounding ...`
#[derive(clap::Subcommand, Debug)]
pub(crate) enum GroundingCommand {
    /// Write a config.toml with an empty trust list (or a starter one)
    Init {
        /// Write a starter list (English Wikipedia, arXiv) instead of an empty one
        #[arg(long)]
        opinionated: bool,
        /// Overwrite an existing config.toml
        #[arg(long)]
        force: bool,
    },
    /// Show the configured sources, in the order they are asked
    List {
        #[command(flatten)]
        output: crate::printer::OutputArgs,
    },
    /// Ground every claim on the unverified queues on the trust list, in this one process (each
    /// host under its one limiter, whatever the number of shards), and capture what is found into
    /// the wiki; then `amem audit chat-history --shard I/N --reassess` decides each shard's claims
    Fetch {
        /// A queue to read: a shard's folder ($AMEM_HOME/shards/I-of-N) or its unverified/ folder;
        /// repeatable [default: the home's own queue and every shard's]
        #[arg(long = "queue", value_name = "DIR", value_parser = crate::paths::path_arg)]
        queues: Vec<std::path::PathBuf>,
        /// Claims grounded at once (each host keeps its own limit)
        #[arg(long, default_value_t = 4)]
        concurrency: usize,
        #[command(flatten)]
        output: crate::printer::OutputArgs,
    },
}

pub(crate) fn run(c: GroundingCommand, ctx: &Ctx) -> anyhow::Result<Exit> {
    match c {
        GroundingCommand::Init { opinionated, force } => {
            let path = crate::config::init(&ctx.home, opinionated, force)?;
            let mut out = ctx.stdout();
            writeln!(out, "{}", path.display())?;
            out.flush()?;
            ctx.note(if opinionated {
                "wrote a starter trust list: review it; amem contacts only the hosts it lists"
            } else {
                "wrote an empty trust list: amem fetches nothing until you add a [[grounding.sources]] entry"
            });
            Ok(Exit::Success)
        }
        GroundingCommand::Fetch { queues, concurrency, output } => fetch(&queues, concurrency, output.is_json(), ctx),
        GroundingCommand::List { output } => {
            let cfg = HomeConfig::load(&ctx.home).context("cannot load the configuration")?;
            let g = &cfg.grounding;
            let mut out = ctx.stdout();
            if output.is_json() {
                for s in &g.sources {
                    let rate = s.effective_rate().to_string();
                    write_json_line(
                        &mut out,
                        &json!({"type": "source", "data": {
                            "name": s.name, "priority": s.priority, "adapter": s.adapter, "url_pattern": s.url_pattern,
                            "rate": rate, "rate_is_default": s.rate.is_none(), "search_url": s.search_url,
                        }}),
                    )?;
                }
                write_json_line(
                    &mut out,
                    &json!({"type": "grounding", "data": {"enabled": g.enabled, "default_action": g.default_action, "sources": g.sources.len()}}),
                )?;
            } else {
                for s in &g.sources {
                    let rate = s.effective_rate().to_string();
                    let rate = if s.rate.is_none() { format!("{rate} (default)") } else { rate };
                    writeln!(out, "{:>4}  {:<20} {:<10} {:<18} {}", s.priority, s.name, s.adapter.as_str(), rate, s.url_pattern)?;
                }
            }
            out.flush()?;
            if !output.is_json() {
                let path = HomeConfig::path(&ctx.home);
                if g.sources.is_empty() {
                    ctx.note(format!(
                        "no sources in {}: run `amem grounding init --opinionated` or add [[grounding.sources]]",
                        path.display()
                    ));
                } else if !g.enabled {
                    ctx.note(format!("grounding is disabled in {} ([grounding] enabled = false)", path.display()));
                }
            }
            Ok(Exit::Success)
        }
    }
}

fn fetch(queues: &[std::path::PathBuf], concurrency: usize, json: bool, ctx: &Ctx) -> anyhow::Result<Exit> {
    crate::home::require(&ctx.home)?;
    let cfg = HomeConfig::load(&ctx.home).context("cannot load the configuration")?;
    let g = &cfg.grounding;
    if !g.enabled || g.sources.is_empty() {
        anyhow::bail!(
            "no trust list to ask: {} has {}; add [[grounding.sources]] (`amem grounding init --opinionated` writes a starter list)",
            HomeConfig::path(&ctx.home).display(),
            if g.enabled { "no [[grounding.sources]]" } else { "[grounding] enabled = false" }
        );
    }
    let queues: Vec<std::path::PathBuf> = if queues.is_empty() {
        amem_audit::fetch::queues_of(&ctx.home)?
    } else {
        queues.iter().map(|q| amem_audit::fetch::state_of_queue_arg(q)).collect()
    };
    if queues.is_empty() {
        anyhow::bail!(
            "no unverified queue under {}: run an audit first (a shard files its misses in shards/I-of-N/unverified)",
            ctx.home.display()
        );
    }
    // The captures go into the home's wiki: one writer at a time, as for an audit.
    let _lock = amem_ledger::HomeLock::acquire(&ctx.home, "amem grounding fetch")?;
    let grounding = amem_audit::ground::from_config(&ctx.home, g, ctx.meaning()?)?;
    let pb = ctx.shows_progress().then(|| ctx.progress_bar(None, "fetch"));
    let report = amem_audit::fetch::fetch_queued(&queues, grounding, concurrency, &|done, total| {
        if let Some(pb) = &pb {
            pb.set_length(total as u64);
            pb.set_position(done as u64);
        }
    })?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    for s in &report.skipped {
        ctx.warn(format!("skipped {s}"));
    }
    if json {
        let mut out = ctx.stdout();
        write_json_line(&mut out, &json!({"type": "grounding_fetch", "data": report}))?;
        out.flush()?;
    }
    ctx.note(format!(
        "{} claims on {} queue(s), {} distinct: {} captured, {} with no evidence, {} unavailable; {} requests",
        report.queued,
        report.queues,
        report.claims,
        report.captured,
        report.no_evidence,
        report.unavailable.len(),
        report.requests
    ));
    for (claim, why) in report.unavailable.iter().take(5) {
        ctx.warn(format!("unavailable for {claim:?}: {why}"));
    }
    if report.captured > 0 {
        ctx.hint("run each shard again with --reassess to decide its claims on what was captured");
    }
    Ok(Exit::Success)
}
