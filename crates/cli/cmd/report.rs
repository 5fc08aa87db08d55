//! `amem report --merge DIR...`: one set of reports from the shards of a sharded audit
//! (docs/reference.md, "Scale-out").
//!
//! Each shard (`amem audit chat-history --shard I/N`) keeps its ledger in `$AMEM_HOME/shards/I-of-N/`;
//! this reads each one's latest audit, with the reassessments after it (`--reassess`), and writes
//! `audit.md` (and the other formats asked for) as one run over the whole archive would.
//!
//! stdout: nothing, or with `--format json` one `{"type":"report_merge","data":{...}}` line.

use crate::Exit;
use crate::config::HomeConfig;
use crate::printer::{Ctx, write_json_line};
use amem_audit::Formats;
use std::io::Write;
use std::path::PathBuf;

/// `amem report …`
#[derive(clap::Args, Debug)]
pub(crate) struct ReportArgs {
    /// A shard's folder ($AMEM_HOME/shards/I-of-N, or any folder with a shard's ledger.sqlite);
    /// repeatable [default: every shard under the home]
    #[arg(long = "merge", value_name = "DIR", value_parser = crate::paths::path_arg, num_args = 0..)]
    merge: Vec<PathBuf>,
    /// Where to write the reports [default: $AMEM_HOME/reports/<merged run id>/]
    #[arg(long, value_name = "DIR", value_parser = crate::paths::path_arg)]
    out: Option<PathBuf>,
    /// Which reports: any of md, arrow, jsonl, parquet, comma-separated
    #[arg(long = "reports", default_value = "md,arrow", value_parser = Formats::parse)]
    reports: Formats,
    /// List every unverified claim in audit.md, not only the most check-worthy
    #[arg(long)]
    full: bool,
    #[command(flatten)]
    output: crate::printer::OutputArgs,
}

pub(crate) fn run(a: ReportArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let home = &ctx.home;
    let states: Vec<PathBuf> = if a.merge.is_empty() {
        let shards = home.join("shards");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&shards)
            .map_err(|e| {
                anyhow::anyhow!("no shards to merge under {} ({e}): run `amem audit chat-history --shard I/N` first", shards.display())
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join(amem_ledger::LEDGER_FILE).is_file())
            .collect();
        dirs.sort();
        // Shards of two splits (2 and 4, say) each cover the whole archive: merged, every claim
        // would count twice. Which split is meant is for the user to say.
        let splits: std::collections::BTreeSet<u32> =
            dirs.iter().filter_map(|d| d.file_name()?.to_str()?.split_once("-of-").and_then(|(_, n)| n.parse().ok())).collect();
        if splits.len() > 1 {
            return Err(crate::UsageError(format!(
                "{} holds shards of {} splits (of {} shards): name one split's folders with --merge",
                shards.display(),
                splits.len(),
                splits.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            ))
            .into());
        }
        dirs
    } else {
        a.merge.clone()
    };
    if states.is_empty() {
        anyhow::bail!("no shards to merge under {}: run `amem audit chat-history --shard I/N` first", home.join("shards").display());
    }
    let config = HomeConfig::load(home)?;
    let options = amem_audit::report::ReportOptions {
        formats: a.reports,
        identity: &config.me,
        slack_names: &Default::default(),
        full: a.full,
        queue: home,
    };
    let parts = states.iter().map(|s| amem_audit::report::shard_part(s)).collect::<anyhow::Result<Vec<_>>>()?;
    let run = amem_audit::report::merged_run(&parts)?;
    let dir = a.out.clone().unwrap_or_else(|| home.join("reports").join(format!("merged-{}", run.run_id)));
    let (files, summary) = amem_audit::report::merge_reports(home, &parts, &run, &dir, &options, amem_audit::run::count_row)?;
    if a.output.is_json() {
        let mut out = ctx.stdout();
        write_json_line(
            &mut out,
            &serde_json::json!({"type": "report_merge", "data": {
                "run_id": run.run_id, "shards": states, "report_dir": dir, "files": files, "summary": summary,
            }}),
        )?;
        out.flush()?;
    }
    ctx.note(format!(
        "merged {} shard(s): {} messages read, {} claims audited: {} supported, {} contradicted, {} unverified",
        states.len(),
        summary.messages_read,
        summary.assessed,
        summary.group_count(amem_records::Group::Supported),
        summary.group_count(amem_records::Group::Contradicted),
        summary.group_count(amem_records::Group::Unverified),
    ));
    for f in &files {
        ctx.note(format!("wrote {}", f.display()));
    }
    Ok(Exit::Success)
}
