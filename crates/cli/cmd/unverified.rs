//! `amem unverified …`: the queue of claims no evidence settled, filed by
//! each audit under `$AMEM_HOME/unverified/`.

use crate::printer::{Ctx, write_json_line};
use crate::{Exit, UsageError};
use amem_audit::unverified;
use amem_records::{AuditRecord, Status};
use std::io::Write;
use std::path::PathBuf;

/// What to do with the queue.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum UnverifiedCommand {
    /// List the filed claims: id, status, who, when, the claim
    List {
        #[command(flatten)]
        output: crate::printer::OutputArgs,
        #[command(flatten)]
        filter: ListFilter,
        /// The queue of shard I of N (`amem audit chat-history --shard I/N`) [default: the home's own]
        #[arg(long, value_name = "I/N", value_parser = amem_records::Shard::parse)]
        shard: Option<amem_records::Shard>,
    },
    /// Take a claim off the queue, recording why
    Reject {
        /// The claim's id (or a unique prefix of it)
        id: String,
        /// Why it is rejected (kept in unverified/rejected.jsonl)
        #[arg(long)]
        why: String,
        /// On the queue of shard I of N [default: the home's own]
        #[arg(long, value_name = "I/N", value_parser = amem_records::Shard::parse)]
        shard: Option<amem_records::Shard>,
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
        /// A claim on the queue of shard I of N: its reassessment goes to that shard's ledger
        /// (the capture goes into the home's wiki, which every shard reads) [default: the home's own]
        #[arg(long, value_name = "I/N", value_parser = amem_records::Shard::parse)]
        shard: Option<amem_records::Shard>,
    },
}

/// Which filed claims `unverified list` shows. Filters combine (all must
/// hold); the count at the end says how many of the queue were shown.
#[derive(clap::Args, Debug, Default)]
pub(crate) struct ListFilter {
    /// Only these statuses (comma-separated or repeated): no_evidence,
    /// not_addressed, partially_supported, ambiguous, source_unavailable, stale (not_checkable claims are never filed)
    #[arg(long, value_delimiter = ',')]
    status: Vec<String>,
    /// Only claims whose author contains this text (any case)
    #[arg(long)]
    author: Option<String>,
    /// Only claims whose conversation (thread, channel, chat) contains this text (any case)
    #[arg(long)]
    conversation: Option<String>,
    /// Only claims sent at or after this (last-week, 7d, 2024-05-01, RFC 3339)
    #[arg(long)]
    since: Option<String>,
    /// Only claims sent before this (same forms; a bare date includes that day)
    #[arg(long)]
    until: Option<String>,
    /// Order: id (the queue's own), newest (by when the claim was sent), or check-worthy (the user's
    /// own first, then evidence that came close, then claims with numbers, dates, comparisons and causes;
    /// the order of audit.md's short list)
    #[arg(long, value_enum, default_value_t = ListOrder::Id)]
    sort: ListOrder,
    /// At most this many
    #[arg(long)]
    limit: Option<usize>,
}

/// `unverified list --sort`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ListOrder {
    /// By claim id, as filed.
    #[default]
    Id,
    /// The newest first, by when the claim was sent.
    Newest,
    /// The most check-worthy first ([`AuditRecord::check_worth`]).
    CheckWorthy,
}

impl ListFilter {
    /// The filtered, ordered, limited list; `Err` on a status or a time
    /// that does not parse (a usage error).
    fn apply(&self, mut items: Vec<(String, AuditRecord)>) -> anyhow::Result<Vec<(String, AuditRecord)>> {
        let mut statuses = Vec::with_capacity(self.status.len());
        for s in &self.status {
            let st = Status::parse(s.trim()).ok_or_else(|| {
                let known: Vec<&str> = Status::ALL.iter().map(Status::as_str).collect();
                UsageError(format!("--status {s:?} is not a status: use one of {}", known.join(", ")))
            })?;
            statuses.push(st);
        }
        let window = super::import::window(self.since.as_deref(), self.until.as_deref(), None)?;
        let contains = |hay: &str, needle: &Option<String>| needle.as_ref().is_none_or(|n| hay.to_lowercase().contains(&n.to_lowercase()));
        items.retain(|(_, rec)| {
            (statuses.is_empty() || statuses.contains(&rec.assessment.status))
                && contains(&rec.author, &self.author)
                && contains(&rec.conversation, &self.conversation)
                && window.contains(rec.sent_at)
        });
        match self.sort {
            ListOrder::Id => {}
            ListOrder::Newest => items.sort_by(|(a_id, a), (b_id, b)| b.sent_at.cmp(&a.sent_at).then_with(|| a_id.cmp(b_id))),
            ListOrder::CheckWorthy => {
                items.sort_by(|(a_id, a), (b_id, b)| b.check_worth().cmp(&a.check_worth()).then_with(|| a_id.cmp(b_id)))
            }
        }
        if let Some(n) = self.limit {
            items.truncate(n);
        }
        Ok(items)
    }
}

pub(crate) fn run(c: UnverifiedCommand, ctx: &Ctx) -> anyhow::Result<Exit> {
    let home = &ctx.home;
    match c {
        UnverifiedCommand::List { output, filter, shard } => {
            let home = &amem_audit::run::state_dir(home, shard);
            let listed = unverified::list(home)?;
            for why in &listed.skipped {
                ctx.warn(format!("skipped {why}"));
            }
            let queued = listed.items.len();
            let items = filter.apply(listed.items)?;
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
            let shown = if items.len() == queued { String::new() } else { format!(" (of {queued})") };
            ctx.note(format!("{} unverified claim(s){shown} in {}{skipped}", items.len(), unverified::dir(home).display()));
            Ok(Exit::Success)
        }
        UnverifiedCommand::Reject { id, why, shard } => {
            let r = unverified::reject(&amem_audit::run::state_dir(home, shard), &id, &why, jiff::Timestamp::now())?;
            ctx.note(format!("rejected {}: {}", r.id, r.why));
            Ok(Exit::Success)
        }
        UnverifiedCommand::Capture { id, file, source, shard } => {
            let rec = amem_audit::unverified::capture_and_reassess(
                home,
                shard,
                &id,
                &file,
                source.as_deref(),
                jiff::Timestamp::now(),
                ctx.meaning()?,
            )?;
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
