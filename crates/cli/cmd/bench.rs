//! `amem bench`: score a memory system's writes against their sources as
//! three figures printed together (flag rate among checkable writes,
//! uncheckable share, abstention share), tagged with the stimulus set.

use crate::Exit;
use crate::printer::{Ctx, write_json_line};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `amem bench`.
#[derive(clap::Args, Debug)]
pub(crate) struct BenchArgs {
    /// Sources: JSONL {"source_id","source"} (or the lines `amem import` prints)
    #[arg(long)]
    sources: PathBuf,
    /// Writes: JSONL {"source_id","write_id","memory"}
    #[arg(long)]
    writes: PathBuf,
    /// The stimulus set's id (from a pool manifest, or your own), printed with the figures
    #[arg(long)]
    stimulus_set: String,
    /// Ask model endpoints on this machine only (loopback), for the gate's model roles
    #[arg(long)]
    offline: bool,
    #[command(flatten)]
    out: crate::printer::OutputArgs,
}

pub(crate) fn run(a: BenchArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    // The gate's model roles the home configures, if any: the figures are then the gate's with
    // them, and the output says what they were asked.
    let roles = ctx.gate_roles(a.offline)?;
    let models = roles.as_deref().map(amem_endpoint::EndpointGate::models).unwrap_or_default();
    let s = amem_pool::bench::score(&a.sources, &a.writes, &a.stimulus_set, models)?;
    let mut out = ctx.stdout();
    if a.out.is_json() {
        write_json_line(&mut out, &s)?;
    } else {
        out.write_all(amem_pool::bench::render(&s).as_bytes())?;
    }
    out.flush()?;
    if s.writes_unmatched > 0 {
        ctx.warn(format!("{} write(s) name a source id not in {}: not scored", s.writes_unmatched, a.sources.display()));
    }
    Ok(Exit::Success)
}
