//! One place decides what reaches the terminal: global flags, the resolved
//! home, stdout for results, stderr for progress and notes.

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Flags every command takes.
#[derive(Args, Debug)]
pub(crate) struct GlobalArgs {
    /// amem's home: config.toml, wiki/, index, ledger, reports [default: ~/.amem]
    #[arg(long, global = true, env = "AMEM_HOME", value_name = "DIR", value_parser = crate::paths::path_arg)]
    pub home: Option<PathBuf>,
    /// Print less (repeat for nothing but errors)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub quiet: u8,
    /// Print more on stderr (repeat for more)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Never draw progress bars
    #[arg(long, global = true)]
    pub no_progress: bool,
}

/// What every command gets: the home and the printer.
pub(crate) struct Ctx {
    /// `$AMEM_HOME`.
    pub home: PathBuf,
    quiet: u8,
    progress: bool,
}

impl Ctx {
    pub(crate) fn new(g: &GlobalArgs) -> anyhow::Result<Ctx> {
        let home = match &g.home {
            Some(h) => crate::paths::canonical(h),
            None => match std::env::var_os("HOME") {
                Some(h) => PathBuf::from(h).join(".amem"),
                None => anyhow::bail!("no home directory: pass --home DIR or set AMEM_HOME"),
            },
        };
        let level = if g.verbose >= 2 {
            "debug"
        } else if g.verbose == 1 {
            "info"
        } else if g.quiet >= 2 {
            "error"
        } else {
            "warn"
        };
        let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
        let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).try_init();
        // Progress bars are for people: hidden when stderr is not a terminal,
        // with -q, and with -v (so they do not interleave with log lines).
        let progress = !g.no_progress && g.quiet == 0 && g.verbose == 0 && std::io::stderr().is_terminal();
        Ok(Ctx { home, quiet: g.quiet, progress })
    }

    /// A note on stderr (paths of written files, counts), unless `-q`.
    #[allow(clippy::print_stderr)]
    pub(crate) fn note(&self, msg: impl AsRef<str>) {
        if self.quiet == 0 {
            eprintln!("{}", msg.as_ref());
        }
    }

    /// A warning on stderr, unless `-qq`.
    #[allow(clippy::print_stderr)]
    pub(crate) fn warn(&self, msg: impl AsRef<str>) {
        if self.quiet < 2 {
            eprintln!("warning: {}", msg.as_ref());
        }
    }

    /// True with `-q` (notes are not shown).
    pub(crate) fn is_quiet(&self) -> bool {
        self.quiet > 0
    }

    /// Locked, buffered stdout for results.
    pub(crate) fn stdout(&self) -> std::io::BufWriter<std::io::StdoutLock<'static>> {
        std::io::BufWriter::new(std::io::stdout().lock())
    }

    /// True when progress bars should be drawn.
    pub(crate) fn shows_progress(&self) -> bool {
        self.progress
    }

    /// A progress bar on stderr (hidden when not [`Ctx::shows_progress`]).
    /// `len` of `None` draws a spinner.
    pub(crate) fn progress_bar(&self, len: Option<u64>, what: &str) -> ProgressBar {
        if !self.progress {
            return ProgressBar::with_draw_target(len, ProgressDrawTarget::hidden());
        }
        let pb = match len {
            Some(n) => ProgressBar::new(n),
            None => ProgressBar::new_spinner(),
        };
        let tmpl =
            if len.is_some() { "{spinner} {prefix} [{bar:30}] {pos}/{len} {per_sec} eta {eta} {msg}" } else { "{spinner} {prefix} {msg}" };
        if let Ok(style) = ProgressStyle::with_template(tmpl) {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_prefix(what.to_string());
        pb.set_draw_target(ProgressDrawTarget::stderr_with_hz(8));
        pb
    }
}

/// Write one JSON value as a line.
pub(crate) fn write_json_line<W: Write>(out: &mut W, v: &impl serde::Serialize) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, v)?;
    out.write_all(b"\n")?;
    Ok(())
}
