//! `$AMEM_HOME/config.toml`: the `[grounding]` trust list and the
//! `[[imports]]` the audit reads. Strict: unknown keys are errors, and every
//! error names the line, column and key (from toml's spans).
//!
//! ```toml
//! [grounding]
//! enabled = true
//! default_action = "warn"          # warn | block | log
//!
//! [[grounding.sources]]
//! name = "arxiv"
//! url_pattern = "https://export.arxiv.org/api/*"
//! priority = 1                     # lower is asked first
//! adapter = "arxiv"                # arxiv | wikipedia | http
//! rate = "1/3s"                    # optional; default: the service's published policy
//!
//! [[imports]]
//! kind = "slack"
//! path = "exports/slack"
//!
//! [me]                             # whose claims are the user's (`--who`, and the report leads with them)
//! emails = ["ann@example.org"]     # mail From: addresses, any case
//! slack_ids = ["U024BE7LH"]
//! slack_names = ["ann"]
//! handles = ["+1 555 010 2000"]    # iMessage handles (is_from_me needs none)
//! ```

use crate::rate::Rate;
use crate::trust::{TrustList, UrlPattern};
use crate::{Error, Result};
use amem_model::{Identity, SourceKind};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The whole `config.toml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HomeConfig {
    /// `[grounding]`: the trust list and what a contradiction does.
    pub grounding: GroundingConfig,
    /// `[[imports]]`: archives the audit reads when none are given.
    pub imports: Vec<ImportConfig>,
    /// `[me]`: the user's own addresses and handles.
    pub me: Identity,
}

/// `[grounding]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroundingConfig {
    /// Whether the trust list is consulted at all. A missing config.toml
    /// means `false`; a written `[grounding]` table defaults to `true`
    /// (listing sources is the user's choice of them).
    pub enabled: bool,
    /// What the audit does with a contradicted claim.
    pub default_action: DefaultAction,
    /// The sources, sorted by priority (lowest first), then name.
    pub sources: Vec<SourceConfig>,
}

impl Default for GroundingConfig {
    fn default() -> Self {
        GroundingConfig { enabled: false, default_action: DefaultAction::Warn, sources: Vec::new() }
    }
}

impl GroundingConfig {
    /// The trust list these sources make.
    pub fn trust_list(&self) -> TrustList {
        TrustList::new(self.sources.iter().map(|s| s.url_pattern.clone()))
    }
}

/// `default_action`: what a contradicted claim does in an audit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefaultAction {
    /// Report it and carry on (the default).
    #[default]
    Warn,
    /// Fail the run (non-zero exit).
    Block,
    /// Record it in the ledger only.
    Log,
}

/// The adapter that speaks a source's API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdapterKind {
    /// The arXiv Atom export API (`/api/query`).
    Arxiv,
    /// The MediaWiki Action API (`/w/api.php`) of a Wikipedia.
    Wikipedia,
    /// Any site with a search URL (`search_url` with `{query}`).
    Http,
}

impl AdapterKind {
    /// snake_case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            AdapterKind::Arxiv => "arxiv",
            AdapterKind::Wikipedia => "wikipedia",
            AdapterKind::Http => "http",
        }
    }
}

/// One `[[grounding.sources]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceConfig {
    /// A unique name, used in reports and the log.
    pub name: String,
    /// What may be requested from this source (see [`UrlPattern`]); the
    /// adapter's endpoints are built on its origin.
    pub url_pattern: UrlPattern,
    /// Lower is asked first; ties by name.
    #[serde(default = "default_priority")]
    pub priority: i64,
    /// The API the source speaks.
    pub adapter: AdapterKind,
    /// The request rate; default [`Rate::default_for`] the adapter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// For `adapter = "http"`: the search URL, with `{query}` where the
    /// claim's key terms go. Must fall under `url_pattern`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_url: Option<String>,
}

fn default_priority() -> i64 {
    100
}

impl SourceConfig {
    /// The effective rate.
    pub fn effective_rate(&self) -> Rate {
        self.rate.unwrap_or_else(|| Rate::default_for(self.adapter))
    }
}

/// One `[[imports]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportConfig {
    /// Archive format: slack, imessage, gmail, enron, enron-csv.
    pub kind: SourceKind,
    /// The archive; relative paths are relative to `$AMEM_HOME`.
    pub path: PathBuf,
}

impl ImportConfig {
    /// The archive path, relative paths taken from `home`.
    pub fn resolved_path(&self, home: &Path) -> PathBuf {
        if self.path.is_absolute() { self.path.clone() } else { home.join(&self.path) }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHome {
    #[serde(default)]
    grounding: Option<RawGrounding>,
    #[serde(default)]
    imports: Vec<ImportConfig>,
    #[serde(default)]
    me: Identity,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrounding {
    #[serde(default = "default_enabled")]
    enabled: bool,
    #[serde(default)]
    default_action: DefaultAction,
    #[serde(default)]
    sources: Vec<Spanned<SourceConfig>>,
}

fn default_enabled() -> bool {
    true
}

impl HomeConfig {
    /// `config.toml` inside `home`.
    pub fn path(home: &Path) -> PathBuf {
        home.join("config.toml")
    }

    /// Load `home/config.toml`; a missing file is the empty config
    /// (no sources, grounding off).
    ///
    /// # Errors
    /// [`Error::ConfigRead`] when the file exists but cannot be read,
    /// [`Error::Config`] when it is not valid.
    pub fn load(home: &Path) -> Result<HomeConfig> {
        let path = Self::path(home);
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::parse(&text, &path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HomeConfig::default()),
            Err(source) => Err(Error::ConfigRead { path, source }),
        }
    }

    /// Parse config text; `path` is only used in messages.
    ///
    /// # Errors
    /// [`Error::Config`] naming line, column and key.
    pub fn parse(text: &str, path: &Path) -> Result<HomeConfig> {
        let raw: RawHome = toml::from_str(text).map_err(|e| {
            let offset = e.span().map(|s| s.start).unwrap_or(0);
            config_error(text, path, offset, e.message().to_string())
        })?;
        let mut sources = Vec::new();
        let (enabled, default_action) = match raw.grounding {
            Some(g) => {
                for s in g.sources {
                    let offset = s.span().start;
                    let src = s.into_inner();
                    validate_source(&src, &sources).map_err(|m| config_error(text, path, offset, m))?;
                    sources.push(src);
                }
                (g.enabled, g.default_action)
            }
            None => (false, DefaultAction::Warn),
        };
        sources.sort_by(|a, b| a.priority.cmp(&b.priority).then_with(|| a.name.cmp(&b.name)));
        Ok(HomeConfig { grounding: GroundingConfig { enabled, default_action, sources }, imports: raw.imports, me: raw.me })
    }
}

fn validate_source(src: &SourceConfig, earlier: &[SourceConfig]) -> std::result::Result<(), String> {
    if src.name.trim().is_empty() {
        return Err("source `name` is empty".into());
    }
    if earlier.iter().any(|e| e.name == src.name) {
        return Err(format!("source name {:?} is used twice", src.name));
    }
    match (src.adapter, &src.search_url) {
        (AdapterKind::Http, None) => Err(format!("source {:?}: adapter \"http\" needs a `search_url` with {{query}}", src.name)),
        (AdapterKind::Http, Some(u)) => {
            if !u.contains("{query}") {
                return Err(format!("source {:?}: `search_url` {u:?} has no {{query}} placeholder", src.name));
            }
            let probe = u.replace("{query}", "q");
            match reqwest::Url::parse(&probe) {
                Ok(url) if src.url_pattern.matches(&url) => Ok(()),
                Ok(_) => Err(format!("source {:?}: `search_url` {u:?} is outside its own `url_pattern` {}", src.name, src.url_pattern)),
                Err(_) => Err(format!("source {:?}: `search_url` {u:?} is not a URL", src.name)),
            }
        }
        (_, Some(_)) => Err(format!("source {:?}: `search_url` only applies to adapter \"http\"", src.name)),
        (_, None) => Ok(()),
    }
}

/// An [`Error::Config`] at byte `offset` of `text`, naming the key on that line.
fn config_error(text: &str, path: &Path, offset: usize, message: String) -> Error {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = before.get(line_start..).map(|s| s.chars().count()).unwrap_or(0) + 1;
    let line_text = text[line_start..].lines().next().unwrap_or("");
    let header = line_text.trim().trim_start_matches('[').split(']').next().filter(|_| line_text.trim_start().starts_with('['));
    let key = line_text
        .split_once('=')
        .filter(|_| header.is_none())
        .map(|(k, _)| k.trim().trim_matches('"').to_string())
        .filter(|k| !k.is_empty() && !k.starts_with('['))
        .or_else(|| header.map(|h| h.trim().to_string()))
        .or_else(|| {
            // An unknown or missing key message names it in backticks.
            let start = message.find('`')? + 1;
            let end = start + message[start..].find('`')?;
            Some(message[start..end].to_string())
        });
    Error::Config { path: path.to_path_buf(), line, column, key, message: message.trim().to_string() }
}

/// The file `amem grounding init` writes without `--opinionated`: grounding
/// enabled, no sources (nothing is ever fetched until the user adds one).
pub const EMPTY_CONFIG: &str = r#"# amem configuration. See the README, section "factcheck".

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
pub const OPINIONATED_CONFIG: &str = r#"# amem configuration. See the README, section "factcheck".
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
///
/// # Errors
/// [`Error::ConfigExists`] when the file exists and `force` is false;
/// [`Error::Write`] on I/O failure.
pub fn init(home: &Path, opinionated: bool, force: bool) -> Result<PathBuf> {
    let path = HomeConfig::path(home);
    if path.exists() && !force {
        return Err(Error::ConfigExists { path });
    }
    std::fs::create_dir_all(home).map_err(|source| Error::Write { path: home.to_path_buf(), source })?;
    let text = if opinionated { OPINIONATED_CONFIG } else { EMPTY_CONFIG };
    std::fs::write(&path, text).map_err(|source| Error::Write { path: path.clone(), source })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<HomeConfig> {
        HomeConfig::parse(s, Path::new("config.toml"))
    }

    #[test]
    fn missing_file_is_no_sources_and_off() {
        let dir = tempfile::tempdir().unwrap();
        let c = HomeConfig::load(dir.path()).unwrap();
        assert!(!c.grounding.enabled);
        assert!(c.grounding.sources.is_empty());
        assert!(c.imports.is_empty());
    }

    #[test]
    fn starter_files_parse() {
        let e = parse(EMPTY_CONFIG).unwrap();
        assert!(e.grounding.enabled && e.grounding.sources.is_empty());
        let o = parse(OPINIONATED_CONFIG).unwrap();
        let names: Vec<_> = o.grounding.sources.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["wikipedia-en", "arxiv"]);
        assert_eq!(o.grounding.sources[1].effective_rate().period(), std::time::Duration::from_secs(3));
    }

    #[test]
    fn full_config_with_imports() {
        let c = parse(
            r#"
[grounding]
default_action = "block"
[[grounding.sources]]
name = "b"
url_pattern = "https://example.org/search*"
adapter = "http"
search_url = "https://example.org/search?q={query}"
priority = 5
[[grounding.sources]]
name = "a"
url_pattern = "https://export.arxiv.org/api/*"
adapter = "arxiv"
priority = 1
[[imports]]
kind = "slack"
path = "exports/slack"
"#,
        )
        .unwrap();
        assert!(c.grounding.enabled);
        assert_eq!(c.grounding.default_action, DefaultAction::Block);
        assert_eq!(c.grounding.sources[0].name, "a");
        assert_eq!(c.imports[0].kind, SourceKind::Slack);
        assert_eq!(c.imports[0].resolved_path(Path::new("/h")), Path::new("/h/exports/slack"));
    }

    #[test]
    fn me_section() {
        let c =
            parse("[me]\nemails = [\"Ann@Example.org\"]\nslack_ids = [\"U1\"]\nslack_names = [\"ann\"]\nhandles = [\"+15550102000\"]\n")
                .unwrap();
        assert_eq!(c.me.emails, ["Ann@Example.org"]);
        assert_eq!(c.me.slack_ids, ["U1"]);
        assert_eq!(c.me.handles, ["+15550102000"]);
        assert!(parse("").unwrap().me.is_empty());
        let err = parse("[me]\nemail = [\"a@x.org\"]\n").unwrap_err().to_string();
        assert!(err.contains(":2:") && err.contains("`email`"), "{err}");
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let err = parse("[grounding]\nenabled = true\n\n[[grounding.sources]]\nname = \"x\"\nurl_pattern = \"https://x.org/*\"\nadapter = \"arxiv\"\nratee = \"1/s\"\n").unwrap_err();
        match &err {
            Error::Config { line, key, message, .. } => {
                assert_eq!(*line, 8, "{err}");
                assert_eq!(key.as_deref(), Some("ratee"));
                assert!(message.contains("unknown field"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().starts_with("config.toml:8:"), "{err}");
    }

    #[test]
    fn bad_values_name_their_line() {
        let cases = [
            ("[grounding]\ndefault_action = \"shout\"\n", 2, "default_action"),
            (
                "[grounding]\n[[grounding.sources]]\nname = \"x\"\nurl_pattern = \"http://example.org/*\"\nadapter = \"arxiv\"\n",
                4,
                "url_pattern",
            ),
            ("[grounding]\n[[grounding.sources]]\nname = \"x\"\nurl_pattern = \"https://x.org/*\"\nadapter = \"ftp\"\n", 5, "adapter"),
            (
                "[grounding]\n[[grounding.sources]]\nname = \"x\"\nurl_pattern = \"https://x.org/*\"\nadapter = \"arxiv\"\nrate = \"fast\"\n",
                6,
                "rate",
            ),
            ("[imports]\nkind = 1\n", 1, "imports"),
            ("[grounding]\nenabled = \"yes\"\n", 2, "enabled"),
        ];
        for (text, line, key) in cases {
            match parse(text) {
                Err(Error::Config { line: l, key: k, .. }) => {
                    assert_eq!(l, line, "{text}");
                    assert_eq!(k.as_deref(), Some(key), "{text}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn semantic_checks_point_at_the_source_entry() {
        let cases = [
            "[grounding]\n[[grounding.sources]]\nname = \"h\"\nurl_pattern = \"https://x.org/*\"\nadapter = \"http\"\n",
            "[grounding]\n[[grounding.sources]]\nname = \"h\"\nurl_pattern = \"https://x.org/*\"\nadapter = \"http\"\nsearch_url = \"https://x.org/s\"\n",
            "[grounding]\n[[grounding.sources]]\nname = \"h\"\nurl_pattern = \"https://x.org/*\"\nadapter = \"http\"\nsearch_url = \"https://evil.test/s?q={query}\"\n",
            "[grounding]\n[[grounding.sources]]\nname = \"a\"\nurl_pattern = \"https://x.org/*\"\nadapter = \"arxiv\"\nsearch_url = \"https://x.org/?q={query}\"\n",
        ];
        for text in cases {
            match parse(text) {
                Err(Error::Config { line, .. }) => assert!(line >= 2, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        let dup = "[grounding]\n[[grounding.sources]]\nname = \"a\"\nurl_pattern = \"https://x.org/*\"\nadapter = \"arxiv\"\n[[grounding.sources]]\nname = \"a\"\nurl_pattern = \"https://y.org/*\"\nadapter = \"arxiv\"\n";
        assert!(matches!(parse(dup), Err(Error::Config { .. })));
    }

    #[test]
    fn init_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        init(dir.path(), false, false).unwrap();
        assert!(matches!(init(dir.path(), true, false), Err(Error::ConfigExists { .. })));
        init(dir.path(), true, true).unwrap();
        assert_eq!(HomeConfig::load(dir.path()).unwrap().grounding.sources.len(), 2);
    }
}
