//! `$AMEM_HOME/config.toml`, read whole: the `[[imports]]` the audit reads
//! when no `--source` is given, and the `[grounding]` table, which is handed
//! to `amem-grounding` for validation. Strict: unknown keys are errors, and
//! every error names the line, column and key (from toml's spans).
//!
//! ```toml
//! [grounding]
//! enabled = true
//! default_action = "warn"          # warn | block | log
//!
//! [[grounding.sources]]
//! name = "arxiv"
//! url_pattern = "https://export.arxiv.org/api/*"
//! adapter = "arxiv"
//!
//! [[imports]]
//! kind = "slack"
//! path = "exports/slack"
//!
//! [me]                             # whose claims are the user's (`--who`; the report leads with them)
//! emails = ["ann@example.org"]     # mail From: addresses, any case
//! slack_ids = ["U024BE7LH"]
//! slack_names = ["ann"]
//! handles = ["+1 555 010 2000"]    # iMessage handles (is_from_me needs none)
//!
//! [mcp]                            # `amem mcp serve --http`
//! allowed_origins = ["chrome-extension://abcdefghijklmnopabcdefghijklmnop"]
//! ```

use amem_grounding::config::located_error;
use amem_grounding::{GroundingConfig, GroundingTable};
use amem_records::{Identity, SourceKind};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// What can go wrong with config.toml.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    /// The file exists but cannot be read.
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid (the message names file, line, column and key).
    #[error(transparent)]
    Invalid(#[from] amem_grounding::Error),
    /// `amem grounding init` would overwrite an existing file.
    #[error("{path} already exists: pass --force to overwrite it")]
    Exists { path: PathBuf },
    /// The file cannot be written.
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The whole `config.toml`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct HomeConfig {
    /// `[grounding]`: the trust list and what a contradiction does.
    pub grounding: GroundingConfig,
    /// `[[imports]]`: archives the audit reads when none are given.
    pub imports: Vec<ImportConfig>,
    /// `[me]`: the user's own addresses and handles.
    pub me: Identity,
    /// `[mcp]`: what the MCP server's HTTP transport lets in.
    pub mcp: McpConfig,
    /// `[[models]]`: model endpoints the user chose (crate `amem-endpoint`); none by default.
    pub models: Vec<amem_endpoint::ModelConfig>,
}

/// The `[mcp]` table.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct McpConfig {
    /// Browser origins besides loopback pages that may call the HTTP
    /// transport and `POST /factcheck` (a browser extension's
    /// `chrome-extension://<id>` or `moz-extension://<id>`), exactly as the
    /// browser sends them.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
}

/// One `[[imports]]` entry.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ImportConfig {
    /// Archive format: slack, imessage, gmail, enron, enron-csv.
    pub kind: SourceKind,
    /// The archive; relative paths are relative to `$AMEM_HOME`.
    pub path: PathBuf,
}

impl ImportConfig {
    /// The archive path: `~` and `$VAR` expanded, then relative paths
    /// taken from `home`.
    pub(crate) fn resolved_path(&self, home: &Path) -> Result<PathBuf, crate::UsageError> {
        let written = self.path.to_string_lossy();
        let path = crate::paths::expand(&written)
            .map_err(|e| crate::UsageError(format!("{}: [[imports]] path: {}", HomeConfig::path(home).display(), e.0)))?;
        Ok(if path.is_absolute() { path } else { home.join(path) })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHome {
    #[serde(default)]
    grounding: Option<GroundingTable>,
    #[serde(default)]
    imports: Vec<ImportConfig>,
    #[serde(default)]
    me: Identity,
    #[serde(default)]
    mcp: McpConfig,
    #[serde(default)]
    models: Option<amem_endpoint::ModelsTable>,
}

impl HomeConfig {
    /// `config.toml` inside `home`.
    pub(crate) fn path(home: &Path) -> PathBuf {
        home.join("config.toml")
    }

    /// Load `home/config.toml`; a missing file is the empty config
    /// (no imports, no sources, grounding off).
    pub(crate) fn load(home: &Path) -> Result<HomeConfig, ConfigError> {
        let path = Self::path(home);
        match amem_records::source_file::read_file_to_string(&path, amem_records::source_file::Limit::CONFIG) {
            Ok(text) => Self::parse(&text, &path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HomeConfig::default()),
            Err(source) => Err(ConfigError::Read { path, source }),
        }
    }

    /// Parse config text; `path` is only used in messages.
    pub(crate) fn parse(text: &str, path: &Path) -> Result<HomeConfig, ConfigError> {
        let raw: RawHome = toml::from_str(text).map_err(|e| {
            let offset = e.span().map(|s| s.start).unwrap_or(0);
            located_error(text, path, offset, e.message().to_string())
        })?;
        let grounding = GroundingConfig::from_table(raw.grounding, text, path)?;
        let models = amem_endpoint::config::from_table(raw.models, text, path)?;
        Ok(HomeConfig { grounding, imports: raw.imports, me: raw.me, mcp: raw.mcp, models })
    }
}

/// The file `amem grounding init` writes without `--opinionated`: grounding
/// enabled, no sources (nothing is ever fetched until the user adds one).
pub(crate) const EMPTY_CONFIG: &str = r#"# amem configuration. See docs/reference.md, "Fact-check and verification".

[grounding]
# The trust list is empty: amem fetches nothing until you add a source.
enabled = true
default_action = "warn"   # warn | block | log

# [[grounding.sources]]
# name = "arxiv"
# url_pattern = "https://export.arxiv.org/api/*"
# priority = 1
# adapter = "arxiv"        # arxiv | wikipedia | http
# rate = "1/3s"            # optional: default is the service's published policy
"#;

/// The file `amem grounding init --opinionated` writes: a starter list of
/// two public reference sources, at their published rates.
pub(crate) const OPINIONATED_CONFIG: &str = r#"# amem configuration. See docs/reference.md, "Fact-check and verification".
# A starter trust list: review it. amem only ever contacts the hosts below.

[grounding]
enabled = true
default_action = "warn"   # warn | block | log

[[grounding.sources]]
name = "wikipedia-en"
url_pattern = "https://en.wikipedia.org/*"
priority = 1
adapter = "wikipedia"
rate = "3/s"              # Wikimedia API etiquette: serial requests, be considerate

[[grounding.sources]]
name = "arxiv"
url_pattern = "https://export.arxiv.org/api/*"
priority = 2
adapter = "arxiv"
rate = "1/3s"             # arXiv API terms: one request every three seconds
"#;

/// Write a starter `config.toml` (empty or opinionated) into `home`.
pub(crate) fn init(home: &Path, opinionated: bool, force: bool) -> Result<PathBuf, ConfigError> {
    let path = HomeConfig::path(home);
    if path.exists() && !force {
        return Err(ConfigError::Exists { path });
    }
    std::fs::create_dir_all(home).map_err(|source| ConfigError::Write { path: home.to_path_buf(), source })?;
    let text = if opinionated { OPINIONATED_CONFIG } else { EMPTY_CONFIG };
    std::fs::write(&path, text).map_err(|source| ConfigError::Write { path: path.clone(), source })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<HomeConfig, ConfigError> {
        HomeConfig::parse(s, Path::new("config.toml"))
    }

    fn location(e: &ConfigError) -> (usize, Option<String>) {
        match e {
            ConfigError::Invalid(amem_grounding::Error::Config { line, key, .. }) => (*line, key.clone()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn missing_file_is_no_imports_no_sources_and_off() {
        let dir = tempfile::tempdir().unwrap();
        let c = HomeConfig::load(dir.path()).unwrap();
        assert!(!c.grounding.enabled);
        assert!(c.grounding.sources.is_empty());
        assert!(c.imports.is_empty());
    }

    #[test]
    fn me_section() {
        let c =
            parse("[me]\nemails = [\"Ann@Example.org\"]\nslack_ids = [\"U1\"]\nslack_names = [\"ann\"]\nhandles = [\"+15550102000\"]\n")
                .unwrap();
        assert_eq!(c.me.emails, ["Ann@Example.org"]);
        assert_eq!(c.me.slack_ids, ["U1"]);
        assert_eq!(c.me.slack_names, ["ann"]);
        assert_eq!(c.me.handles, ["+15550102000"]);
        assert!(parse("").unwrap().me.is_empty());
        let err = parse("[me]\nemail = [\"a@x.org\"]\n").unwrap_err();
        assert_eq!(location(&err), (2, Some("email".to_string())));
    }

    #[test]
    fn starter_files_parse() {
        let e = parse(EMPTY_CONFIG).unwrap();
        assert!(e.grounding.enabled && e.grounding.sources.is_empty());
        let o = parse(OPINIONATED_CONFIG).unwrap();
        let names: Vec<_> = o.grounding.sources.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["wikipedia-en", "arxiv"]);
    }

    #[test]
    fn imports_beside_grounding() {
        let c = parse("[grounding]\ndefault_action = \"block\"\n[[imports]]\nkind = \"slack\"\npath = \"exports/slack\"\n").unwrap();
        assert!(c.grounding.enabled);
        assert_eq!(c.imports[0].kind, SourceKind::SLACK);
        assert_eq!(c.imports[0].resolved_path(Path::new("/h")).unwrap(), Path::new("/h/exports/slack"));
        // `~` in config.toml is the user's home, not a folder named `~` under the amem home.
        let t = parse("[[imports]]\nkind = \"gmail\"\npath = \"~/Takeout/All.mbox\"\n").unwrap();
        let home = std::env::var("HOME").unwrap();
        assert_eq!(t.imports[0].resolved_path(Path::new("/h")).unwrap(), Path::new(&home).join("Takeout/All.mbox"));
        let unset = parse("[[imports]]\nkind = \"gmail\"\npath = \"$AMEM_TEST_SURELY_UNSET/x\"\n").unwrap();
        assert!(unset.imports[0].resolved_path(Path::new("/h")).unwrap_err().0.contains("AMEM_TEST_SURELY_UNSET"));
    }

    #[test]
    fn bad_imports_and_unknown_tables_name_their_line() {
        assert_eq!(location(&parse("[imports]\nkind = 1\n").unwrap_err()), (1, Some("imports".into())));
        let (line, _) = location(&parse("[[imports]]\nkind = \"fax\"\npath = \"x\"\n").unwrap_err());
        assert_eq!(line, 2);
        let (line, key) = location(&parse("[[imports]]\nkind = \"slack\"\npath = \"x\"\nwhere = 1\n").unwrap_err());
        assert_eq!((line, key.as_deref()), (4, Some("where")));
        let (line, _) = location(&parse("\n[groundin]\n").unwrap_err());
        assert_eq!(line, 2);
    }

    #[test]
    fn grounding_errors_pass_through_with_their_location() {
        let err = parse("[[imports]]\nkind = \"slack\"\npath = \"x\"\n[grounding]\n[[grounding.sources]]\nname = \"h\"\nurl_pattern = \"https://x.org/*\"\nadapter = \"http\"\n").unwrap_err();
        assert!(location(&err).0 >= 5, "{err}");
        assert!(err.to_string().starts_with("config.toml:"), "{err}");
    }

    #[test]
    fn init_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        init(dir.path(), false, false).unwrap();
        assert!(matches!(init(dir.path(), true, false), Err(ConfigError::Exists { .. })));
        init(dir.path(), true, true).unwrap();
        assert_eq!(HomeConfig::load(dir.path()).unwrap().grounding.sources.len(), 2);
    }

    /// Property test of the config parser (issue 16, findings 6 and 7): any
    /// `config.toml` text, built from the keys the file really has and hostile
    /// values for them, is a config or an error naming the file; never a panic.
    /// (`rate = "1/5000000000h"` panicked, exit 101.) Bounded cases.
    mod never_panics {
        use super::super::HomeConfig;
        use proptest::prelude::*;
        use std::path::Path;

        fn value() -> impl Strategy<Value = String> {
            prop_oneof![
                prop::sample::select(vec![
                    "\"1/5000000000h\"",
                    "\"1/3s\"",
                    "\"0/s\"",
                    "\"18446744073709551615/1ms\"",
                    "\"https://x.org/*\"",
                    "\"http://127.0.0.1:0/*\"",
                    "\"*\"",
                    "\"\"",
                    "\"arxiv\"",
                    "\"http\"",
                    "\"wikipedia\"",
                    "\"https://x.org/s?q={query}\"",
                    "9223372036854775807",
                    "-9223372036854775808",
                    "true",
                    "[]",
                    "{}",
                    "1e400",
                ])
                .prop_map(str::to_string),
                "\"[ -~]{0,20}\"",
            ]
        }

        fn config() -> impl Strategy<Value = String> {
            let key = prop::sample::select(vec![
                "enabled",
                "default_action",
                "name",
                "url_pattern",
                "priority",
                "adapter",
                "rate",
                "search_url",
                "kind",
                "path",
                "global_rate",
            ]);
            let line = prop_oneof![
                (key, value()).prop_map(|(k, v)| format!("{k} = {v}\n")),
                prop::sample::select(vec!["[grounding]\n", "[[grounding.sources]]\n", "[[imports]]\n", "[me]\n", "[\n", "= 1\n"])
                    .prop_map(str::to_string),
            ];
            prop::collection::vec(line, 0..24).prop_map(|v| v.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]
            #[test]
            fn any_config_parses_or_errors(text in config()) {
                let path = Path::new("home/config.toml");
                if let Err(e) = HomeConfig::parse(&text, path) {
                    prop_assert!(e.to_string().contains("config.toml"), "{e}");
                }
            }
        }
    }
}
