//! `amem eval cues --corpus DIR`: score the gate's negation, hedge and
//! attribution cue detectors against the independently annotated corpora
//! (../shared/eval: bioscope, sfu_review, sherlock_cdsco, polnear). DIR is
//! the eval folder or one corpus folder.
//!
//! stdout: `--format json` one `{"corpus","class","precision","recall","f1","n"}`
//! per line; `--format text` (default) a table. `--mine` prints the mining
//! rule's candidates instead (`{"corpus","class","entry","fires","newly","annotated","kept"}`).

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
