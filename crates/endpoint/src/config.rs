//! `[[models]]` in `$AMEM_HOME/config.toml`: the model endpoints the user chose. Off by
//! default: with no entry, nothing here is ever called and every verdict is the rules' (and
//! the in-process models').
//!
//! ```toml
//! [[models]]
//! name = "local"                       # a unique name, used by --model and in messages
//! url = "http://127.0.0.1:8080/v1"     # the OpenAI-compatible base; POST <url>/chat/completions
//! model = "gemma3-270m"                # the model asked for
//! api_key_env = "OPENAI_API_KEY"       # optional: the environment variable holding the key
//! timeout_secs = 60                    # one call, connection to last byte
//! concurrency = 1                      # calls in flight at once
//! rate = "2/s"                         # requests per window, spaced evenly
//! max_tokens = 400                     # the longest answer asked for
//! roles = ["verifier"]                 # what it is asked: verifier, witness, added_content, fixer
//! ```
//!
//! The key is read from the environment when the endpoint is opened and never written to the
//! file, the log or a report. The URL is the user's choice of host: every request goes under
//! it and nowhere else (a redirect is refused); plain `http` is allowed for loopback hosts only
//! (`localhost`, `127.0.0.0/8`, `::1`: Ollama, llama.cpp's server, vLLM on this machine), and
//! `--offline` allows loopback endpoints only. Temperature is always 0.

use amem_grounding::{Rate, UrlPattern};
use serde::{Deserialize, Serialize};
use std::path::Path;
use toml::Spanned;

/// What a model behind an endpoint may be asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Decide a claim the rules left undecided on topic, quoting the evidence
    /// (docs/architecture.md, "Deterministic first, models subordinate").
    Verifier,
    /// Read one sentence for the gate: does it hedge, does it attribute (with the marker
    /// words, checked verbatim); it can only add a gate finding.
    Witness,
    /// Read one memory sentence against its source for the gate: supported, unsupported
    /// (naming the added words) or cannot tell; it can only add a gate finding.
    AddedContent,
    /// Propose a rewrite of a memory the gate sent back (`amem gate --fix`); shown only when
    /// the proposal passes the same gate.
    Fixer,
}

impl Role {
    /// The role's name in config.toml.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Verifier => "verifier",
            Role::Witness => "witness",
            Role::AddedContent => "added_content",
            Role::Fixer => "fixer",
        }
    }
}

/// One `[[models]]` entry, validated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// A unique name.
    pub name: String,
    /// The OpenAI-compatible base URL (`.../v1`); calls go to `<url>/chat/completions`.
    pub url: String,
    /// The model asked for (`"model"` in the request).
    pub model: String,
    /// The environment variable holding the API key, if the endpoint wants one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// Seconds one call may take.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Calls in flight at once.
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// The request rate (default `"2/s"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// The most tokens an answer may take.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// The roles the model plays (default: the verifier).
    #[serde(default = "default_roles")]
    pub roles: Vec<Role>,
}

fn default_timeout() -> u64 {
    60
}
fn default_concurrency() -> usize {
    1
}
fn default_max_tokens() -> u32 {
    400
}
fn default_roles() -> Vec<Role> {
    vec![Role::Verifier]
}

/// The rate of an endpoint that names none: two calls a second, a pace a local 7B model on a
/// GPU keeps and a hosted key's lowest tier allows.
pub const DEFAULT_RATE: Rate = Rate { count: 2, per: std::time::Duration::from_secs(1) };

impl ModelConfig {
    /// The effective rate.
    pub fn effective_rate(&self) -> Rate {
        self.rate.unwrap_or(DEFAULT_RATE)
    }

    /// The URL pattern every request of this endpoint must fall under: its base URL and
    /// what lies below it.
    ///
    /// # Errors
    /// The URL is not usable (not a URL, plain http to a non-loopback host, a query).
    pub fn pattern(&self) -> Result<UrlPattern, String> {
        let base = self.url.trim_end_matches('/');
        format!("{base}/*").parse::<UrlPattern>().map_err(|e| e.to_string())
    }

    /// `<url>/chat/completions`.
    pub fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.url.trim_end_matches('/'))
    }

    /// True when the endpoint is on this machine (what `--offline` allows).
    pub fn is_loopback(&self) -> bool {
        self.pattern().is_ok_and(|p| amem_grounding::trust::is_loopback_host(p.host()))
    }
}

/// `[[models]]` as written, with each entry's place in the file.
pub type ModelsTable = Vec<Spanned<ModelConfig>>;

/// Validate `[[models]]` read from `text` (the whole file, whose spans the entries carry);
/// `path` is only used in messages.
///
/// # Errors
/// [`amem_grounding::Error::Config`] naming the line, column and key of the bad entry.
pub fn from_table(table: Option<ModelsTable>, text: &str, path: &Path) -> amem_grounding::Result<Vec<ModelConfig>> {
    let mut out: Vec<ModelConfig> = Vec::new();
    for entry in table.unwrap_or_default() {
        let offset = entry.span().start;
        let m = entry.into_inner();
        validate(&m, &out).map_err(|msg| amem_grounding::config::located_error(text, path, offset, msg))?;
        out.push(m);
    }
    Ok(out)
}

fn validate(m: &ModelConfig, earlier: &[ModelConfig]) -> Result<(), String> {
    if m.name.trim().is_empty() {
        return Err("model `name` is empty".into());
    }
    if earlier.iter().any(|e| e.name == m.name) {
        return Err(format!("model name {:?} is used twice", m.name));
    }
    if m.model.trim().is_empty() {
        return Err(format!("model {:?}: `model` is empty", m.name));
    }
    m.pattern().map_err(|e| format!("model {:?}: `url` {e}", m.name))?;
    if m.concurrency == 0 || m.concurrency > 64 {
        return Err(format!("model {:?}: `concurrency` must be between 1 and 64", m.name));
    }
    if m.timeout_secs == 0 || m.timeout_secs > 3600 {
        return Err(format!("model {:?}: `timeout_secs` must be between 1 and 3600", m.name));
    }
    if m.max_tokens < 16 || m.max_tokens > 32_768 {
        return Err(format!("model {:?}: `max_tokens` must be between 16 and 32768", m.name));
    }
    if m.roles.is_empty() {
        return Err(format!("model {:?}: `roles` is empty", m.name));
    }
    if let Some(var) = &m.api_key_env
        && (var.is_empty() || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        return Err(format!("model {:?}: `api_key_env` must name an environment variable, not hold a key", m.name));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct File {
        models: Option<ModelsTable>,
    }

    fn parse(text: &str) -> Result<Vec<ModelConfig>, String> {
        let f: File = toml::from_str(text).map_err(|e| e.to_string())?;
        from_table(f.models, text, Path::new("config.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_and_loopback() {
        let m = parse("[[models]]\nname = \"local\"\nurl = \"http://127.0.0.1:8080/v1/\"\nmodel = \"m\"\n").unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].timeout_secs, 60);
        assert_eq!(m[0].concurrency, 1);
        assert_eq!(m[0].roles, vec![Role::Verifier]);
        assert_eq!(m[0].effective_rate(), DEFAULT_RATE);
        assert_eq!(m[0].chat_url(), "http://127.0.0.1:8080/v1/chat/completions");
        assert!(m[0].is_loopback());
        let hosted =
            parse("[[models]]\nname = \"h\"\nurl = \"https://api.example.org/v1\"\nmodel = \"m\"\napi_key_env = \"KEY\"\n").unwrap();
        assert!(!hosted[0].is_loopback());
        assert!(parse("").unwrap().is_empty());
    }

    #[test]
    fn bad_entries_name_their_line() {
        for (text, needle) in [
            ("[[models]]\nname = \"a\"\nurl = \"http://api.example.org/v1\"\nmodel = \"m\"\n", "plain http"),
            (
                "[[models]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\napi_key_env = \"sk-abc123 xyz\"\n",
                "environment variable",
            ),
            ("[[models]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/v1\"\nmodel = \"\"\n", "`model` is empty"),
            ("[[models]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\nconcurrency = 0\n", "concurrency"),
            (
                "[[models]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n[[models]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n",
                "used twice",
            ),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(needle), "{e}");
            assert!(e.contains("config.toml:"), "{e}");
        }
        let e = parse("[[models]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\nroles = [\"oracle\"]\n").unwrap_err();
        assert!(e.contains("oracle"), "{e}");
        let e = parse("[[models]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\ntemperature = 1\n").unwrap_err();
        assert!(e.contains("temperature"), "{e}");
    }
}
