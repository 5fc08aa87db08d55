//! `amem`: the command-line front of amem. Thin glue: every command parses
//! its flags, resolves `$AMEM_HOME`, calls the library crates and prints.
//!
//! Exit codes (one place, [`Exit`]):
//! - `0` success (record-level skips do not change it unless `--strict`)
//! - `1` the run failed (I/O, ledger, configuration invalid at run time)
//! - `2` usage error (clap's own code, and bad inputs found before any work)
//! - `3` `--fail-on contradicted` and a contradicted claim was found
//! - `130` interrupted by Ctrl-C. `amem audit` stops reading, records what
//!   it has read, says so and exits 130 (a second Ctrl-C stops at once);
//!   the same command resumes the run without duplicates. Other commands
//!   take the default signal action.

mod cmd;
mod config;
mod home;
mod mcp;
mod paths;
mod printer;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

/// Audit what people and agents assert: chat and mail history against your
/// own notes and a trust list you choose.
#[derive(Parser, Debug)]
#[command(name = "amem", version, about, long_about = None, propagate_version = true)]
pub(crate) struct Cli {
    #[command(flatten)]
    global: printer::GlobalArgs,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Audit chat and mail history: extract claims, ground them, write reports
    Audit(cmd::audit::AuditArgs),
    /// Check a memory write against its source text (the factwash gate)
    Gate(cmd::gate::GateArgs),
    /// The gate's findings as typed changes (dropped_attribution, ...)
    Inspect(cmd::gate::GateArgs),
    /// Run the gate hop by hop over a chain of rewrites
    Drift(cmd::gate::DriftArgs),
    /// Print an archive's messages as JSON lines
    Import(cmd::import::ImportArgs),
    /// Build or update the full-text index of the wiki
    Index(cmd::wiki::IndexArgs),
    /// Search the wiki for text that could ground a claim
    Recall(cmd::wiki::RecallArgs),
    /// Print a wiki chunk by its amem:// URI
    Open(cmd::wiki::OpenArgs),
    /// Add a file to the wiki (under wiki/captured/) and index it
    Capture(cmd::wiki::CaptureArgs),
    /// Ground one claim: local wiki first, then the trust list
    Factcheck(cmd::factcheck::FactcheckArgs),
    /// Verify claims against given evidence, deterministically
    Verify(cmd::verify::VerifyArgs),
    /// Serve recall, fact-check, capture, the gate and the grounding rule to agents over MCP
    #[command(subcommand)]
    Mcp(cmd::mcp::McpCommand),
    /// Write one set of reports from the shards of a sharded audit (`--merge DIR...`)
    Report(cmd::report::ReportArgs),
    /// Manage the trust list of sources
    #[command(subcommand)]
    Grounding(cmd::grounding::GroundingCommand),
    /// Review claims filed as unverified
    #[command(subcommand)]
    Unverified(cmd::unverified::UnverifiedCommand),
    /// Research write pools: build, draw a blind session, score labels
    #[command(subcommand)]
    Pool(cmd::pool::PoolCommand),
    /// Score a memory system's writes: flag rate, uncheckable and abstention shares
    Bench(cmd::bench::BenchArgs),
    /// Score amem's detectors against independently annotated corpora
    #[command(subcommand)]
    Eval(cmd::eval::EvalCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(cmd::completions::CompletionsArgs),
    /// Print a man page (roff): amem's, or a command's (`amem man audit chat-history`); --out DIR writes them all
    Man(cmd::completions::ManArgs),
    /// Create amem's home (the folder and its wiki/): the other commands need one that exists
    Init,
}

/// A bad value on the command line (or in what stands for it: a `--source`
/// spec, a time bound, a path that cannot be expanded) found before any
/// work. It exits 2, like clap's own usage errors.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub String);

/// The process exit status, converted to an [`ExitCode`] in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// 0
    Success,
    /// 1
    Failure,
    /// 2
    Usage,
    /// 3
    Contradicted,
    /// 130
    Interrupted,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(match e {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::Contradicted => 3,
            Exit::Interrupted => 130,
        })
    }
}

/// The allocator of the whole binary: mimalloc (see the workspace manifest
/// for why), huge blocks on the system allocator (see `amem_alloc` for why).
#[global_allocator]
static ALLOCATOR: amem_alloc::SplitAllocator = amem_alloc::SplitAllocator;

/// `--color` as given, read before clap parses (so that clap's own help
/// and usage errors follow it too); a bad value is left for clap to report.
fn color_from_args() -> printer::ColorWhen {
    use clap::ValueEnum;
    let mut args = std::env::args_os().skip(1);
    let mut when = printer::ColorWhen::Auto;
    while let Some(a) = args.next() {
        let Some(a) = a.to_str() else { continue };
        let value = match a.strip_prefix("--color") {
            Some("") => args.next().and_then(|v| v.into_string().ok()),
            Some(rest) => rest.strip_prefix('=').map(str::to_string),
            None => None,
        };
        if let Some(w) = value.and_then(|v| printer::ColorWhen::from_str(&v, false).ok()) {
            when = w;
        }
        if a == "--" {
            break;
        }
    }
    when
}

/// Keep the process's memory off transparent huge pages. mimalloc asks
/// the kernel for huge pages on its arena (`madvise`), so every first touch
/// of a fresh 2 MiB region zeroes all of it and a region partly used counts
/// whole in the resident set: on the x1 Enron audit of `scripts/bench-audit.py`
/// the kernel's page zeroing was 6.7% of the run's CPU in a `perf` profile and
/// peak RSS was 440-470 MB; with huge pages off, 370-390 MB at the same speed
/// (`/usr/bin/time`, two runs each). This is the call mimalloc itself makes
/// for its `allow_thp=0` option, which only its environment variable sets
/// before the first allocation; the crate's `no_thp` build feature skips the
/// `madvise` alone, which a kernel set to THP `always` does not need. It runs
/// before logging is set up and is best effort: a kernel without the call
/// leaves things as they were, which is only slower and larger.
fn keep_off_huge_pages() {
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}

fn main() -> ExitCode {
    keep_off_huge_pages();
    let when = color_from_args();
    let color = when.resolve();
    let matches = Cli::command().color(when.for_clap()).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let ctx = match printer::Ctx::new(&cli.global) {
        Ok(c) => c,
        Err(e) => return report(&e, Exit::Usage, color),
    };
    // Every command that reads or writes the home needs one that exists;
    // `audit chat-history --init` checks for itself, and `init` makes one.
    let needs_home = matches!(
        cli.command,
        Command::Index(_)
            | Command::Recall(_)
            | Command::Open(_)
            | Command::Capture(_)
            | Command::Factcheck(_)
            | Command::Mcp(_)
            | Command::Grounding(_)
            | Command::Unverified(_)
            | Command::Report(_)
    );
    if needs_home && let Err(e) = home::require(&ctx.home) {
        return report(&e, Exit::Usage, color);
    }
    let result = match cli.command {
        Command::Init => home::init(&ctx.home, &ctx).map(|()| Exit::Success),
        Command::Audit(a) => cmd::audit::run(a, &ctx),
        Command::Gate(a) => cmd::gate::run_gate(a, &ctx),
        Command::Inspect(a) => cmd::gate::run_inspect(a, &ctx),
        Command::Drift(a) => cmd::gate::run_drift(a, &ctx),
        Command::Import(a) => cmd::import::run(a, &ctx),
        Command::Index(a) => cmd::wiki::run_index(a, &ctx),
        Command::Recall(a) => cmd::wiki::run_recall(a, &ctx),
        Command::Open(a) => cmd::wiki::run_open(a, &ctx),
        Command::Capture(a) => cmd::wiki::run_capture(a, &ctx),
        Command::Factcheck(a) => cmd::factcheck::run(a, &ctx),
        Command::Verify(a) => cmd::verify::run(a, &ctx),
        Command::Mcp(c) => cmd::mcp::run(c, &ctx),
        Command::Report(a) => cmd::report::run(a, &ctx),
        Command::Grounding(c) => cmd::grounding::run(c, &ctx),
        Command::Unverified(c) => cmd::unverified::run(c, &ctx),
        Command::Pool(c) => cmd::pool::run(c, &ctx),
        Command::Bench(a) => cmd::bench::run(a, &ctx),
        Command::Eval(c) => cmd::eval::run(c, &ctx),
        Command::Completions(a) => cmd::completions::run_completions(a, &ctx),
        Command::Man(a) => cmd::completions::run_man(a, &ctx),
    };
    match result {
        Ok(exit) => exit.into(),
        Err(e) => {
            if is_broken_pipe(&e) {
                // A closed pipe (`amem import ... | head`) is a normal end.
                return Exit::Success.into();
            }
            let code = if is_usage_error(&e) { Exit::Usage } else { Exit::Failure };
            report(&e, code, color)
        }
    }
}

/// Usage errors exit 2 wherever in the chain they sit: the CLI's own, and a
/// time bound the model could not read.
fn is_usage_error(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<UsageError>() || c.is::<amem_records::TimeError>())
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

#[allow(clippy::print_stderr)]
fn report(e: &anyhow::Error, code: Exit, color: bool) -> ExitCode {
    eprintln!("{} {e}", printer::label(color, true));
    for cause in e.chain().skip(1) {
        eprintln!("  caused by: {cause}");
    }
    code.into()
}
