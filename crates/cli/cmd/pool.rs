//! `amem pool …`: research write pools. Build a pool from mail threads that
//! carry quoted or forwarded content, draw a blind stratified labelling
//! session, score the labels, compare two pools.

use crate::Exit;
use crate::printer::{Ctx, write_json_line};
use amem_audit::sources::open_source;
use amem_pool::build::{self, Writes};
use amem_pool::pool_file::PoolWriter;
use amem_pool::score::{self, MECHANISMS};
use amem_pool::session;
use amem_records::{ImportOptions, MessageStream};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// The pool commands.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum PoolCommand {
    /// Build a gated candidate pool from mail archives (threads with quoted or forwarded content)
    Build {
        /// A mail archive as KIND:PATH (enron, enron-csv or gmail); repeatable
        #[arg(long = "source", value_name = "KIND:PATH", required = true)]
        sources: Vec<String>,
        /// A memory system's writes: JSONL {"source_id","write_id","memory"}, joined on the id `amem import` prints
        #[arg(long, conflicts_with = "extractor", required_unless_present = "extractor")]
        writes: Option<PathBuf>,
        /// Use the built-in extractor instead of a writes file
        #[arg(long, value_parser = ["rules"])]
        extractor: Option<String>,
        /// The pool folder (pool.arrow, manifest.json)
        #[arg(long)]
        out: PathBuf,
        /// Ask model endpoints on this machine only (loopback), for the gate's model roles
        #[arg(long)]
        offline: bool,
    },
    /// Draw a blind labelling session: session.csv for labellers, key.csv kept hidden
    Session {
        /// The pool folder
        #[arg(long)]
        pool: PathBuf,
        /// Candidates drawn from each stratum (flagged, passed)
        #[arg(long)]
        per_stratum: usize,
        /// The seed of the draw and of the order
        #[arg(long)]
        seed: u64,
        /// Where to write session.csv and key.csv [default: the pool folder]
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Score a labelled session against its key
    Score {
        /// session.csv with the label (and optional mechanism) column filled
        #[arg(long)]
        session: PathBuf,
        /// The session's key.csv
        #[arg(long)]
        key: PathBuf,
        /// A second labeller's copy of the session, for Cohen's kappa
        #[arg(long)]
        second_pass: Option<PathBuf>,
        /// Seed of the bootstrap
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        output: crate::printer::OutputArgs,
    },
    /// Fisher's exact test on the mechanism counts of two labelled sessions
    Compare {
        /// First labelled session.csv (with its key.csv beside it)
        a: PathBuf,
        /// Second labelled session.csv (with its key.csv beside it)
        b: PathBuf,
        #[command(flatten)]
        output: crate::printer::OutputArgs,
    },
}

pub(crate) fn run(c: PoolCommand, ctx: &Ctx) -> anyhow::Result<Exit> {
    match c {
        PoolCommand::Build { sources, writes, extractor: _, out, offline } => {
            let mut streams: Vec<MessageStream> = Vec::new();
            for spec in &sources {
                let (kind, path) = crate::paths::source_arg(spec)?;
                let path = &path;
                if kind.is_chat() {
                    return Err(crate::UsageError(format!(
                        "pools are built from mail (enron, enron-csv, gmail), not chat ({kind}): quoted structure is what selects a thread"
                    ))
                    .into());
                }
                streams.push(open_source(kind, path, &ImportOptions::default()).with_context(|| format!("cannot open {spec}"))?);
            }
            let (w, name) = match &writes {
                Some(p) => (build::read_writes(p)?, p.display().to_string()),
                None => (Writes::Rules, amem_extract::EXTRACTOR.to_string()),
            };
            let mut writer = PoolWriter::create(&out)?;
            // The gate's model roles the home configures, if any (second readers: they can only
            // add findings); the manifest says what they were asked.
            let roles = ctx.gate_roles(offline)?;
            let models = roles.as_deref().map(amem_endpoint::EndpointGate::models).unwrap_or_default();
            let manifest = build::build(streams, &w, &name, models, &mut |cand| writer.push(cand))?;
            for m in &manifest.gate_models {
                ctx.note(m.describe());
            }
            let pool = writer.finish()?;
            let mpath = out.join("manifest.json");
            std::fs::write(&mpath, serde_json::to_vec_pretty(&manifest)?).with_context(|| format!("cannot write {}", mpath.display()))?;
            ctx.note(format!(
                "stimulus set {}: {} messages read, {} sources selected, {} candidates ({} sources without writes)",
                manifest.stimulus_set_id,
                manifest.messages_read,
                manifest.sources_selected,
                manifest.candidates,
                manifest.sources_without_writes
            ));
            ctx.note(format!("wrote {} and {}", pool.display(), mpath.display()));
            Ok(Exit::Success)
        }
        PoolCommand::Session { pool, per_stratum, seed, out } => {
            let cands = amem_pool::pool_file::read(&pool)?;
            let s = session::draw(&cands, per_stratum, seed);
            let dir = out.unwrap_or(pool);
            session::write(&s, &dir)?;
            ctx.note(format!(
                "drew {} of {} flagged and {} passed ({} uncheckable not sampled); wrote {} (give to labellers) and {} (keep hidden)",
                s.rows.len(),
                s.pool_sizes[0],
                s.pool_sizes[1],
                s.uncheckable,
                dir.join("session.csv").display(),
                dir.join("key.csv").display()
            ));
            Ok(Exit::Success)
        }
        PoolCommand::Score { session, key, second_pass, seed, output } => {
            let key = score::read_key(&key)?;
            let (rows, unlabelled) = score::read_labelled(&session, &key)?;
            let second = match &second_pass {
                Some(p) => Some(score::read_labelled(p, &key)?.0),
                None => None,
            };
            let s = score::score(&rows, unlabelled, second.as_deref(), seed);
            let mut out = ctx.stdout();
            if output.is_json() {
                write_json_line(&mut out, &s)?;
            } else {
                out.write_all(score::render(&s).as_bytes())?;
            }
            out.flush()?;
            Ok(Exit::Success)
        }
        PoolCommand::Compare { a, b, output } => {
            let counts = |p: &PathBuf| -> anyhow::Result<[u64; 4]> {
                let key = score::read_key(&p.with_file_name("key.csv")).with_context(|| format!("no key.csv beside {}", p.display()))?;
                Ok(score::mechanism_counts(&score::read_labelled(p, &key)?.0))
            };
            let (ca, cb) = (counts(&a)?, counts(&b)?);
            let p = amem_pool::stats::fisher_exact_2xk(&ca, &cb);
            let mut out = ctx.stdout();
            if output.is_json() {
                write_json_line(&mut out, &serde_json::json!({"mechanisms": MECHANISMS, "a": ca, "b": cb, "fisher_p_two_sided": p}))?;
            } else {
                writeln!(out, "{:<12} {:>6} {:>6}", "mechanism", "A", "B")?;
                for (i, m) in MECHANISMS.iter().enumerate() {
                    writeln!(out, "{m:<12} {:>6} {:>6}", ca[i], cb[i])?;
                }
                match p {
                    Some(p) => writeln!(out, "Fisher's exact test (two-sided, 2x4): p = {p:.4}")?,
                    None => writeln!(out, "Fisher's exact test: no mechanism was labelled in either session, nothing to compare")?,
                }
            }
            out.flush()?;
            Ok(Exit::Success)
        }
    }
}
