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
    #[arg(long, global = true, env = "AMEM_HOME", value_name = "DIR", value_parser = crate::paths::home_arg)]
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
    /// When to colour stderr: auto (a terminal, and NO_COLOR unset), always, never
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub color: ColorWhen,
    /// The rules alone: neither of amem's learned models (the verifier, the check-worthiness model)
    #[arg(long, global = true, env = "AMEM_NO_MODELS", value_parser = clap::builder::FalseyValueParser::new())]
    pub no_models: bool,
    /// The check-worthiness model without the learned verifier (the verifier reads some
    /// ten claim-evidence pairs a second a core; the check-worthiness model thousands of sentences)
    #[arg(long, global = true, env = "AMEM_NO_VERIFIER_MODEL", value_parser = clap::builder::FalseyValueParser::new())]
    pub no_verifier_model: bool,
    /// How recall ranks the wiki: bm25 (the words), dense (the static embedder's meaning)
    /// or hybrid (both, fused by reciprocal rank). Dense and hybrid need the models
    /// (with --no-models recall is bm25)
    #[arg(long, global = true, env = "AMEM_RECALL_METHOD", value_enum, default_value_t = RecallMethodArg::Hybrid, value_name = "METHOD")]
    pub recall_method: RecallMethodArg,
}

/// `--recall-method`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum RecallMethodArg {
    /// bm25 over the full-text index
    Bm25,
    /// Cosine of the static embeddings
    Dense,
    /// Both, fused by reciprocal rank
    #[default]
    Hybrid,
}

impl From<RecallMethodArg> for amem_recall::RecallMethod {
    fn from(m: RecallMethodArg) -> Self {
        match m {
            RecallMethodArg::Bm25 => amem_recall::RecallMethod::Bm25,
            RecallMethodArg::Dense => amem_recall::RecallMethod::Dense,
            RecallMethodArg::Hybrid => amem_recall::RecallMethod::Hybrid,
        }
    }
}

/// `--color`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ColorWhen {
    /// When stderr is a terminal and NO_COLOR is unset or empty
    #[default]
    Auto,
    /// Always, even into a pipe or a file
    Always,
    /// Never
    Never,
}

impl ColorWhen {
    /// Whether stderr gets escapes. `auto` follows the NO_COLOR convention
    /// (any non-empty value turns colour off) and never writes escapes into
    /// a pipe, a cron log or a file.
    pub(crate) fn enabled(self, stderr_is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
        match self {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => stderr_is_terminal && no_color.is_none_or(|v| v.is_empty()),
        }
    }

    /// This process's choice.
    pub(crate) fn resolve(self) -> bool {
        self.enabled(std::io::stderr().is_terminal(), std::env::var_os("NO_COLOR").as_deref())
    }

    /// The same choice for clap's own help and usage errors.
    pub(crate) fn for_clap(self) -> clap::ColorChoice {
        match self {
            ColorWhen::Auto => clap::ColorChoice::Auto,
            ColorWhen::Always => clap::ColorChoice::Always,
            ColorWhen::Never => clap::ColorChoice::Never,
        }
    }
}

/// `warning:` / `error:` prefixes, bold yellow / bold red when colour is on.
pub(crate) fn label(color: bool, error: bool) -> String {
    let (text, code) = if error { ("error", "1;31") } else { ("warning", "1;33") };
    if color { format!("\x1b[{code}m{text}:\x1b[0m") } else { format!("{text}:") }
}

/// Machine output on stdout, the same flag on every command: `--format
/// json` (JSON Lines). `--json` is kept, hidden, for scripts written
/// against it.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub(crate) struct OutputArgs {
    /// Output on stdout: text for people, json for JSON Lines
    #[arg(long, value_enum, default_value_t = Format::Text, value_name = "FORMAT")]
    pub format: Format,
    /// The same as --format json
    #[arg(long, hide = true)]
    pub json: bool,
}

impl OutputArgs {
    /// True for JSON Lines.
    pub(crate) fn is_json(&self) -> bool {
        self.json || self.format == Format::Json
    }
}

/// `--format`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Format {
    /// For people
    #[default]
    Text,
    /// JSON Lines
    Json,
}

/// The model roles of a home's `[[models]]` (crate `amem-endpoint`): the verifier of the first
/// entry that plays it, the gate's roles of the first entry that plays one.
#[derive(Default)]
pub(crate) struct ModelRoles {
    /// The verifier role.
    pub verifier: Option<std::sync::Arc<amem_endpoint::EndpointVerifier>>,
    /// The gate's roles (witness, added content, fixer).
    pub gate: Option<std::sync::Arc<amem_endpoint::EndpointGate>>,
}

/// Open the roles `models` configure, logging their calls to the home's `grounding.log` and
/// remembering answers in the SQLite file `answers` (the ledger). An entry that plays both a
/// verifier and a gate role is opened once: its roles share one client, so one rate limiter
/// and one connection limit, whichever role asks. A role whose entry is not on this machine
/// is left out when `offline` (said to `note`).
///
/// # Errors
/// An endpoint cannot be set up (its key's variable is unset) or its answers table opened:
/// refused, never silently left out.
pub(crate) fn open_model_roles(
    home: &std::path::Path,
    models: &[amem_endpoint::ModelConfig],
    offline: bool,
    answers: Option<&std::path::Path>,
    note: &mut dyn FnMut(String),
) -> anyhow::Result<ModelRoles> {
    let verifier_entry = models.iter().find(|m| m.roles.contains(&amem_endpoint::Role::Verifier));
    let gate_entry = models.iter().find(|m| amem_endpoint::EndpointGate::plays_any(m));
    let mut open = |config: &amem_endpoint::ModelConfig| -> anyhow::Result<Option<std::sync::Arc<amem_endpoint::Endpoint>>> {
        if offline && !config.is_loopback() {
            note(format!("offline: the model endpoint {:?} at {} is not on this machine and is not asked", config.name, config.url));
            return Ok(None);
        }
        let log = amem_grounding::OutboundLog::in_home(home);
        let endpoint = amem_endpoint::Endpoint::open(config, offline, Some(log)).map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(Some(std::sync::Arc::new(endpoint)))
    };
    let verifier_endpoint = verifier_entry.map(&mut open).transpose()?.flatten();
    let gate_endpoint = match (gate_entry, verifier_entry) {
        (Some(g), Some(v)) if g.name == v.name => verifier_endpoint.clone(),
        (Some(g), _) => open(g)?,
        (None, _) => None,
    };
    let table = |e| anyhow::anyhow!("cannot open the model answers table: {e}");
    let mut roles = ModelRoles::default();
    if let Some(endpoint) = verifier_endpoint {
        roles.verifier = Some(std::sync::Arc::new(amem_endpoint::EndpointVerifier::new(endpoint, answers).map_err(table)?));
    }
    if let Some(endpoint) = gate_endpoint {
        roles.gate = Some(std::sync::Arc::new(amem_endpoint::EndpointGate::new(endpoint, answers).map_err(table)?));
    }
    Ok(roles)
}

/// What every command gets: the home and the printer.
pub(crate) struct Ctx {
    /// `$AMEM_HOME`.
    pub home: PathBuf,
    quiet: u8,
    progress: bool,
    color: bool,
    /// `--no-models`.
    no_models: bool,
    /// `--no-verifier-model`.
    no_verifier_model: bool,
    /// `--recall-method`.
    recall_method: amem_recall::RecallMethod,
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
        let color = g.color.resolve();
        let _ =
            tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).with_ansi(color).try_init();
        // Progress bars are for people: hidden when stderr is not a terminal,
        // with -q, and with -v (so they do not interleave with log lines).
        let progress = !g.no_progress && g.quiet == 0 && g.verbose == 0 && std::io::stderr().is_terminal();
        Ok(Ctx {
            home,
            quiet: g.quiet,
            progress,
            color,
            no_models: g.no_models,
            no_verifier_model: g.no_verifier_model,
            recall_method: g.recall_method.into(),
        })
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
            eprintln!("{} {}", label(self.color, false), msg.as_ref());
        }
    }

    /// The learned verifier the rules are combined with: the shipped one, loaded once and
    /// checked against its recorded checksums; `None` with `--no-models` or
    /// `--no-verifier-model`.
    ///
    /// # Errors
    /// The shipped weights do not match their checksums or do not load: refused, never
    /// silently replaced by the rules alone.
    pub(crate) fn model(&self) -> anyhow::Result<Option<&'static amem_models::Verifier>> {
        if self.no_models || self.no_verifier_model {
            return Ok(None);
        }
        amem_models::Verifier::shipped().map(Some).map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// The check-worthiness model read beside the extractor's rules: the shipped one,
    /// loaded once and checked against its recorded checksums; `None` with `--no-models`.
    ///
    /// # Errors
    /// As [`Ctx::model`]: refused, never silently replaced by the rules alone.
    pub(crate) fn check_worthiness(&self) -> anyhow::Result<Option<&'static amem_models::CheckWorthiness>> {
        if self.no_models {
            return Ok(None);
        }
        amem_models::CheckWorthiness::shipped().map(Some).map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// Recall by meaning as `--recall-method` asks, with the shipped static embedder
    /// (loaded once, checked against its recorded checksum); `None` with `--no-models`,
    /// where recall is bm25 alone.
    ///
    /// # Errors
    /// As [`Ctx::model`]: refused, never silently replaced by bm25 alone.
    pub(crate) fn meaning(&self) -> anyhow::Result<Option<amem_recall::Meaning>> {
        self.meaning_by(self.recall_method)
    }

    /// [`Ctx::meaning`] ranking by `method` (a command's own `--method`).
    ///
    /// # Errors
    /// As [`Ctx::meaning`].
    pub(crate) fn meaning_by(&self, method: amem_recall::RecallMethod) -> anyhow::Result<Option<amem_recall::Meaning>> {
        if self.no_models {
            return Ok(None);
        }
        let embedder = amem_models::StaticEmbedder::shipped().map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(Some(amem_recall::Meaning { embedder, method }))
    }

    /// [`open_model_roles`] with `models`, answers remembered in the ledger at `answers`;
    /// none with `--no-models`.
    ///
    /// # Errors
    /// As [`open_model_roles`].
    pub(crate) fn model_roles(
        &self,
        models: &[amem_endpoint::ModelConfig],
        offline: bool,
        answers: &std::path::Path,
    ) -> anyhow::Result<ModelRoles> {
        if self.no_models {
            return Ok(ModelRoles::default());
        }
        open_model_roles(&self.home, models, offline, Some(answers), &mut |n| self.note(n))
    }

    /// The gate's roles of the home's `[[models]]` (answers in the home's ledger), for the
    /// commands that gate and ask no verifier; none with `--no-models`.
    ///
    /// # Errors
    /// The configuration cannot be read, or as [`open_model_roles`].
    pub(crate) fn gate_roles(&self, offline: bool) -> anyhow::Result<Option<std::sync::Arc<amem_endpoint::EndpointGate>>> {
        if self.no_models {
            return Ok(None);
        }
        let cfg = crate::config::HomeConfig::load(&self.home).map_err(|e| anyhow::anyhow!("cannot load the configuration: {e}"))?;
        let gate_only: Vec<amem_endpoint::ModelConfig> = cfg.models.into_iter().filter(amem_endpoint::EndpointGate::plays_any).collect();
        Ok(self.model_roles(&gate_only, offline, &self.home.join(amem_ledger::LEDGER_FILE))?.gate)
    }

    /// The `[[models]]` entry named `name` in the home's config.toml, to play `role` (what an
    /// eval that names a model asks of it, whatever roles the entry lists).
    ///
    /// # Errors
    /// The configuration cannot be read, or names no such entry.
    pub(crate) fn named_model(&self, name: &str, role: amem_endpoint::Role) -> anyhow::Result<amem_endpoint::ModelConfig> {
        let cfg = crate::config::HomeConfig::load(&self.home).map_err(|e| anyhow::anyhow!("cannot load the configuration: {e}"))?;
        let Some(m) = cfg.models.iter().find(|m| m.name == name) else {
            let names: Vec<&str> = cfg.models.iter().map(|m| m.name.as_str()).collect();
            return Err(crate::UsageError(format!(
                "{} names no model {name:?} under [[models]] (it names: {})",
                crate::config::HomeConfig::path(&self.home).display(),
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ))
            .into());
        };
        let mut m = m.clone();
        m.roles = vec![role];
        Ok(m)
    }

    /// False with `--no-models`: no model is asked, in-process or behind an endpoint.
    pub(crate) fn models_on(&self) -> bool {
        !self.no_models
    }

    /// True with `-q` (notes are not shown).
    pub(crate) fn is_quiet(&self) -> bool {
        self.quiet > 0
    }

    /// Locked, buffered stdout for results.
    pub(crate) fn stdout(&self) -> std::io::BufWriter<std::io::StdoutLock<'static>> {
        std::io::BufWriter::new(std::io::stdout().lock())
    }

    /// A hint on what to do next, on stderr, unless `-q`.
    #[allow(clippy::print_stderr)]
    pub(crate) fn hint(&self, msg: impl AsRef<str>) {
        if self.quiet == 0 {
            let label = if self.color { "\x1b[1;36mhint:\x1b[0m" } else { "hint:" };
            eprintln!("{label} {}", msg.as_ref());
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, roles: &[amem_endpoint::Role]) -> amem_endpoint::ModelConfig {
        amem_endpoint::ModelConfig {
            name: name.into(),
            url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            api_key_env: None,
            timeout_secs: 1,
            concurrency: 1,
            rate: None,
            max_tokens: 10,
            roles: roles.to_vec(),
        }
    }

    #[test]
    fn an_entry_playing_both_kinds_of_role_is_one_client() {
        use amem_endpoint::Role;
        let home = tempfile::tempdir().unwrap();
        let answers = home.path().join("ledger.sqlite");
        let both = [entry("local", &[Role::Verifier, Role::Witness])];
        let roles = open_model_roles(home.path(), &both, true, Some(&answers), &mut |_| {}).unwrap();
        let (v, g) = (roles.verifier.unwrap(), roles.gate.unwrap());
        assert!(std::ptr::eq(v.endpoint(), g.endpoint()), "one limiter and one connection limit for the host");
        let two = [entry("a", &[Role::Verifier]), entry("b", &[Role::AddedContent])];
        let roles = open_model_roles(home.path(), &two, true, Some(&answers), &mut |_| {}).unwrap();
        assert!(!std::ptr::eq(roles.verifier.unwrap().endpoint(), roles.gate.unwrap().endpoint()));
        let none = open_model_roles(home.path(), &[], true, Some(&answers), &mut |_| {}).unwrap();
        assert!(none.verifier.is_none() && none.gate.is_none());
    }
}
