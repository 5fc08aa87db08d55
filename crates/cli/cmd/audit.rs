//! `amem audit chat-history`: the main job. Streams the archives through
//! extraction, local recall, the trust list (unless offline), verification
//! and the gate; records everything in the ledger; writes the reports.
//!
//! stdout: nothing, or with `--format json` (or `--json`) JSON Lines (`{"type":"run_begin",...}`
//! then `{"type":"run_summary",...}`). stderr: progress when it is a
//! terminal, then where the reports went. Exit codes: 0 clean, 1 error (or
//! skipped records with `--strict`), 3 a contradicted claim was found with
//! `--fail-on contradicted` (or `default_action = "block"` in config.toml).

use crate::cmd::import::window;
use crate::config::HomeConfig;
use crate::printer::{Ctx, write_json_line};
use crate::{Exit, UsageError};
use amem_audit::progress::Counters;
use amem_audit::{AuditParams, Formats, run_audit};
use amem_grounding::DefaultAction;
use amem_records::{Group, SourceKind, Who};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// `amem audit …`
#[derive(clap::Args, Debug)]
pub(crate) struct AuditArgs {
    #[command(subcommand)]
    target: AuditTarget,
}

#[derive(clap::Subcommand, Debug)]
enum AuditTarget {
    /// Audit chat and mail history: Slack, iMessage, mbox, Enron maildir/CSV
    ChatHistory(ChatHistoryArgs),
}

/// Flags override config.toml; config.toml overrides the defaults.
#[derive(clap::Args, Debug)]
struct ChatHistoryArgs {
    /// An archive to read, as KIND:PATH (kinds: slack, imessage, gmail, enron, enron-csv), auto:PATH
    /// or a bare PATH (the kind is probed); repeatable. Without it, the [[imports]] of config.toml are read
    #[arg(long = "source", value_name = "KIND:PATH")]
    sources: Vec<String>,
    /// Only messages sent at or after this (last-week, yesterday, today, 7d, 48h, 2w, 2024-05-01, RFC 3339)
    #[arg(long)]
    since: Option<String>,
    /// Only messages sent before this (same forms; a bare date includes that day)
    #[arg(long)]
    until: Option<String>,
    /// The clock relative times count from (RFC 3339); also makes the run reproducible [default: now]
    #[arg(long)]
    now: Option<String>,
    /// Touch no network, whatever config.toml says
    #[arg(long)]
    offline: bool,
    /// Where to write the reports [default: $AMEM_HOME/reports/<run-id>/]
    #[arg(long, value_name = "DIR", value_parser = crate::paths::path_arg)]
    out: Option<PathBuf>,
    /// Which reports: any of md, arrow, jsonl, parquet, comma-separated (parquet: the rows of audit.arrow as audit.parquet); json (alone or among them) prints the
    /// machine-readable summary (JSON Lines) on stdout, as on every command
    #[arg(long, default_value = "md,arrow", value_parser = parse_formats)]
    format: AuditFormats,
    /// Exit with code 3 when a claim is contradicted
    #[arg(long, value_parser = ["contradicted"])]
    fail_on: Option<String>,
    /// The same as --format json: a machine-readable summary (JSON Lines) on stdout
    #[arg(long)]
    json: bool,
    /// Reassess messages already assessed under this policy version
    #[arg(long)]
    rerun: bool,
    /// Create the home (and its wiki/ folder) when it does not exist yet
    #[arg(long)]
    init: bool,
    /// Exit 1 when any record was skipped
    #[arg(long)]
    strict: bool,
    /// Claims grounded on the trust list at once (each host keeps its own limit)
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Threads for extraction, recall, verification and the gate [default: the number of cores]
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Whose messages to audit: me (the [me] of config.toml, and iMessage's own), others, or all
    #[arg(long, default_value = "all", value_parser = Who::parse)]
    who: Who,
    /// Audit bulk and automated mail (list headers, no-reply senders, Gmail categories) and Slack bots too;
    /// by default they are skipped and counted by reason
    #[arg(long)]
    include_bulk: bool,
    /// Audit forwarded mail as its original authors' claims, passed on by the forwarder ("you forwarded: ...");
    /// by default forwarded and quoted text is counted, not audited. Quoted replies always stay out
    #[arg(long)]
    include_forwarded: bool,
    /// List every unverified claim in audit.md, not only the most check-worthy
    #[arg(long)]
    full: bool,
    /// Audit only shard I of N (0 <= I < N): the messages whose content hashes to I, every copy of
    /// a mail in the same shard. Each shard keeps its own ledger, lock and unverified queue under
    /// $AMEM_HOME/shards/I-of-N/ and runs offline; `amem grounding fetch --queue` fetches the
    /// shards' misses in one process, then `--reassess` decides them
    #[arg(long, value_name = "I/N", value_parser = amem_records::Shard::parse)]
    shard: Option<amem_records::Shard>,
    /// Assess again every message with a claim on the unverified queue (of this shard, with
    /// --shard), against the wiki as it now is: after `amem grounding fetch --queue` captured sources
    #[arg(long, conflicts_with = "rerun")]
    reassess: bool,
}

/// `--format`: the report files, and whether stdout gets JSON Lines.
#[derive(Clone, Copy, Debug)]
struct AuditFormats {
    reports: Formats,
    json: bool,
}

/// `json` means stdout (as on every command); the rest name report files,
/// md and arrow when none is named.
fn parse_formats(s: &str) -> Result<AuditFormats, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    let json = parts.contains(&"json");
    let files: Vec<&str> = parts.into_iter().filter(|p| *p != "json").collect();
    let reports = if files.is_empty() && json { Formats::default() } else { Formats::parse(&files.join(","))? };
    Ok(AuditFormats { reports, json })
}

pub(crate) fn run(a: AuditArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    match a.target {
        AuditTarget::ChatHistory(c) => {
            if c.init {
                crate::home::init(&ctx.home, ctx)?;
            } else {
                crate::home::require(&ctx.home)?;
            }
            chat_history(c, ctx)
        }
    }
}

fn chat_history(a: ChatHistoryArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let home = ctx.home.clone();
    let config = HomeConfig::load(&home)?;
    let mut sources: Vec<(SourceKind, PathBuf)> = Vec::new();
    for spec in &a.sources {
        sources.push(crate::paths::source_arg(spec)?);
    }
    if sources.is_empty() {
        for imp in &config.imports {
            sources.push(crate::paths::checked_source(Some(imp.kind), imp.resolved_path(&home)?)?);
        }
    }
    if sources.is_empty() {
        anyhow::bail!(
            "no archives to audit: name one with --source KIND:PATH (e.g. --source gmail:~/Takeout/All.mbox), \
             or add [[imports]] with kind and path to {}",
            HomeConfig::path(&home).display()
        );
    }
    // A report inside the wiki would be indexed by the next run and cited as
    // evidence for the very claims it reports (issue 40).
    if let Some(out) = &a.out {
        let wiki = crate::paths::canonical(&home.join("wiki"));
        let out = crate::paths::canonical_to_be(out);
        if out.starts_with(&wiki) {
            return Err(UsageError(format!(
                "--out {} is inside the wiki ({}): the next run would index the report and cite it as evidence; write reports elsewhere",
                out.display(),
                wiki.display()
            ))
            .into());
        }
    }
    // Validate the window before any work.
    window(a.since.as_deref(), a.until.as_deref(), a.now.as_deref())?;
    let now = a
        .now
        .as_deref()
        .map(|n| n.parse::<jiff::Timestamp>())
        .transpose()
        .map_err(|_| UsageError("--now is not an RFC 3339 time".into()))?;
    // A shard asks no host: n shards, each under its own limiter, would send n times a source's
    // published rate. Their misses are fetched in one process (`amem grounding fetch --queue`).
    if a.shard.is_some() && !a.offline && config.grounding.enabled && !config.grounding.sources.is_empty() {
        ctx.note("--shard: the trust list is not asked while sharded; `amem grounding fetch --queue` fetches every shard's misses in one process");
    }
    let offline = a.offline || a.shard.is_some() || !config.grounding.enabled || config.grounding.sources.is_empty();
    let grounder = if offline { None } else { Some(amem_audit::ground::from_config(&home, &config.grounding, ctx.meaning()?)?) };
    // A sharded run asks only loopback endpoints, as it asks no trust-list host: n shards
    // would each spend a hosted key's rate.
    let model_roles = ctx.model_roles(
        &config.models,
        a.offline || a.shard.is_some(),
        &amem_audit::run::state_dir(&home, a.shard).join(amem_ledger::LEDGER_FILE),
    )?;
    let params = AuditParams {
        home: home.clone(),
        sources,
        since: a.since.clone(),
        until: a.until.clone(),
        now,
        offline,
        out_dir: a.out.clone(),
        formats: a.format.reports,
        rerun: a.rerun,
        ground_concurrency: a.concurrency,
        workers: a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)),
        identity: config.me.clone(),
        who: a.who,
        include_bulk: a.include_bulk,
        include_forwarded: a.include_forwarded,
        full_report: a.full,
        model: ctx.model()?,
        check_worthiness: ctx.check_worthiness()?,
        meaning: ctx.meaning()?,
        shard: a.shard,
        reassess: a.reassess,
        endpoint: model_roles.verifier,
        gate_roles: model_roles.gate,
    };
    if a.who == Who::Me && config.me.is_empty() {
        ctx.warn(format!(
            "--who me: no [me] in {}, so only iMessage's own messages are yours; add emails, slack_ids, slack_names or handles",
            HomeConfig::path(&home).display()
        ));
    }

    let counters = Arc::new(Counters::default());
    let stop = Arc::new(AtomicBool::new(false));
    // People get a live line on stderr: counts, rate, and an ETA once a
    // quick counting pass over the archives knows the total.
    let total = Arc::new(AtomicU64::new(0));
    let counting = ctx.shows_progress().then(|| {
        let (srcs, total, stop) = (params.sources.clone(), Arc::clone(&total), Arc::clone(&stop));
        let w = window(a.since.as_deref(), a.until.as_deref(), a.now.as_deref()).unwrap_or_default();
        std::thread::spawn(move || {
            if let Some(n) = amem_audit::progress::count_messages(&srcs, w, &stop) {
                total.store(n, Ordering::Relaxed);
            }
        })
    });
    let drawer = ctx.shows_progress().then(|| {
        let pb = ctx.progress_bar(None, "audit");
        let c = Arc::clone(&counters);
        let stop = Arc::clone(&stop);
        let total = Arc::clone(&total);
        std::thread::spawn(move || {
            let started = std::time::Instant::now();
            while !stop.load(Ordering::Relaxed) {
                let secs = started.elapsed().as_secs_f64().max(0.001);
                let t = total.load(Ordering::Relaxed);
                pb.set_prefix(c.phase((t > 0).then_some(t)).to_string());
                pb.set_message(progress_message(&c, (t > 0).then_some(t), secs));
                pb.tick();
                std::thread::sleep(Duration::from_millis(125));
            }
            // Cleared before any closing line is printed: nothing stays behind.
            pb.finish_and_clear();
        })
    });
    on_ctrl_c(Arc::clone(&counters), ctx);
    let result = run_audit(&params, Arc::clone(&counters), grounder);
    stop.store(true, Ordering::Relaxed);
    for h in [drawer, counting].into_iter().flatten() {
        let _ = h.join();
    }
    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            if let Some(i) = e.downcast_ref::<amem_audit::Interrupted>() {
                ctx.warn(i.to_string());
                return Ok(Exit::Interrupted);
            }
            return Err(e);
        }
    };
    let s = &outcome.summary;

    if a.json || a.format.json {
        let mut out = ctx.stdout();
        write_json_line(&mut out, &serde_json::json!({"type": "run_begin", "schema_version": 1, "data": outcome.run}))?;
        write_json_line(
            &mut out,
            &serde_json::json!({"type": "run_summary", "data": {
                "run_id": outcome.run.run_id,
                "resumed": outcome.resumed,
                "report_dir": outcome.report_dir,
                "files": outcome.files,
                "summary": s,
            }}),
        )?;
        std::io::Write::flush(&mut out)?;
    }
    ctx.note(format!(
        "{}run {}: {} messages read ({} already assessed), {} claims audited: {} supported, {} contradicted, {} unverified; {} skipped",
        if outcome.resumed { "resumed " } else { "" },
        outcome.run.run_id,
        s.messages_read,
        s.messages_already_assessed,
        s.assessed,
        s.group_count(Group::Supported),
        s.group_count(Group::Contradicted),
        s.group_count(Group::Unverified),
        s.skipped.total,
    ));
    for f in &outcome.files {
        ctx.note(format!("wrote {}", f.display()));
    }
    let wiki_items = amem_recall::Wiki::open(&home).and_then(|w| w.stats()).map(|st| st.items).unwrap_or(0);
    for h in next_steps(s, wiki_items, offline, &home) {
        ctx.hint(h);
    }
    let contradicted = s.group_count(Group::Contradicted) > 0;
    if contradicted && config.grounding.default_action == DefaultAction::Warn {
        ctx.warn(format!("{} contradicted claim(s): see the report", s.group_count(Group::Contradicted)));
    }
    let block = a.fail_on.is_some() || config.grounding.default_action == DefaultAction::Block;
    Ok(if a.strict && s.skipped.total > 0 {
        Exit::Failure
    } else if block && contradicted {
        Exit::Contradicted
    } else {
        Exit::Success
    })
}

/// What to do next, when a run could not say much: no messages in the
/// window, no claims worth auditing, nothing new, or no notes to ground on.
fn next_steps(s: &amem_records::RunSummary, wiki_items: u64, offline: bool, home: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    if s.messages_read == 0 {
        out.push("no message fell inside the time window: widen it (--since 1y, --since 2001-01-01) or drop --until".to_string());
    } else if s.messages_read == s.messages_already_assessed {
        out.push("nothing new since the last run; --rerun assesses every message again".to_string());
    } else if s.audited == 0 {
        out.push(format!(
            "{} messages read but no factual claim among them (greetings, questions and opinions are not audited):              check the sources and the window",
            s.messages_read
        ));
    }
    if wiki_items == 0 {
        let grounding = if offline { ", or add a trust list (amem grounding init --opinionated)" } else { "" };
        out.push(format!(
            "the wiki {} holds no notes, so no claim can be supported or contradicted from them: put your notes there              (Markdown, text, HTML; an Obsidian vault or Logseq graph as it is) and run again with --rerun{grounding}",
            home.join("wiki").display()
        ));
    }
    out
}

/// The first Ctrl-C asks the run to stop after recording what it has read
/// (a long run keeps its work, and the next start resumes it); a second one
/// ends the process at once, exit 130, which the ledger also survives (a
/// batch not yet committed is redone on resume).
fn on_ctrl_c(counters: Arc<Counters>, ctx: &Ctx) {
    let quiet = ctx.is_quiet();
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        rt.block_on(async {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            counters.interrupt();
            if !quiet {
                #[allow(clippy::print_stderr)]
                {
                    eprintln!("\ninterrupted: recording the messages already read (Ctrl-C again to stop at once)");
                }
            }
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        });
    });
}

/// The live line: what is done of the work that remains, at what rate, and
/// an ETA over the messages not yet finished (assessed and recorded, or
/// found already assessed), not over those merely read: reading runs ahead
/// of the assessing by a whole channel of messages.
fn progress_message(c: &Counters, total: Option<u64>, secs: f64) -> String {
    let done = c.finished();
    let rate = done as f64 / secs.max(0.001);
    let eta = match total.and_then(|t| amem_audit::progress::eta_seconds(done, t, secs).map(|e| (t, e))) {
        Some((t, e)) => format!(" · {done}/{t} done · eta {}", fmt_secs(e)),
        None if total.is_none() => " · counting for an ETA…".to_string(),
        None => String::new(),
    };
    format!("{} · {rate:.0} msg/s{eta}", c.line())
}

fn fmt_secs(s: f64) -> String {
    let s = s.round() as u64;
    if s >= 3600 { format!("{}h{:02}m", s / 3600, (s % 3600) / 60) } else { format!("{}m{:02}s", s / 60, s % 60) }
}
