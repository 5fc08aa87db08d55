//! `amem unverified …`: the queue of claims no evidence settled, filed by
//! each audit under `$AMEM_HOME/unverified/`.

use crate::Exit;
use crate::printer::{Ctx, write_json_line};
use amem_audit::unverified;
use std::io::Write;
use std::path::PathBuf;

/// What to do with the queue.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum UnverifiedCommand {
    /// List the filed claims: id, status, who, when, the claim
    List {
        #[command(flatten)]
        output: crate::printer::OutputArgs,
    },
    /// Take a claim off the queue, recording why
    Reject {
        /// The claim's id (or a unique prefix of it)
        id: String,
        /// Why it is rejected (kept in unverified/rejected.jsonl)
        #[arg(long)]
        why: String,
    },
    /// Capture a source file into the wiki and assess the claim again
    Capture {
        /// The claim's id (or a unique prefix of it)
        id: String,
        /// A text or markdown file holding the evidence
        file: PathBuf,
        /// Where the text came from
        #[arg(long)]
        source: Option<String>,
    },
}

pub(crate) fn run(c: UnverifiedCommand, ctx: &Ctx) -> anyhow::Result<Exit> {
    let home = &ctx.home;
    match c {
        UnverifiedCommand::List { output } => {
            let listed = unverified::list(home)?;
            for why in &listed.skipped {
                ctx.warn(format!("skipped {why}"));
            }
            let items = listed.items;
            let mut out = ctx.stdout();
            for (id, rec) in &items {
                if output.is_json() {
                    write_json_line(&mut out, &serde_json::json!({"id": id, "record": rec}))?;
                } else {
                    writeln!(
                        out,
                        "{id}  {:<19}  {}  {}  {}: {}",
                        rec.assessment.status.as_str(),
                        rec.sent_at.strftime("%Y-%m-%d %H:%M"),
                        rec.source,
                        rec.author,
                        rec.claim.text.replace('\n', " ")
                    )?;
                }
            }
            out.flush()?;
            let skipped = match listed.skipped.len() {
                0 => String::new(),
                n => format!(" ({n} damaged entr{} skipped)", if n == 1 { "y" } else { "ies" }),
            };
            ctx.note(format!("{} unverified claim(s) in {}{skipped}", items.len(), unverified::dir(home).display()));
            Ok(Exit::Success)
        }
        UnverifiedCommand::Reject { id, why } => {
            let r = unverified::reject(home, &id, &why, jiff::Timestamp::now())?;
            ctx.note(format!("rejected {}: {}", r.id, r.why));
            Ok(Exit::Success)
        }
        UnverifiedCommand::Capture { id, file, source } => {
            let rec = amem_audit::unverified::capture_and_reassess(home, &id, &file, source.as_deref(), jiff::Timestamp::now())?;
            let mut out = ctx.stdout();
            writeln!(out, "{}  {}  {}", unverified::short_id(&rec), rec.assessment.status.as_str(), rec.claim.text)?;
            for e in &rec.evidence {
                writeln!(out, "  {}  \"{}\"", e.uri, e.quote.replace('\n', " "))?;
            }
            out.flush()?;
            Ok(Exit::Success)
        }
    }
}
