//! `amem mcp serve [--http ADDR] [--offline]`: the MCP server (see
//! `crates/cli/mcp/mod.rs` for what it exposes), and `amem mcp call`, which
//! calls one tool in-process, on the server's own code path, with no
//! protocol in between: for scripts, and for `scripts/bench-mcp.py`, which
//! times it beside the same calls over stdio.
//!
//! stdout: `serve` over stdio speaks JSON-RPC there and logs to stderr;
//! `serve --http` prints `listening on http://ADDR/mcp` on stderr once bound.
//! `call` prints the tool's answer as one JSON line (with `--repeat N`, also
//! one `{"type":"timing","calls","failed","micros":[...]}` line of each call's
//! wall time; with `--each FILE`, a call per line of FILE and the timing line
//! alone).

use crate::Exit;
use crate::mcp::http::{Guard, is_loopback_authority};
use crate::mcp::{CallError, Engine, ServeOptions, Server};
use crate::printer::{Ctx, write_json_line};
use anyhow::Context as _;
use rmcp::ServiceExt as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `amem mcp ...`.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum McpCommand {
    /// Serve amem's tools, resources and prompts over MCP (stdio, or HTTP with --http)
    Serve(ServeArgs),
    /// Call one tool in-process and print its answer (no protocol)
    Call(CallArgs),
}

/// Arguments of `amem mcp serve`.
#[derive(clap::Args, Debug)]
pub(crate) struct ServeArgs {
    /// Serve streamable HTTP at http://ADDR/mcp (and POST /factcheck) instead of stdio
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Let a non-loopback address bind and any Host in (requires --token-file)
    #[arg(long, requires = "token_file")]
    pub allow_remote: bool,
    /// A file holding the bearer token HTTP callers must send
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Make no network request: the wiki and earlier captures only
    #[arg(long)]
    pub offline: bool,
    /// Bring the wiki's index up to date before a call at most this often, in seconds (0: every call)
    #[arg(long, value_name = "SECS", default_value_t = 5)]
    pub reindex_every: u64,
}

/// Arguments of `amem mcp call`.
#[derive(clap::Args, Debug)]
pub(crate) struct CallArgs {
    /// The tool (amem_recall, amem_factcheck, amem_capture, amem_gate, amem_open)
    #[arg(value_name = "TOOL")]
    pub tool: String,
    /// Its arguments, a JSON object
    #[arg(value_name = "JSON", default_value = "{}")]
    pub arguments: String,
    /// Make no network request
    #[arg(long)]
    pub offline: bool,
    /// Call it this many times and print each call's time
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub repeat: u32,
    /// Call it once per line of FILE (JSON Lines of argument objects) and print each call's time, not the answers
    #[arg(long, value_name = "FILE", conflicts_with = "arguments")]
    pub each: Option<PathBuf>,
    /// As `amem mcp serve --reindex-every`
    #[arg(long, value_name = "SECS", default_value_t = 5)]
    pub reindex_every: u64,
}

pub(crate) fn run(c: McpCommand, ctx: &Ctx) -> anyhow::Result<Exit> {
    match c {
        McpCommand::Serve(a) => serve(a, ctx),
        McpCommand::Call(a) => call(a, ctx),
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")
}

/// The token file: a regular file of at most 4 KiB (never a FIFO or a device read forever).
fn read_token_file(p: &std::path::Path) -> anyhow::Result<String> {
    amem_records::source_file::read_file_to_string(p, amem_records::source_file::Limit::TOKEN)
        .with_context(|| format!("cannot read the token file {}", p.display()))
}

fn serve(a: ServeArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let token = match &a.token_file {
        Some(p) => {
            let text = read_token_file(p)?;
            let token = text.trim().to_string();
            if token.len() < 16 {
                return Err(crate::UsageError(format!("{}: the token is {} characters; use at least 16", p.display(), token.len())).into());
            }
            Some(token)
        }
        None => None,
    };
    if let Some(addr) = &a.http
        && !a.allow_remote
        && !is_loopback_authority(addr)
    {
        return Err(crate::UsageError(format!(
            "--http {addr}: not a loopback address; binding elsewhere needs --allow-remote and --token-file"
        ))
        .into());
    }
    let opts = ServeOptions {
        home: ctx.home.clone(),
        offline: a.offline,
        model: ctx.model()?,
        meaning: ctx.meaning()?,
        endpoints: ctx.models_on(),
        reindex_every: Duration::from_secs(a.reindex_every),
    };
    let rt = runtime()?;
    rt.block_on(async move {
        let engine = Arc::new(tokio::task::block_in_place(|| Engine::open(&opts))?);
        match a.http {
            None => {
                // The non-blocking pipe driver when the client starts amem with pipes (as MCP
                // clients do): no hand-off to a blocking thread for each message.
                let service =
                    Server::new(engine).serve(rmcp::transport::io::stdio_pipes()).await.context("the MCP session did not start")?;
                service.waiting().await.context("the MCP session failed")?;
            }
            Some(addr) => {
                let listener = tokio::net::TcpListener::bind(&addr).await.with_context(|| format!("cannot listen on {addr}"))?;
                let bound = listener.local_addr().context("no local address")?;
                let guard = Guard { allow_remote: a.allow_remote, token, allowed_origins: engine.config.mcp.allowed_origins.clone() };
                ctx.note(format!("listening on http://{bound}/mcp (POST http://{bound}/factcheck for the browser bridge)"));
                let shutdown = async {
                    let _ = tokio::signal::ctrl_c().await;
                };
                crate::mcp::http::serve(engine, listener, guard, shutdown).await.context("the HTTP server failed")?;
            }
        }
        anyhow::Ok(())
    })?;
    Ok(Exit::Success)
}

fn parse_object(text: &str, what: &str) -> anyhow::Result<rmcp::model::JsonObject> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(m)) => Ok(m),
        Ok(_) => Err(crate::UsageError(format!("{what}: the arguments must be a JSON object")).into()),
        Err(e) => Err(crate::UsageError(format!("{what}: the arguments are not JSON: {e}")).into()),
    }
}

fn call(a: CallArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let inputs = match &a.each {
        None => vec![parse_object(&a.arguments, "JSON")?],
        Some(path) => {
            let limit = amem_records::source_file::Limit { what: "a file of tool arguments", bytes: 256 << 20 };
            let text =
                amem_records::source_file::read_file_to_string(path, limit).with_context(|| format!("cannot read {}", path.display()))?;
            let mut inputs = Vec::new();
            for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                inputs.push(parse_object(line, &format!("{}:{}", path.display(), i + 1))?);
            }
            inputs
        }
    };
    let opts = ServeOptions {
        home: ctx.home.clone(),
        offline: a.offline,
        model: ctx.model()?,
        meaning: ctx.meaning()?,
        endpoints: ctx.models_on(),
        reindex_every: Duration::from_secs(a.reindex_every),
    };
    let engine = Engine::open(&opts)?;
    let rt = runtime()?;
    let mut micros = Vec::with_capacity(inputs.len() * a.repeat as usize);
    let mut failed = 0u64;
    let mut last = None;
    for args in &inputs {
        for _ in 0..a.repeat {
            let started = Instant::now();
            let answer = engine.call(&a.tool, args.clone(), rt.handle(), &mut |_, _, _| {});
            micros.push(u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX));
            failed += u64::from(answer.is_err());
            last = Some(answer);
        }
    }
    let mut out = ctx.stdout();
    if a.each.is_none() {
        match last {
            Some(Ok(v)) => write_json_line(&mut out, &v)?,
            Some(Err(e @ (CallError::UnknownTool(_) | CallError::Arguments(_)))) => return Err(crate::UsageError(e.to_string()).into()),
            Some(Err(e)) => anyhow::bail!("{e}"),
            None => {}
        }
    }
    if a.repeat > 1 || a.each.is_some() {
        write_json_line(&mut out, &serde_json::json!({"type": "timing", "calls": micros.len(), "failed": failed, "micros": micros}))?;
    }
    Ok(Exit::Success)
}
