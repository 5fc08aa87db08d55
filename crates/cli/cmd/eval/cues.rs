//! `amem eval cues --corpus DIR`: score the gate's negation, hedge and
//! attribution cue detectors against the independently annotated corpora
//! (../shared/eval: bioscope, sfu_review, sherlock_cdsco, polnear). DIR is
//! the eval folder or one corpus folder.
//!
//! stdout: `--format json` one `{"corpus","class","precision","recall","f1","n"}`
//! per line; `--format text` (default) a table. `--mine` prints the mining
//! rule's candidates instead (`{"corpus","class","entry","fires","newly","annotated","kept"}`).
//! `--witness NAME` scores the hedge and attribution classes with a model endpoint as the
//! gate's witness beside the word lists (`amem_eval::cues::evaluate_witness`), with the
//! sentence-level shuffled control, and says what the calls cost.

use crate::Exit;
use crate::cmd::gate::Format;
use crate::printer::{Ctx, write_json_line};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `amem eval cues`.
#[derive(clap::Args, Debug)]
pub(crate) struct CuesArgs {
    /// The eval folder (../shared/eval) or one corpus folder holding sentences.jsonl
    #[arg(long, value_name = "DIR")]
    pub corpus: PathBuf,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print the word-list mining candidates (the fixed rule: >=10 fires, >=60% of newly fired sentences annotated)
    #[arg(long)]
    pub mine: bool,
    /// Score the hedge and attribution classes with the [[models]] entry NAME as the gate's
    /// witness beside the word lists (one call per record; answers remembered in the ledger)
    #[arg(long, value_name = "NAME", conflicts_with = "mine")]
    pub witness: Option<String>,
    /// With --witness: at most this many records per corpus, evenly spaced (0: all)
    #[arg(long, default_value_t = 0, requires = "witness")]
    pub limit: usize,
    /// With --witness: allow a model endpoint on this machine only
    #[arg(long, requires = "witness")]
    pub offline: bool,
}

pub(crate) fn run(a: CuesArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let mut out = ctx.stdout();
    if a.mine {
        for (name, path) in amem_eval::cues::corpora(&a.corpus)? {
            for c in amem_eval::cues::mine_file(&name, &path)? {
                match a.format {
                    Format::Json => write_json_line(&mut out, &c)?,
                    Format::Text => writeln!(out, "{c}")?,
                }
            }
        }
        out.flush()?;
        return Ok(Exit::Success);
    }
    if let Some(name) = &a.witness {
        return run_witness(&a, name, ctx);
    }
    let scores = amem_eval::cues::evaluate_dir(&a.corpus)?;
    match a.format {
        Format::Json => {
            for s in &scores {
                write_json_line(&mut out, s)?;
            }
        }
        Format::Text => out.write_all(amem_eval::cues::markdown_table(&scores).as_bytes())?,
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `--witness NAME`: the word lists alone and with the witness, per corpus and class, with the
/// sentence-level shuffled control, then the calls, cache hits, tokens and time.
fn run_witness(a: &CuesArgs, name: &str, ctx: &Ctx) -> anyhow::Result<Exit> {
    let config = ctx.named_model(name, amem_endpoint::Role::Witness)?;
    let answers = ctx.home.join(amem_ledger::LEDGER_FILE);
    let Some(roles) =
        crate::printer::open_model_roles(&ctx.home, std::slice::from_ref(&config), a.offline, Some(&answers), &mut |n| ctx.note(n))?.gate
    else {
        anyhow::bail!("the model {name:?} cannot be asked offline");
    };
    let witness = roles.models().witness.ok_or_else(|| anyhow::anyhow!("the model {name:?} plays no witness role"))?;
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    for (corpus, path) in amem_eval::cues::corpora(&a.corpus)? {
        let records = amem_eval::cues::load(&path)?;
        let taken = amem_eval::cues::spread(&records, a.limit);
        rows.extend(amem_eval::cues::evaluate_witness(&corpus, &taken, witness));
    }
    let counts = roles.counts(amem_endpoint::Role::Witness).unwrap_or_default();
    let mut out = ctx.stdout();
    match a.format {
        Format::Json => {
            for r in &rows {
                write_json_line(&mut out, r)?;
            }
        }
        Format::Text => out.write_all(amem_eval::cues::witness_table(&rows).as_bytes())?,
    }
    out.flush()?;
    ctx.note(format!(
        "witness {} (model {} at {}): {}; {:.1} s in all",
        roles.models().witness.map(|w| w.method()).unwrap_or(""),
        config.model,
        config.url,
        counts.describe(),
        started.elapsed().as_secs_f64()
    ));
    Ok(Exit::Success)
}
