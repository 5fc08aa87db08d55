//! `amem import KIND PATH`: print an archive's messages as JSON lines.
//!
//! stdout: one `Message` per line (the fields of `amem_records::Message`:
//! `source`, `archive`, `conversation`, `id`, `author`, `recipients`,
//! `sent_at` (RFC 3339 UTC), `subject`, `text`, `quoted`
//! (`kind`, `header`, `author`, `sent_at`, `text`), `locator`, `meta`,
//! `not_claims`). stderr: one line per skipped record naming file and
//! position, then the counts.

use crate::printer::{Ctx, write_json_line};
use crate::{Exit, UsageError};
use amem_records::{ImportOptions, ImportSummary, SourceKind, TimeWindow};
use anyhow::Context;
use std::path::PathBuf;

/// Arguments of `amem import`.
#[derive(clap::Args, Debug)]
pub(crate) struct ImportArgs {
    /// Archive format: slack, imessage, gmail (any mbox), enron (maildir), enron-csv, or auto (probed)
    #[arg(value_parser = parse_kind)]
    pub kind: KindArg,
    /// The archive: Slack export folder or .zip, chat.db, .mbox file, maildir root, CSV file
    #[arg(value_parser = crate::paths::path_arg)]
    pub path: PathBuf,
    /// Only messages sent at or after this (last-week, yesterday, today, 7d, 48h, 2w, 2024-05-01, RFC 3339)
    #[arg(long)]
    pub since: Option<String>,
    /// Only messages sent before this (same forms; a bare date includes that day)
    #[arg(long)]
    pub until: Option<String>,
    /// The time relative forms count from (RFC 3339) [default: the current time]
    #[arg(long)]
    pub now: Option<String>,
    /// Exit 1 when any record was skipped
    #[arg(long)]
    pub strict: bool,
}

/// A kind as given: `auto` is `None` (found by probing the archive).
#[derive(Clone, Copy, Debug)]
pub(crate) struct KindArg(Option<SourceKind>);

pub(crate) fn parse_kind(s: &str) -> Result<KindArg, String> {
    if s == "auto" {
        return Ok(KindArg(None));
    }
    SourceKind::parse(s)
        .map(|k| KindArg(Some(k)))
        .ok_or_else(|| format!("unknown kind {s:?}: use slack, imessage, gmail, enron, enron-csv or auto"))
}

/// Resolve `--now` (or the wall clock) and the window.
pub(crate) fn window(since: Option<&str>, until: Option<&str>, now: Option<&str>) -> anyhow::Result<TimeWindow> {
    let now = match now {
        Some(n) => n.parse::<jiff::Timestamp>().map_err(|_| UsageError(format!("--now {n:?} is not an RFC 3339 time")))?,
        None => jiff::Timestamp::now(),
    };
    Ok(TimeWindow::parse(since, until, now)?)
}

pub(crate) fn run(a: ImportArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let opts = ImportOptions { window: window(a.since.as_deref(), a.until.as_deref(), a.now.as_deref())? };
    let (kind, path) = crate::paths::checked_source(a.kind.0, a.path)?;
    let stream =
        amem_audit::sources::open_source(kind, &path, &opts).with_context(|| format!("cannot open {} as {kind}", path.display()))?;
    let mut summary = ImportSummary::default();
    let mut out = ctx.stdout();
    for item in stream {
        summary.count(&item);
        match item {
            Ok(m) => write_json_line(&mut out, &m)?,
            Err(e) => ctx.warn(format!("skipped: {e}")),
        }
    }
    std::io::Write::flush(&mut out)?;
    let mut line = format!("{} messages", summary.messages);
    for (k, n) in &summary.not_claims {
        line.push_str(&format!(", {n} {k} (not claims)"));
    }
    line.push_str(&format!(", {} skipped", summary.skipped_total()));
    for (k, n) in &summary.skipped {
        line.push_str(&format!(" [{k}: {n}]"));
    }
    ctx.note(line);
    Ok(if a.strict && summary.skipped_total() > 0 { Exit::Failure } else { Exit::Success })
}
