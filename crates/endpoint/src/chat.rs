//! One chat-completions call to an OpenAI-compatible endpoint, synchronously.
//!
//! The request goes through `amem_grounding::HttpClient::post_json`, the run's one HTTP path:
//! the endpoint's URL is its only allowed pattern, its rate and concurrency are the host's
//! limiter and connection semaphore, 429 (with `Retry-After`), 5xx and time-outs are retried
//! with back-off, a stalling host opens a circuit, and every try is a line of
//! `grounding.log` with the model, the claim's hash (never its text) and the tokens used.
//! The caller's thread waits on a runtime of the endpoint's own: the audit's assessing
//! workers, `amem factcheck` and the MCP server's blocking tasks all call it the same way.

use crate::config::ModelConfig;
use amem_grounding::{ClientOptions, FetchError, HostPolicy, HttpClient, JsonPost, OutboundLog};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Why a call gave no answer to read: the rules' verdict stands, and the report counts it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    /// The request failed (refused, timed out, unreachable, HTTP error after retries).
    #[error("{0}")]
    Fetch(FetchError),
    /// The endpoint answered with an error status.
    #[error("HTTP {status}: {detail}")]
    Status {
        /// The status.
        status: u16,
        /// The error envelope's code or message, when it had one.
        detail: String,
    },
    /// The body is not a chat completion.
    #[error("not a chat completion: {0}")]
    Malformed(String),
    /// The answer was cut off at the token limit.
    #[error("the answer was cut off at max_tokens")]
    Truncated,
    /// The model declined (`refusal`) or said nothing.
    #[error("the model gave no answer")]
    Empty,
    /// The endpoint could not be set up (no key in the named variable, no runtime).
    #[error("{0}")]
    Setup(String),
}

/// A chat completion's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// `choices[0].message.content`.
    pub content: String,
    /// `usage.total_tokens`, when reported.
    pub tokens: Option<u64>,
}

/// A model endpoint: its settings, its HTTP client and the runtime its calls run on.
pub struct Endpoint {
    config: ModelConfig,
    client: HttpClient,
    url: reqwest::Url,
    api_key: Option<String>,
    label: String,
    /// The server refused `response_format` once (llama.cpp builds and some hosted models
    /// do): later calls ask for JSON in the prompt alone.
    plain_json: AtomicBool,
    runtime: Option<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint").field("name", &self.config.name).field("model", &self.config.model).finish_non_exhaustive()
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        // Never block in drop: the MCP server may drop its engine on an async thread.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// `usage.total_tokens` of a chat-completion body, for the log.
pub fn tokens_of(body: &[u8]) -> Option<u64> {
    let v: Value = serde_json::from_slice(body).ok()?;
    v.pointer("/usage/total_tokens").and_then(Value::as_u64)
}

impl Endpoint {
    /// Open the endpoint `config` names. `offline`: only a loopback endpoint may be opened.
    /// `log`: where each call is logged (`grounding.log` of the home).
    ///
    /// # Errors
    /// [`Unavailable::Setup`]: offline and not loopback, the key's variable unset, or the client
    /// or runtime could not be built.
    pub fn open(config: &ModelConfig, offline: bool, log: Option<OutboundLog>) -> Result<Endpoint, Unavailable> {
        if offline && !config.is_loopback() {
            return Err(Unavailable::Setup(format!(
                "model {:?} is at {}, not on this machine: --offline allows loopback endpoints only",
                config.name, config.url
            )));
        }
        let pattern = config.pattern().map_err(Unavailable::Setup)?;
        let api_key = match &config.api_key_env {
            None => None,
            Some(var) => match std::env::var(var) {
                Ok(k) if !k.trim().is_empty() => Some(k.trim().to_string()),
                _ => return Err(Unavailable::Setup(format!("model {:?}: the environment variable {var} holds no API key", config.name))),
            },
        };
        let timeout = Duration::from_secs(config.timeout_secs);
        let opts = ClientOptions {
            timeout,
            connect_timeout: timeout.min(Duration::from_secs(10)),
            max_retries: 2,
            global_rate: config.effective_rate(),
            // An answer is a few hundred tokens; a megabyte is already hostile.
            max_body_bytes: 1 << 20,
            ..ClientOptions::default()
        };
        let policy = HostPolicy { pattern, rate: config.effective_rate(), connections: config.concurrency };
        let client = HttpClient::build_for(&[policy], opts, log).map_err(|e| Unavailable::Setup(e.to_string()))?;
        let url = reqwest::Url::parse(&config.chat_url()).map_err(|e| Unavailable::Setup(e.to_string()))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("amem-endpoint")
            .enable_all()
            .build()
            .map_err(|e| Unavailable::Setup(format!("cannot start the endpoint's runtime: {e}")))?;
        Ok(Endpoint {
            label: format!("model:{}", config.name),
            config: config.clone(),
            client,
            url,
            api_key,
            plain_json: AtomicBool::new(false),
            runtime: Some(runtime),
        })
    }

    /// The settings.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// Requests sent so far (each retry counts).
    pub fn requests_sent(&self) -> u64 {
        self.client.requests_sent()
    }

    /// Ask `messages` (OpenAI chat messages), wanting a JSON object back, on behalf of the claim
    /// whose SHA-256 is `claim_sha256`. Blocks the calling thread, which must not be an async
    /// runtime's worker (a blocking task is fine).
    ///
    /// # Errors
    /// [`Unavailable`] for every way of not getting an answer.
    pub fn chat_json(&self, messages: &Value, claim_sha256: &str) -> Result<Reply, Unavailable> {
        let structured = !self.plain_json.load(Ordering::Relaxed);
        match self.chat_once(messages, claim_sha256, structured) {
            // The server does not know `response_format`: the prompt already asks for JSON.
            Err(Unavailable::Status { status: 400, ref detail }) if structured && mentions_response_format(detail) => {
                self.plain_json.store(true, Ordering::Relaxed);
                self.chat_once(messages, claim_sha256, false)
            }
            other => other,
        }
    }

    fn chat_once(&self, messages: &Value, claim_sha256: &str, structured: bool) -> Result<Reply, Unavailable> {
        let mut body = json!({
            "model": self.config.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": self.config.max_tokens,
            "stream": false,
        });
        if structured {
            body["response_format"] = json!({"type": "json_object"});
        }
        let bytes = serde_json::to_vec(&body).map_err(|e| Unavailable::Setup(e.to_string()))?;
        let post = JsonPost { label: &self.label, model: &self.config.model, body: &bytes, bearer: self.api_key.as_deref(), tokens_of };
        let rt = self.runtime.as_ref().ok_or_else(|| Unavailable::Setup("the endpoint is closed".into()))?;
        let fetched = rt.block_on(self.client.post_json(self.url.clone(), &post, claim_sha256)).map_err(Unavailable::Fetch)?;
        if !fetched.is_success() {
            return Err(Unavailable::Status { status: fetched.status, detail: error_detail(&fetched.body) });
        }
        read_reply(&fetched.body)
    }
}

fn mentions_response_format(detail: &str) -> bool {
    let d = detail.to_ascii_lowercase();
    d.contains("response_format") || d.contains("json_object") || d.contains("unsupported")
}

/// The `error` envelope's code, parameter and message, cut short (it may echo the request).
fn error_detail(body: &[u8]) -> String {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let e = &v["error"];
    let parts: Vec<String> =
        ["code", "param", "message"].iter().filter_map(|k| e.get(*k).and_then(Value::as_str)).map(str::to_string).collect();
    let detail = if parts.is_empty() { "no error envelope".to_string() } else { parts.join(": ") };
    detail.chars().take(300).collect()
}

/// A chat completion's content, or why it is not usable.
///
/// # Errors
/// [`Unavailable::Malformed`], [`Unavailable::Truncated`] or [`Unavailable::Empty`].
pub fn read_reply(body: &[u8]) -> Result<Reply, Unavailable> {
    let v: Value = serde_json::from_slice(body).map_err(|e| Unavailable::Malformed(format!("the body is not JSON ({e})")))?;
    let choice = v.pointer("/choices/0").ok_or_else(|| Unavailable::Malformed("no choices[0]".into()))?;
    if choice.get("finish_reason").and_then(Value::as_str) == Some("length") {
        return Err(Unavailable::Truncated);
    }
    let message = choice.get("message").ok_or_else(|| Unavailable::Malformed("choices[0] has no message".into()))?;
    if message.get("refusal").and_then(Value::as_str).is_some_and(|r| !r.trim().is_empty()) {
        return Err(Unavailable::Empty);
    }
    let content = message.get("content").and_then(Value::as_str).map(str::trim).unwrap_or("");
    if content.is_empty() {
        return Err(Unavailable::Empty);
    }
    Ok(Reply { content: content.to_string(), tokens: tokens_of(body) })
}
