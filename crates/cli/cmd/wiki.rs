//! The wiki commands: `amem index`, `amem recall`, `amem open`, `amem capture`.
//!
//! All of them work on `$AMEM_HOME/wiki` and the `wiki_*` tables of
//! `$AMEM_HOME/ledger.sqlite` through `amem-recall`.
//!
//! stdout: `recall` prints ranked hits (`--format json`: one `{"type":"hit","data":{…}}`
//! per hit, then `{"type":"summary","data":{…}}`); `open` prints the chunk
//! with its item's title and source (`--format json`: one `{"type":"chunk",…}`);
//! `capture` prints the new item's `amem://` URI. `index` prints nothing on
//! stdout: its counts and every skipped file go to stderr.

use crate::Exit;
use crate::printer::{Ctx, write_json_line};
use amem_recall::{Capture, IndexOptions, ItemKind, Recall, RecallMethod, SkipReason, Wiki};
use amem_records::AmemUri;
use anyhow::Context as _;
use serde::Serialize;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;

/// Arguments of `amem index`.
#[derive(clap::Args, Debug)]
pub(crate) struct IndexArgs {
    /// Read and digest every file, even those whose size and modification time are unchanged
    #[arg(long)]
    pub rehash: bool,
}

/// Arguments of `amem recall`.
#[derive(clap::Args, Debug)]
pub(crate) struct RecallArgs {
    /// The claim to look for (its content words, numbers, dates and names are searched)
    #[arg(value_name = "CLAIM", allow_hyphen_values = true)]
    pub claim: String,
    /// How many chunks to return
    #[arg(long, short = 'k', default_value_t = 5)]
    pub k: usize,
    /// How to rank: bm25, dense or hybrid [default: --recall-method's]
    #[arg(long, value_enum, value_name = "METHOD")]
    pub method: Option<crate::printer::RecallMethodArg>,
    #[command(flatten)]
    pub out: crate::printer::OutputArgs,
}

/// Arguments of `amem open`.
#[derive(clap::Args, Debug)]
pub(crate) struct OpenArgs {
    /// amem://<item>#chunk=<n> (without #chunk, the first chunk)
    #[arg(value_name = "URI")]
    pub uri: String,
    #[command(flatten)]
    pub out: crate::printer::OutputArgs,
}

/// Arguments of `amem capture`.
#[derive(clap::Args, Debug)]
pub(crate) struct CaptureArgs {
    /// The file to add (.md, .txt or .html; anything else is read as text)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Title [default: the file's front matter title, first heading or HTML title]
    #[arg(long)]
    pub title: Option<String>,
    /// Where the text came from [default: the file's front matter `source:`]
    #[arg(long, value_name = "URL")]
    pub source: Option<String>,
}

fn open_wiki(ctx: &Ctx) -> anyhow::Result<Wiki> {
    Ok(Wiki::open(&ctx.home).with_context(|| format!("cannot open the wiki of {}", ctx.home.display()))?.with_meaning(ctx.meaning()?))
}

pub(crate) fn run_index(a: IndexArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let mut wiki = open_wiki(ctx)?;
    let pb = ctx.progress_bar(None, "indexing");
    let mut sized = false;
    let report = wiki.index_wiki(IndexOptions { rehash: a.rehash, now: None }, &mut |p| {
        if !sized {
            pb.set_length(p.total as u64);
            sized = true;
        }
        pb.set_position(p.done as u64);
        pb.set_message(p.path.to_string());
        ControlFlow::Continue(())
    });
    pb.finish_and_clear();
    let report = report.with_context(|| format!("indexing {} failed", wiki.dir().display()))?;
    let mut other_formats = 0;
    for s in &report.skipped {
        if s.reason == SkipReason::Unsupported {
            other_formats += 1;
        } else {
            ctx.warn(format!("skipped {}: {}", s.path.display(), s.reason));
        }
    }
    for w in &report.warnings {
        ctx.warn(format!("{}:{}: {}; indexed as plain text", w.path.display(), w.warning.line, w.warning.problem));
    }
    for w in &report.time_warnings {
        ctx.warn(format!(
            "{}:{}: {}; the note's time is taken from its other dates or its file's modification time",
            w.path.display(),
            w.warning.line,
            w.warning.problem
        ));
    }
    ctx.note(format!(
        "indexed {}: {} files ({} added, {} changed, {} unchanged, {} removed), {} skipped{}; the index holds {} items, {} chunks ({})",
        wiki.dir().display(),
        report.files,
        report.added,
        report.changed,
        report.unchanged,
        report.removed,
        report.skipped.len() - other_formats,
        if other_formats > 0 { format!(", {other_formats} files of other formats ignored") } else { String::new() },
        report.stats.items,
        report.stats.chunks,
        wiki.index_path().display()
    ));
    Ok(Exit::Success)
}

#[derive(Serialize)]
struct Line<'a, T: Serialize> {
    r#type: &'a str,
    data: T,
}

#[derive(Serialize)]
struct HitLine<'a> {
    rank: usize,
    #[serde(flatten)]
    hit: &'a amem_recall::Hit,
}

#[derive(Serialize)]
struct Summary {
    hits: usize,
    k: usize,
    items_indexed: u64,
}

pub(crate) fn run_recall(a: RecallArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let method = a.method.map_or(ctx.meaning()?.map_or(RecallMethod::Bm25, |m| m.method), RecallMethod::from);
    if method != RecallMethod::Bm25 && ctx.meaning()?.is_none() {
        return Err(
            crate::UsageError(format!("--method {method} reads the static embedder: drop --no-models, or use --method bm25")).into()
        );
    }
    let wiki = open_wiki(ctx)?.with_meaning(ctx.meaning_by(method)?);
    let stats = wiki.stats()?;
    if stats.items == 0 {
        ctx.warn(format!("the index is empty: add notes to {} and run `amem index`", wiki.dir().display()));
    } else if method.reads_vectors() {
        let embedded = wiki.embedded_chunks()?;
        if embedded < stats.chunks {
            ctx.warn(format!(
                "{} of the index's {} chunks have no vector of this embedder (indexed with --no-models?): run `amem index` so recall by meaning sees them",
                stats.chunks - embedded,
                stats.chunks
            ));
        }
    }
    let hits = wiki.search(&a.claim, a.k).context("search failed")?;
    let mut out = ctx.stdout();
    if a.out.is_json() {
        for (i, h) in hits.iter().enumerate() {
            write_json_line(&mut out, &Line { r#type: "hit", data: HitLine { rank: i + 1, hit: h } })?;
        }
        write_json_line(&mut out, &Line { r#type: "summary", data: Summary { hits: hits.len(), k: a.k, items_indexed: stats.items } })?;
    } else {
        for (i, h) in hits.iter().enumerate() {
            let title = h.title.as_deref().unwrap_or("(untitled)");
            writeln!(out, "{}. {}  score {:.3}  {} ({})", i + 1, h.uri, h.score, title, h.path)?;
            writeln!(out, "   \"{}\"", h.quote.split_whitespace().collect::<Vec<_>>().join(" "))?;
            if let Some(src) = &h.source_url {
                writeln!(out, "   source: {src}")?;
            }
        }
        if hits.is_empty() && stats.items > 0 {
            ctx.note(match method {
                RecallMethod::Bm25 => "no chunk of the wiki shares a content word with that claim",
                _ => "the claim has no content word to search by (nor any wordpiece the embedder knows)",
            });
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

pub(crate) fn run_open(a: OpenArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let uri: AmemUri = a.uri.parse()?;
    let wiki = open_wiki(ctx)?;
    let chunk = wiki.open_uri(&uri)?;
    let mut out = ctx.stdout();
    if a.out.is_json() {
        write_json_line(&mut out, &Line { r#type: "chunk", data: &chunk })?;
    } else {
        writeln!(out, "# {}", chunk.title.as_deref().unwrap_or("(untitled)"))?;
        writeln!(out, "uri: {} (chunk {} of {}, numbered from 0)", chunk.uri, chunk.uri.chunk.unwrap_or(0), chunk.chunks)?;
        writeln!(out, "source: {}", chunk.source_url.as_deref().unwrap_or("(own note)"))?;
        if let Some(at) = &chunk.retrieved_at {
            writeln!(out, "retrieved_at: {at}")?;
        }
        writeln!(out, "file: wiki/{}", chunk.path)?;
        writeln!(out, "digest: {}", chunk.item_digest)?;
        writeln!(out)?;
        writeln!(out, "{}", chunk.text)?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// The time a capture records: now, to the second (as the trust list's captures record it).
pub(crate) fn captured_now() -> String {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second()).unwrap_or(now).to_string()
}

pub(crate) fn run_capture(a: CaptureArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let bytes = amem_records::source_file::read_file(&a.file, amem_records::source_file::Limit::INPUT_TEXT)
        .with_context(|| format!("cannot read {}", a.file.display()))?;
    let name = a.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let kind = ItemKind::from_name(&name).unwrap_or(ItemKind::Text);
    let parsed =
        amem_recall::parse_item(&bytes, kind).map_err(|reason| anyhow::anyhow!("cannot capture {}: {reason}", a.file.display()))?;
    let now = captured_now();
    let mut wiki = open_wiki(ctx)?;
    let id = wiki.capture(&Capture {
        text: &parsed.body,
        title: a.title.as_deref().or(parsed.title.as_deref()),
        source_url: a.source.as_deref().or(parsed.source_url.as_deref()),
        retrieved_at: parsed.retrieved_at.as_deref().unwrap_or(&now),
    })?;
    ctx.note(format!("captured {} as {}", a.file.display(), wiki.dir().join("captured").join(format!("{id}.md")).display()));
    let mut out = ctx.stdout();
    writeln!(out, "{}", AmemUri::item(id.as_str()))?;
    out.flush()?;
    Ok(Exit::Success)
}
