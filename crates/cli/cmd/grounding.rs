//! `amem grounding init [--opinionated] [--force]` and `amem grounding list`:
//! the trust list in `$AMEM_HOME/config.toml` (docs/reference.md, "Fact-check and verification").
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
