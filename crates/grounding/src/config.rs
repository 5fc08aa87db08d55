//! The `[grounding]` table of `$AMEM_HOME/config.toml`: the trust list.
//! The rest of the file (`[[imports]]`, where it lives, starter texts) is the
//! CLI's: it reads the whole file and hands the table here as a
//! [`GroundingTable`]. Strict: unknown keys are errors, and every error names
//! the line, column and key (from toml's spans).
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
//! ```

use crate::rate::Rate;
use crate::trust::{TrustList, UrlPattern};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use toml::Spanned;

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

/// The `[grounding]` table as written, before validation: the sources keep
/// their spans in the file so that [`GroundingConfig::from_table`] can point
/// at the entry that is wrong.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroundingTable {
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

impl GroundingConfig {
    /// Validate a `[grounding]` table read from `text` (the whole file, whose
    /// spans the table carries); `table` of `None` (no `[grounding]` written)
    /// is grounding off. `path` is only used in messages.
    ///
    /// # Errors
    /// [`Error::Config`] naming the line, column and key of the bad entry.
    pub fn from_table(table: Option<GroundingTable>, text: &str, path: &Path) -> Result<GroundingConfig> {
        let Some(g) = table else { return Ok(GroundingConfig::default()) };
        let mut sources = Vec::new();
        for s in g.sources {
            let offset = s.span().start;
            let src = s.into_inner();
            validate_source(&src, &sources).map_err(|m| located_error(text, path, offset, m))?;
            sources.push(src);
        }
        sources.sort_by(|a, b| a.priority.cmp(&b.priority).then_with(|| a.name.cmp(&b.name)));
        Ok(GroundingConfig { enabled: g.enabled, default_action: g.default_action, sources })
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

/// An [`Error::Config`] at byte `offset` of `text`, naming the key on that
/// line. Public so that whoever reads the rest of config.toml reports its
/// errors the same way.
pub fn located_error(text: &str, path: &Path, offset: usize, message: String) -> Error {
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

/// A config text whose only table is `[grounding]`, read the way the CLI
/// reads the whole file (for this crate's tests).
#[cfg(test)]
pub(crate) fn parse_grounding_document(text: &str) -> Result<GroundingConfig> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        grounding: Option<GroundingTable>,
    }
    let path = Path::new("config.toml");
    let doc: Doc =
        toml::from_str(text).map_err(|e| located_error(text, path, e.span().map(|s| s.start).unwrap_or(0), e.message().to_string()))?;
    GroundingConfig::from_table(doc.grounding, text, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<GroundingConfig> {
        parse_grounding_document(s)
    }

    #[test]
    fn no_table_is_no_sources_and_off() {
        let c = parse("").unwrap();
        assert!(!c.enabled);
        assert!(c.sources.is_empty());
    }

    #[test]
    fn full_table_sorted_by_priority() {
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
rate = "1/3s"
"#,
        )
        .unwrap();
        assert!(c.enabled);
        assert_eq!(c.default_action, DefaultAction::Block);
        assert_eq!(c.sources[0].name, "a");
        assert_eq!(c.sources[0].effective_rate().period(), std::time::Duration::from_secs(3));
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
}
