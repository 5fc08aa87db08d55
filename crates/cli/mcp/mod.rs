//! `amem mcp serve`: amem's engine for agents over the Model Context
//! Protocol (the `rmcp` SDK), on stdio or on streamable HTTP ([`http`]).
//!
//! Tools, each a thin call into the function the CLI command of the same
//! name calls (one code path: the same claim gets the same verdict from the
//! tool, `amem factcheck` and the audit):
//! - `amem_recall(query, k?)`: the wiki's best chunks (`amem recall`);
//! - `amem_factcheck(claim, context?, refresh?)`: `amem_audit::check::check_claim`
//!   (`amem factcheck --format json`), with progress notifications when the
//!   client sent a progress token;
//! - `amem_capture(text | url, title?)`: a note into `wiki/captured/`; a URL
//!   only from a trust-list host, through the grounder's client and limits;
//! - `amem_gate(source, memory)`: the factwash gate (`amem gate --format json`);
//! - `amem_open(uri)`: one chunk (`amem open --format json`).
//!
//! Resources: `amem://system/grounding-rule` and every wiki chunk as
//! `amem://<item>#chunk=<n>` (listed by item, paged). Prompt: `grounding-rule`.
//!
//! Every argument is checked before any work: a wrong type, a missing field,
//! an unknown field or a text past its size cap is a tool error the agent can
//! read (`isError`), never a crash; an unknown tool or URI is a protocol error.
//! The work runs on the blocking pool, so concurrent calls are served while
//! one waits on the wiki's lock or the trust list.

pub(crate) mod http;

use crate::cmd::factcheck::{grounder, open_store};
use crate::config::HomeConfig;
use amem_audit::assess::Assessor;
use amem_audit::capture::RecallStore;
use amem_audit::check::{CheckOptions, check_claim};
use amem_grounding::{GroundOutcome, Grounder};
use amem_recall::{Capture, Recall};
use amem_records::AmemUri;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, JsonObject, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, Prompt, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The grounding rule, in the project's own words (resource and prompt).
pub(crate) const GROUNDING_RULE: &str = include_str!("grounding-rule.md");
/// Its resource URI.
pub(crate) const GROUNDING_RULE_URI: &str = "amem://system/grounding-rule";

/// The longest claim or query a tool takes (64 KiB): a claim is a sentence;
/// past this it is a document, and the caller gets an error saying so.
pub(crate) const MAX_CLAIM_BYTES: usize = 64 * 1024;
/// The longest text `amem_capture` and `amem_gate` take (2 MiB each).
pub(crate) const MAX_TEXT_BYTES: usize = 2 * 1024 * 1024;
/// The most chunks `amem_recall` returns.
const MAX_K: usize = 50;
/// Resources listed per page (one per item, its first chunk).
const RESOURCE_PAGE: usize = 200;

/// What the server is started with.
#[derive(Clone, Debug)]
pub(crate) struct ServeOptions {
    /// `$AMEM_HOME`.
    pub home: PathBuf,
    /// No network request: the wiki and earlier captures only.
    pub offline: bool,
    /// The learned verifier (`None`: `--no-models`).
    pub model: Option<&'static amem_models::Verifier>,
    /// Recall by meaning (`None`: `--no-models`, bm25 alone), the same as `amem recall`'s.
    pub meaning: Option<amem_recall::Meaning>,
    /// Ask a configured model endpoint (`[[models]]`; false with `--no-models`).
    pub endpoints: bool,
    /// The wiki's index is brought up to date before a call at most this
    /// often (a walk of the wiki's file times; `0`: before every call).
    pub reindex_every: Duration,
}

/// What every session of the server shares: one wiki handle, one grounder
/// (so that the trust list's rate limits hold across sessions), the model.
pub(crate) struct Engine {
    home: PathBuf,
    store: Arc<RecallStore>,
    grounder: Grounder,
    model: Option<&'static amem_models::Verifier>,
    /// The verifier role of a model endpoint, when configured.
    endpoint: Option<Arc<amem_endpoint::EndpointVerifier>>,
    /// The gate's model roles (witness, added content), when configured.
    gate_roles: Option<Arc<amem_endpoint::EndpointGate>>,
    offline: bool,
    reindex_every: Duration,
    last_index: Mutex<Option<Instant>>,
    /// The configuration's `[mcp]` table (the HTTP transport reads it).
    pub(crate) config: HomeConfig,
}

/// A tool call that could not be done, said so the agent can read it.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The tool does not exist (a protocol error).
    UnknownTool(String),
    /// The arguments are wrong (a tool error the agent can correct).
    Arguments(String),
    /// The work failed (a tool error).
    Failed(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::UnknownTool(t) => write!(f, "unknown tool {t:?}: the tools are {}", TOOL_NAMES.join(", ")),
            CallError::Arguments(m) | CallError::Failed(m) => f.write_str(m),
        }
    }
}

/// The tools' names, in the order they are listed.
pub(crate) const TOOL_NAMES: [&str; 5] = ["amem_recall", "amem_factcheck", "amem_capture", "amem_gate", "amem_open"];

/// `amem_recall`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecallArgs {
    /// What to look for: a claim or question in a sentence (its content words, numbers, dates and names are searched)
    pub query: String,
    /// How many chunks to return (1 to 50, default 5)
    #[serde(default)]
    pub k: Option<u32>,
}

/// `amem_factcheck`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FactcheckArgs {
    /// The claim to check, one sentence
    pub claim: String,
    /// Where the claim was read (the surrounding text). Returned with the answer; the verdict depends on the claim alone, so the same claim gets the same verdict everywhere
    #[serde(default)]
    pub context: Option<String>,
    /// Ask the trust list even when the notes already settle the claim
    #[serde(default)]
    pub refresh: Option<bool>,
}

/// `amem_capture`'s arguments: `text` or `url`, not both.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CaptureArgs {
    /// Text to keep as a note
    #[serde(default)]
    pub text: Option<String>,
    /// A page to fetch and keep: only from a host on the trust list
    #[serde(default)]
    pub url: Option<String>,
    /// The note's title (default: the page's title, or none)
    #[serde(default)]
    pub title: Option<String>,
}

/// `amem_gate`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GateArgs {
    /// The text the memory was written from
    pub source: String,
    /// The memory write to check against it
    pub memory: String,
}

/// `amem_open`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpenArgs {
    /// amem://<item>#chunk=<n> (without #chunk, the first chunk)
    pub uri: String,
}

/// Each tool's arguments in one line, for the error a bad call gets (serde
/// names the wrong type, not the field it was found in).
fn signature(tool: &str) -> &'static str {
    match tool {
        "amem_recall" => "{query: string, k?: integer 1..50}",
        "amem_factcheck" => "{claim: string, context?: string, refresh?: boolean}",
        "amem_capture" => "{text: string, title?: string} or {url: string}",
        "amem_gate" => "{source: string, memory: string}",
        "amem_open" => "{uri: string}",
        _ => "",
    }
}

fn parse_args<T: DeserializeOwned>(tool: &str, args: JsonObject) -> Result<T, CallError> {
    serde_json::from_value(Value::Object(args))
        .map_err(|e| CallError::Arguments(format!("{tool}: bad arguments: {e}; it takes {}", signature(tool))))
}

fn check_size(tool: &str, field: &str, text: &str, cap: usize) -> Result<(), CallError> {
    if text.len() > cap {
        return Err(CallError::Arguments(format!(
            "{tool}: {field} is {} bytes, over the limit of {cap} bytes: send one claim or a shorter text",
            text.len()
        )));
    }
    Ok(())
}

impl Engine {
    /// Open the home: its configuration, its wiki (indexed now), its trust list.
    pub(crate) fn open(opts: &ServeOptions) -> anyhow::Result<Engine> {
        use anyhow::Context as _;
        let config = HomeConfig::load(&opts.home).context("cannot load the configuration")?;
        let store = open_store(&opts.home, opts.meaning, &mut |w| tracing::warn!("{w}"))?;
        let grounder = grounder(&opts.home, &config, store.clone(), opts.offline, false)?;
        // The model roles the home configures, unless models are off: the verifier for
        // amem_factcheck, the gate's roles for amem_gate and the factcheck's gate.
        let crate::printer::ModelRoles { verifier: endpoint, gate: gate_roles } = match opts.endpoints {
            true => crate::printer::open_model_roles(
                &opts.home,
                &config.models,
                opts.offline,
                Some(&opts.home.join(amem_ledger::LEDGER_FILE)),
                &mut |n| tracing::info!("{n}"),
            )?,
            false => crate::printer::ModelRoles::default(),
        };
        Ok(Engine {
            home: opts.home.clone(),
            store,
            grounder,
            model: opts.model,
            endpoint,
            gate_roles,
            offline: opts.offline,
            reindex_every: opts.reindex_every,
            last_index: Mutex::new(Some(Instant::now())),
            config,
        })
    }

    /// Bring the index up to date when it was last done `reindex_every` ago.
    fn fresh_index(&self) -> Result<(), CallError> {
        let mut last = self.last_index.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_some_and(|at| at.elapsed() < self.reindex_every) {
            return Ok(());
        }
        crate::cmd::factcheck::bring_up_to_date(&self.store)
            .map_err(|e| CallError::Failed(format!("cannot update the wiki index of {}: {e}", self.home.display())))?;
        *last = Some(Instant::now());
        Ok(())
    }

    /// Call tool `name` with `args` on this thread (the blocking pool, or a
    /// bench's loop). `runtime` runs the trust list's requests; `progress`
    /// hears the steps of a fact-check.
    pub(crate) fn call(
        &self,
        name: &str,
        args: JsonObject,
        runtime: &tokio::runtime::Handle,
        progress: &mut dyn FnMut(u32, u32, &str),
    ) -> Result<Value, CallError> {
        match name {
            "amem_recall" => self.recall(parse_args(name, args)?),
            "amem_factcheck" => self.factcheck(parse_args(name, args)?, runtime, progress),
            "amem_capture" => self.capture(parse_args(name, args)?, runtime),
            "amem_gate" => {
                let a: GateArgs = parse_args(name, args)?;
                check_size(name, "source", &a.source, MAX_TEXT_BYTES)?;
                check_size(name, "memory", &a.memory, MAX_TEXT_BYTES)?;
                let models = self.gate_roles.as_deref().map(amem_endpoint::EndpointGate::models).unwrap_or_default();
                serde_json::to_value(amem_gate::check_with(&a.source, &a.memory, models)).map_err(|e| CallError::Failed(e.to_string()))
            }
            "amem_open" => {
                let a: OpenArgs = parse_args(name, args)?;
                check_size(name, "uri", &a.uri, MAX_CLAIM_BYTES)?;
                self.open_chunk(&a.uri).map_err(|e| match e {
                    OpenError::BadUri(m) => CallError::Arguments(m),
                    OpenError::NotFound(m) | OpenError::Failed(m) => CallError::Failed(m),
                })
            }
            other => Err(CallError::UnknownTool(other.to_string())),
        }
    }

    fn recall(&self, a: RecallArgs) -> Result<Value, CallError> {
        check_size("amem_recall", "query", &a.query, MAX_CLAIM_BYTES)?;
        let k = a.k.map_or(5, |k| k as usize);
        if !(1..=MAX_K).contains(&k) {
            return Err(CallError::Arguments(format!("amem_recall: k is {k}; it must be between 1 and {MAX_K}")));
        }
        self.fresh_index()?;
        let hits =
            self.store.with_wiki(|w| w.search(&a.query, k)).map_err(|e| CallError::Failed(format!("cannot search the wiki: {e}")))?;
        let hits: Vec<Value> = hits
            .iter()
            .enumerate()
            .map(|(i, h)| {
                json!({
                    "rank": i + 1,
                    "uri": h.uri.to_string(),
                    "title": h.title,
                    "quote": h.quote,
                    "score": h.score,
                    "source_url": h.source_url,
                    "captured_at": h.retrieved_at,
                })
            })
            .collect();
        Ok(json!({"query": a.query, "hits": hits}))
    }

    fn factcheck(
        &self,
        a: FactcheckArgs,
        runtime: &tokio::runtime::Handle,
        progress: &mut dyn FnMut(u32, u32, &str),
    ) -> Result<Value, CallError> {
        check_size("amem_factcheck", "claim", &a.claim, MAX_CLAIM_BYTES)?;
        if let Some(c) = &a.context {
            check_size("amem_factcheck", "context", c, MAX_TEXT_BYTES)?;
        }
        if a.claim.trim().is_empty() {
            return Err(CallError::Arguments("amem_factcheck: the claim is empty".into()));
        }
        self.fresh_index()?;
        let before = self.grounder.requests_sent();
        let grounder = &self.grounder;
        let mut ask = |claim: &str| -> GroundOutcome { runtime.block_on(grounder.ground(claim)) };
        let ground: Option<&mut dyn FnMut(&str) -> GroundOutcome> = if grounder.is_enabled() { Some(&mut ask) } else { None };
        let mut assessor = Assessor::with_model(self.model).with_endpoint(self.endpoint.clone()).with_gate_roles(self.gate_roles.clone());
        let opts = CheckOptions { refresh: a.refresh.unwrap_or(false), offline: self.offline, ..CheckOptions::default() };
        let checked = check_claim(&self.store, ground, &mut assessor, &a.claim, opts, progress)
            .map_err(|e| CallError::Failed(format!("cannot search the wiki: {e}")))?;
        let mut answer = checked.answer;
        answer["grounding"]["requests"] = self.grounder.requests_sent().saturating_sub(before).into();
        answer["warnings"] = checked.warnings.into();
        if let Some(c) = a.context {
            answer["context"] = c.into();
        }
        Ok(answer)
    }

    fn capture(&self, a: CaptureArgs, runtime: &tokio::runtime::Handle) -> Result<Value, CallError> {
        let item = match (a.text, a.url) {
            (Some(text), None) => {
                check_size("amem_capture", "text", &text, MAX_TEXT_BYTES)?;
                if text.trim().is_empty() {
                    return Err(CallError::Arguments("amem_capture: the text is empty".into()));
                }
                let now = crate::cmd::wiki::captured_now();
                let capture = Capture { text: &text, title: a.title.as_deref(), source_url: None, retrieved_at: &now };
                self.store.with_wiki(|w| w.capture(&capture)).map_err(|e| CallError::Failed(format!("cannot capture: {e}")))?.0
            }
            (None, Some(url)) => {
                check_size("amem_capture", "url", &url, MAX_CLAIM_BYTES)?;
                if a.title.is_some() {
                    return Err(CallError::Arguments("amem_capture: a fetched page keeps its own title: give title with text only".into()));
                }
                match runtime.block_on(self.grounder.capture_url(&url)) {
                    Ok(stored) => stored.item,
                    Err(e @ (amem_grounding::UrlCaptureError::BadUrl(_) | amem_grounding::UrlCaptureError::OffList(_))) => {
                        return Err(CallError::Arguments(format!("amem_capture: {e}")));
                    }
                    Err(e) => return Err(CallError::Failed(format!("amem_capture: {e}"))),
                }
            }
            _ => return Err(CallError::Arguments("amem_capture: give exactly one of text or url".into())),
        };
        let uri = AmemUri::item(&item);
        let chunk = self.store.with_wiki(|w| w.open_uri(&uri)).map_err(|e| CallError::Failed(e.to_string()))?;
        Ok(
            json!({"uri": AmemUri::chunk(&item, 0).to_string(), "item": item, "title": chunk.title, "path": format!("wiki/{}", chunk.path), "chunks": chunk.chunks}),
        )
    }

    /// One chunk as `amem open --format json` prints it.
    fn open_chunk(&self, uri: &str) -> Result<Value, OpenError> {
        let parsed: AmemUri = uri.parse().map_err(|e| OpenError::BadUri(format!("{uri:?} is not an amem:// chunk URI: {e}")))?;
        let chunk = self.store.with_wiki(|w| w.open_uri(&parsed)).map_err(|e| match e {
            amem_recall::Error::UnknownItem { .. } | amem_recall::Error::UnknownChunk { .. } => OpenError::NotFound(e.to_string()),
            other => OpenError::Failed(other.to_string()),
        })?;
        let mut v = serde_json::to_value(&chunk).map_err(|e| OpenError::Failed(e.to_string()))?;
        v["path"] = format!("wiki/{}", chunk.path).into();
        Ok(v)
    }
}

enum OpenError {
    BadUri(String),
    NotFound(String),
    Failed(String),
}

/// One MCP session's handler; every session shares the [`Engine`].
#[derive(Clone)]
pub(crate) struct Server {
    engine: Arc<Engine>,
}

impl Server {
    pub(crate) fn new(engine: Arc<Engine>) -> Server {
        Server { engine }
    }
}

fn schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_type::<T>()
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The five tools, with their input and output schemas and hints.
pub(crate) fn tools() -> Vec<Tool> {
    let evidence = json!({"type": "object", "properties": {
        "source_uri": {"type": "string"}, "snippet": {"type": "string"}, "captured_at": {"type": ["string", "null"]},
        "written_at": {"type": ["string", "null"]}, "similarity": {"type": "number"}, "amem_uri": {"type": "string"},
        "title": {"type": ["string", "null"]}},
        "required": ["source_uri", "snippet", "captured_at", "similarity", "amem_uri"]});
    let factcheck_out = json!({"type": "object", "properties": {
        "claim": {"type": "string"},
        "verdict": {"type": "string", "enum": ["SUPPORTED", "CONTRADICTED", "NO_EVIDENCE", "UNAVAILABLE"]},
        "status": {"type": "string"},
        "evidence": {"type": "array", "items": evidence},
        "amem_uri": {"type": ["string", "null"]},
        "method": {"type": "string"},
        "reasons": {"type": "array", "items": {"type": "object", "properties": {
            "facet": {"type": "string"}, "rule": {"type": "string"}, "detail": {"type": "string"},
            "claim_span": {"type": ["object", "null"]}}, "required": ["facet", "rule", "detail"]}},
        "gate": {"type": ["object", "null"]},
        "grounding": {"type": "object", "properties": {"outcome": {"type": "string"}, "requests": {"type": "integer"}}, "required": ["outcome"]},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "context": {"type": "string"}},
        "required": ["claim", "verdict", "status", "evidence", "amem_uri", "method", "reasons", "gate", "grounding"]});
    let recall_out = json!({"type": "object", "properties": {
        "query": {"type": "string"},
        "hits": {"type": "array", "items": {"type": "object", "properties": {
            "rank": {"type": "integer"}, "uri": {"type": "string"}, "title": {"type": ["string", "null"]}, "quote": {"type": "string"},
            "score": {"type": "number"}, "source_url": {"type": ["string", "null"]}, "captured_at": {"type": ["string", "null"]}},
            "required": ["rank", "uri", "quote", "score"]}}},
        "required": ["query", "hits"]});
    let capture_out = json!({"type": "object", "properties": {
        "uri": {"type": "string"}, "item": {"type": "string"}, "title": {"type": ["string", "null"]}, "path": {"type": "string"},
        "chunks": {"type": "integer"}}, "required": ["uri", "item", "path", "chunks"]});
    let gate_out = json!({"type": "object", "properties": {
        "verdict": {"type": "string"}, "flags": {"type": "array"}, "alignment": {"type": "array"},
        "not_checked": {"type": "array", "items": {"type": "string"}}, "threshold": {"type": "number"},
        "models": {"type": "array", "items": {"type": "object", "properties": {
            "role": {"type": "string"}, "method": {"type": "string"}, "asked": {"type": "integer"},
            "answered": {"type": "integer"}, "not_established": {"type": "integer"}}}}},
        "required": ["verdict", "flags", "not_checked"]});
    let open_out = json!({"type": "object", "properties": {
        "uri": {"type": "string"}, "text": {"type": "string"}, "chunks": {"type": "integer"}, "title": {"type": ["string", "null"]},
        "path": {"type": "string"}, "source_url": {"type": ["string", "null"]}},
        "required": ["uri", "text", "chunks", "path"]});
    let read_only = ToolAnnotations::new().read_only(true).open_world(false);
    vec![
        tool(
            "amem_recall",
            "Recall from notes",
            "Search the user's own notes for text that could ground a claim. Returns chunks, best first, each with its amem:// URI (cite it as [src: amem://...]), its note's title, a quote and a score. Read-only, local.",
            schema::<RecallArgs>(),
            recall_out,
            read_only.clone(),
        ),
        tool(
            "amem_factcheck",
            "Fact-check a claim",
            "Check one claim: the user's notes first, then (on a miss) the trust list of sources the user chose, fetched under their rate limits and kept as notes. Returns verdict SUPPORTED, CONTRADICTED, NO_EVIDENCE, or UNAVAILABLE when a source could not be asked, the evidence with amem:// URIs, the finer status, the reasons with claim spans, the gate's flags and the method. Same verdict as `amem factcheck` and the audit.",
            schema::<FactcheckArgs>(),
            factcheck_out,
            ToolAnnotations::new().read_only(false).destructive(false).idempotent(true).open_world(true),
        ),
        tool(
            "amem_capture",
            "Capture a note",
            "Keep a text, or a page from a trust-list host, as a note in the user's wiki (wiki/captured/). Returns its amem:// URI. A URL off the trust list is refused before anything is sent.",
            schema::<CaptureArgs>(),
            capture_out,
            ToolAnnotations::new().read_only(false).destructive(false).idempotent(false).open_world(true),
        ),
        tool(
            "amem_gate",
            "Gate a memory write",
            "The factwash gate: check a memory write against the text it was written from. Returns PASS, PASS_WITH_FLAGS, REWRITE, REJECT or UNCHECKABLE, the flags with their spans, and the change types it does not check.",
            schema::<GateArgs>(),
            gate_out,
            read_only.clone(),
        ),
        tool(
            "amem_open",
            "Open a cited chunk",
            "Open one chunk of the user's notes by its amem://<item>#chunk=<n> URI: its text, its note's title and file, its source.",
            schema::<OpenArgs>(),
            open_out,
            read_only.clone(),
        ),
    ]
}

fn tool(name: &'static str, title: &str, description: &'static str, input: Arc<JsonObject>, output: Value, hints: ToolAnnotations) -> Tool {
    Tool::new(name, description, input).with_title(title).with_raw_output_schema(object(output)).with_annotations(hints)
}

fn grounding_rule_prompt() -> Prompt {
    Prompt::new("grounding-rule", Some("How to cite the user's notes, when to fact-check, and what to do on a contradiction"), None)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().enable_prompts().build())
            .with_server_info(Implementation::new("amem", env!("CARGO_PKG_VERSION")))
            .with_instructions(GROUNDING_RULE)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(&self, request: CallToolRequestParams, ctx: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        let token = ctx.meta.get_progress_token();
        let peer = ctx.peer.clone();
        let engine = self.engine.clone();
        let runtime = tokio::runtime::Handle::current();
        let work = tokio::task::spawn_blocking(move || {
            let mut progress = |step: u32, total: u32, message: &str| {
                if let Some(token) = &token {
                    let p =
                        ProgressNotificationParam::new(token.clone(), f64::from(step)).with_total(f64::from(total)).with_message(message);
                    // Best effort: a client that left does not stop the call.
                    let _ = runtime.block_on(peer.notify_progress(p));
                }
            };
            engine.call(&name, args, &runtime, &mut progress)
        });
        // A client that cancels or disconnects drops this future; the work on
        // the blocking pool finishes on its own and its answer is discarded.
        let result = tokio::select! {
            r = work => r.map_err(|e| ErrorData::internal_error(format!("the tool call failed: {e}"), None))?,
            () = ctx.ct.cancelled() => return Err(ErrorData::internal_error("cancelled by the client", None)),
        };
        match result {
            Ok(v) => Ok(CallToolResult::structured(v).into()),
            Err(e @ CallError::UnknownTool(_)) => Err(ErrorData::invalid_params(e.to_string(), None)),
            Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(e.to_string())]).into()),
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let after = request.and_then(|r| r.cursor).unwrap_or_default();
        let first_page = after.is_empty();
        let engine = self.engine.clone();
        let listed = tokio::task::spawn_blocking(move || {
            engine.fresh_index().map_err(|e| e.to_string())?;
            engine.store.with_wiki(|w| w.items_after(&after, RESOURCE_PAGE)).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        .map_err(|e| ErrorData::internal_error(e, None))?;
        let mut resources = Vec::with_capacity(listed.len() + 1);
        if first_page {
            // The rule heads the first page.
            resources.push(
                Resource::new(GROUNDING_RULE_URI, "grounding-rule")
                    .with_description("How an agent grounds what it says in the user's notes (also the prompt grounding-rule)")
                    .with_mime_type("text/markdown"),
            );
        }
        let next = (listed.len() == RESOURCE_PAGE).then(|| listed.last().map(|i| i.item.0.clone())).flatten();
        for item in &listed {
            let uri = AmemUri::chunk(&item.item.0, 0).to_string();
            let name = item.title.clone().unwrap_or_else(|| item.path.clone());
            let description =
                format!("wiki/{} ({} chunk{}; the others are #chunk=1..)", item.path, item.chunks, if item.chunks == 1 { "" } else { "s" });
            resources.push(Resource::new(uri, name).with_description(description).with_mime_type("text/plain"));
        }
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let chunk = ResourceTemplate::new("amem://{item}#chunk={n}", "wiki chunk")
            .with_description("One chunk of a note in the user's wiki, as amem_recall and amem_factcheck cite it")
            .with_mime_type("text/plain");
        Ok(ListResourceTemplatesResult::with_all_items(vec![chunk]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        if uri == GROUNDING_RULE_URI {
            return Ok(ReadResourceResult::new(vec![ResourceContents::text(GROUNDING_RULE, uri).with_mime_type("text/markdown")]).into());
        }
        let engine = self.engine.clone();
        let asked = uri.clone();
        let opened = tokio::task::spawn_blocking(move || engine.open_chunk(&asked))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match opened {
            Ok(v) => {
                let text = v["text"].as_str().unwrap_or_default().to_string();
                Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri).with_mime_type("text/plain")]).into())
            }
            Err(OpenError::BadUri(m) | OpenError::NotFound(m)) => Err(ErrorData::resource_not_found(m, Some(json!({"uri": uri})))),
            Err(OpenError::Failed(m)) => Err(ErrorData::internal_error(m, None)),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![grounding_rule_prompt()]))
    }

    async fn get_prompt(&self, request: GetPromptRequestParams, _ctx: RequestContext<RoleServer>) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "grounding-rule" {
            return Err(ErrorData::invalid_params(format!("unknown prompt {:?}: the prompt is grounding-rule", request.name), None));
        }
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, GROUNDING_RULE)]).with_description("amem's grounding rule").into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(dir: &std::path::Path) -> Engine {
        std::fs::create_dir_all(dir.join("wiki")).unwrap();
        std::fs::write(dir.join("wiki/falcon.md"), "---\ntitle: Project Falcon\n---\nThe launch budget was $1.2 million.\n").unwrap();
        Engine::open(&ServeOptions {
            home: dir.to_path_buf(),
            offline: true,
            model: None,
            meaning: None,
            endpoints: false,
            reindex_every: Duration::ZERO,
        })
        .unwrap()
    }

    fn call(e: &Engine, tool: &str, args: Value) -> Result<Value, CallError> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let Value::Object(args) = args else { panic!("arguments are an object") };
        e.call(tool, args, rt.handle(), &mut |_, _, _| {})
    }

    #[test]
    fn the_tools_are_listed_in_order_with_their_required_arguments() {
        let tools = tools();
        assert_eq!(tools.iter().map(|t| t.name.to_string()).collect::<Vec<_>>(), TOOL_NAMES);
        for (tool, required) in [("amem_recall", "query"), ("amem_factcheck", "claim"), ("amem_gate", "memory"), ("amem_open", "uri")] {
            let t = tools.iter().find(|t| t.name == tool).unwrap();
            let req = t.input_schema.get("required").and_then(Value::as_array).unwrap();
            assert!(req.iter().any(|r| r == required), "{tool}: {req:?}");
            assert!(t.output_schema.is_some() && t.annotations.is_some(), "{tool}");
        }
    }

    #[test]
    fn every_tool_answers_and_bad_calls_say_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let e = engine(dir.path());
        let hits = call(&e, "amem_recall", json!({"query": "launch budget"})).unwrap();
        let uri = hits["hits"][0]["uri"].as_str().unwrap().to_string();
        assert!(uri.starts_with("amem://project-falcon"), "{hits}");
        let opened = call(&e, "amem_open", json!({"uri": uri})).unwrap();
        assert_eq!(opened["path"], "wiki/falcon.md");
        let checked = call(&e, "amem_factcheck", json!({"claim": "The launch budget was $1.5 million."})).unwrap();
        assert_eq!(checked["verdict"], "CONTRADICTED", "{checked}");
        let captured = call(&e, "amem_capture", json!({"text": "Quokkas live on Rottnest Island.", "title": "Quokkas"})).unwrap();
        assert!(captured["path"].as_str().unwrap().starts_with("wiki/captured/"), "{captured}");
        let found = call(&e, "amem_recall", json!({"query": "quokkas Rottnest"})).unwrap();
        assert_eq!(found["hits"][0]["uri"], captured["uri"]);
        let gated = call(&e, "amem_gate", json!({"source": "Sales probably rose 5%.", "memory": "Sales rose 5%."})).unwrap();
        assert_ne!(gated["verdict"], "PASS", "{gated}");

        let wrong = call(&e, "amem_recall", json!({"query": 3})).unwrap_err();
        assert!(matches!(wrong, CallError::Arguments(_)) && wrong.to_string().contains("{query: string"), "{wrong}");
        let unknown = call(&e, "amem_recall", json!({"query": "x", "colour": 1})).unwrap_err();
        assert!(unknown.to_string().contains("colour"), "{unknown}");
        let big = call(&e, "amem_factcheck", json!({"claim": "a".repeat(MAX_CLAIM_BYTES + 1)})).unwrap_err();
        assert!(big.to_string().contains("over the limit of 65536 bytes"), "{big}");
        assert!(matches!(call(&e, "amem_nope", json!({})), Err(CallError::UnknownTool(_))));
        assert!(matches!(call(&e, "amem_capture", json!({})), Err(CallError::Arguments(_))));
        assert!(matches!(call(&e, "amem_capture", json!({"url": "https://example.org/x"})), Err(CallError::Failed(_))));
        assert!(matches!(call(&e, "amem_open", json!({"uri": "not a uri"})), Err(CallError::Arguments(_))));
        assert!(matches!(call(&e, "amem_open", json!({"uri": "amem://nothing-here#chunk=0"})), Err(CallError::Failed(_))));
    }
}
