//! The report's text. Every piece of user text goes through `escape`.

use crate::RenderError;
use crate::escape::{blockquote, code, inline, url};
use amem_records::{
    AuditRecord, CitedEvidence, EvidenceRole, GateVerdict, Group, NoteRef, RunInfo, RunSummary, Status, evidence_with_roles,
};
use jiff::Timestamp;
use std::io::Write;

type R = Result<(), RenderError>;

/// A code span inside a table cell: GFM splits cells on `|` even inside code
/// spans unless it is backslash-escaped.
fn cell_code(s: &str) -> String {
    code(s).replace('|', "\\|")
}

fn when(t: Timestamp) -> String {
    t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// A stored RFC 3339 time shown like `when`, or verbatim when it does not parse.
fn when_text(s: &str) -> String {
    match s.parse::<Timestamp>() {
        Ok(t) => when(t),
        Err(_) => inline(s),
    }
}

pub(crate) fn group_title(g: Group) -> &'static str {
    match g {
        Group::Supported => "✅ Supported",
        Group::Contradicted => "⚠ Contradicted",
        Group::Unverified => "❓ Unverified",
    }
}

fn status_mark(s: Status) -> &'static str {
    match s.group() {
        Group::Supported => "✅",
        Group::Contradicted => "⚠",
        Group::Unverified => "❓",
    }
}

pub(crate) fn title(out: &mut impl Write, run: &RunInfo) -> R {
    writeln!(out, "{}{}\n", amem_records::REPORT_HEADING, code(&run.run_id.0))?;
    Ok(())
}

/// The opening lines: what needs attention, and how the report is cut.
/// `counts` and `mine` are per group rank (contradicted, supported, unverified).
pub(crate) fn attention(out: &mut impl Write, counts: &[u64; 4], mine: &[u64; 3], full: bool) -> R {
    let yours = |n: u64| if n > 0 { format!(" ({n} yours)") } else { String::new() };
    writeln!(out, "## What needs attention\n")?;
    writeln!(out, "- ⚠ **{} contradicted**{}: your notes say otherwise; read these first.", counts[0], yours(mine[0]))?;
    writeln!(out, "- ✅ {} supported{}: your notes back them.", counts[1], yours(mine[1]))?;
    writeln!(out, "- ❓ {} unverified{}: nothing in your notes decides them.", counts[2], yours(mine[2]))?;
    if full {
        writeln!(out, "\nEvery claim is listed (`--full`).\n")?;
    } else {
        writeln!(
            out,
            "\nUp to {} contradicted and {} supported claims are written out, your own first, and the {} most check-worthy \
             unverified ones; `audit.arrow` (or `--format jsonl`) holds every row, and `--full` lists everything here.\n",
            crate::CONTRADICTED_LISTED,
            crate::SUPPORTED_LISTED,
            crate::UNVERIFIED_LISTED
        )?;
    }
    if mine.iter().sum::<u64>() > 0 {
        writeln!(out, "\"You\" is `[me]` in config.toml (and iMessage's own messages).\n")?;
    }
    Ok(())
}

pub(crate) fn run_table(out: &mut impl Write, run: &RunInfo, s: &RunSummary) -> R {
    let p = &run.params;
    writeln!(out, "## Run\n")?;
    writeln!(out, "| run | |")?;
    writeln!(out, "|---|---|")?;
    writeln!(out, "| started | {} |", when(run.started_at))?;
    if let Some(f) = s.finished_at {
        writeln!(out, "| finished | {} |", when(f))?;
    }
    let since = p.since.map(when).unwrap_or_else(|| "the beginning".to_string());
    let until = p.until.map(when).unwrap_or_else(|| "now".to_string());
    writeln!(out, "| window | {since} to {until} |")?;
    writeln!(out, "| now | {} |", when(p.now))?;
    let mut sources: Vec<String> = p.sources.iter().map(|src| format!("{} {}", src.kind.as_str(), cell_code(&src.path))).collect();
    if sources.is_empty() {
        sources.push("none".to_string());
    }
    writeln!(out, "| sources | {} |", sources.join("<br>"))?;
    writeln!(out, "| network | {} |", if p.offline { "offline (no fetches)" } else { "trust list allowed" })?;
    writeln!(
        out,
        "| whose | {} |",
        match p.who {
            amem_records::Who::All => "everyone's (`--who all`)",
            amem_records::Who::Me => "yours only (`--who me`)",
            amem_records::Who::Others => "others' only (`--who others`)",
        }
    )?;
    writeln!(out, "| bulk mail and bots | {} |", if p.include_bulk { "audited (`--include-bulk`)" } else { "skipped and counted" })?;
    writeln!(
        out,
        "| forwarded text | {} |",
        if p.include_forwarded { "audited as its original authors' claims (`--include-forwarded`)" } else { "counted, not audited" }
    )?;
    writeln!(out, "| policy | {} |", cell_code(&p.policy_version))?;
    writeln!(out, "| home | {} |", cell_code(&p.home))?;
    writeln!(out)?;

    writeln!(out, "## Counts\n")?;
    writeln!(out, "| what | count |")?;
    writeln!(out, "|---|---:|")?;
    writeln!(out, "| messages read | {} |", s.messages_read)?;
    if s.messages_already_assessed > 0 {
        writeln!(out, "| messages already assessed under this policy (not re-read) | {} |", s.messages_already_assessed)?;
    }
    let q = &s.quoted;
    if q.reply_messages > 0 {
        writeln!(
            out,
            "| quoted replies, not audited (someone's earlier mail, audited where it was sent) | {} messages, {} characters |",
            q.reply_messages, q.reply_chars
        )?;
    }
    if q.forward_messages > 0 {
        if q.forwarded_audited > 0 {
            writeln!(
                out,
                "| forwarded text, audited as its original authors' claims (`--include-forwarded`) | {} messages, {} characters, {} parts |",
                q.forward_messages, q.forward_chars, q.forwarded_audited
            )?;
        } else {
            writeln!(
                out,
                "| forwarded text, not audited (`--include-forwarded` audits it as its original authors' claims) | {} messages, {} characters |",
                q.forward_messages, q.forward_chars
            )?;
        }
    }
    if s.other_shards > 0 {
        writeln!(out, "| messages of other shards (read, left to the shard that owns them) | {} |", s.other_shards)?;
    }
    if s.copies > 0 {
        writeln!(out, "| copies of a message already read (same Message-ID or same sender, time and text), audited once | {} |", s.copies)?;
    }
    let claims: u64 = s.claims_by_kind.values().sum();
    let kinds: Vec<String> = s.claims_by_kind.iter().map(|(k, n)| format!("{} {n}", k.as_str())).collect();
    if kinds.is_empty() {
        writeln!(out, "| claims extracted | {claims} |")?;
    } else {
        writeln!(out, "| claims extracted | {claims} ({}) |", kinds.join(", "))?;
    }
    writeln!(out, "| claims audited | {} |", s.audited)?;
    writeln!(out, "| assessments | {} |", s.assessed)?;
    for g in [Group::Contradicted, Group::Supported, Group::Unverified] {
        let by: Vec<String> = s
            .by_status
            .iter()
            .filter(|(st, n)| st.group() == g && **n > 0 && g == Group::Unverified)
            .map(|(st, n)| format!("{} {n}", st.as_str()))
            .collect();
        if by.is_empty() {
            writeln!(out, "| {} | {} |", group_title(g), s.group_count(g))?;
        } else {
            writeln!(out, "| {} | {} ({}) |", group_title(g), s.group_count(g), by.join(", "))?;
        }
    }
    writeln!(out, "| local wiki hits | {} |", s.local_hits)?;
    writeln!(out, "| fetches | {} |", s.fetches)?;
    // Only where a model endpoint was configured and asked: a run without one reads as before.
    if s.model_answered > 0 {
        writeln!(out, "| model answers | {} |", s.model_answered)?;
    }
    if s.model_unavailable > 0 {
        writeln!(out, "| model unavailable | {} claims (the rules' verdict stands) |", s.model_unavailable)?;
    }
    writeln!(out, "| skipped | {} |", s.skipped.total)?;
    writeln!(out, "| uncheckable | {} |", s.uncheckable.values().sum::<u64>())?;
    writeln!(out)?;
    Ok(())
}

pub(crate) fn group_heading(out: &mut impl Write, g: Group, n: u64, mine: u64) -> R {
    if mine > 0 {
        writeln!(out, "## {} ({n}, {mine} yours)\n", group_title(g))?;
    } else {
        writeln!(out, "## {} ({n})\n", group_title(g))?;
    }
    Ok(())
}

/// "Yours" before the user's own claims, "Others'" after them.
pub(crate) fn whose_heading(out: &mut impl Write, mine: bool) -> R {
    if mine {
        writeln!(out, "**Yours** (you said this; the evidence is what your notes say):\n")?;
    } else {
        writeln!(out, "**Others'**:\n")?;
    }
    Ok(())
}

/// Where the rows a default report leaves out are.
pub(crate) fn more_in_data_files(out: &mut impl Write, g: Group, more: u64) -> R {
    if more > 0 {
        writeln!(
            out,
            "_{more} more {} claims are in `audit.arrow` (`group = '{}'`) and `--format jsonl`; `--full` lists them here._\n",
            g.as_str(),
            g.as_str()
        )?;
    }
    Ok(())
}

pub(crate) fn unverified_by_status(out: &mut impl Write, s: &RunSummary) -> R {
    let by: Vec<String> = s
        .by_status
        .iter()
        .filter(|(st, n)| st.group() == Group::Unverified && **n > 0)
        .map(|(st, n)| format!("{} {n}", st.as_str()))
        .collect();
    if !by.is_empty() {
        writeln!(out, "By status: {}.\n", by.join(", "))?;
    }
    Ok(())
}

/// A by-conversation or by-author table: the largest first, then how many
/// others there are.
pub(crate) fn top_table(out: &mut impl Write, what: &str, plural: &str, rows: &[crate::TopRow], distinct: u64) -> R {
    writeln!(out, "| {what} | claims | yours |")?;
    writeln!(out, "|---|---:|---:|")?;
    for (key, n, mine) in rows {
        let label = match key.as_slice() {
            [source, archive, conv] => format!("{} · {} · {}", inline(source), cell_code(archive), cell_code(conv)),
            other => other.iter().map(|k| inline(k).replace('|', "\\|")).collect::<Vec<_>>().join(" · "),
        };
        writeln!(out, "| {label} | {n} | {mine} |")?;
    }
    writeln!(out)?;
    let shown = rows.len() as u64;
    if distinct > shown {
        writeln!(out, "_and {} more {plural}._\n", distinct - shown)?;
    }
    Ok(())
}

pub(crate) fn check_worthy_heading(out: &mut impl Write, listed: u64, n: u64) -> R {
    writeln!(
        out,
        "### The {listed} most check-worthy of {n}\n\nYour own first, then those with evidence that came close, then claims with \
         numbers, dates, comparisons and causes.\n"
    )?;
    Ok(())
}

/// One unverified claim on one line: who, when, where, the claim, why not decided.
pub(crate) fn unverified_line(out: &mut impl Write, rec: &AuditRecord) -> R {
    let you = match (&rec.forwarded_by, rec.from_me) {
        (Some(_), _) if rec.forwarded_by_me => " (you forwarded this)".to_string(),
        (Some(by), _) => format!(" (forwarded by {})", inline(by)),
        (None, true) => " (you)".to_string(),
        (None, false) => String::new(),
    };
    writeln!(
        out,
        "- **{}**{you}, {} · {} · {} · at {}: {} · {} {}",
        inline(&rec.author),
        when(rec.sent_at),
        rec.source.as_str(),
        code(&rec.conversation),
        code(&rec.locator),
        inline(&rec.claim.text),
        rec.claim.kind.as_str(),
        rec.assessment.status.as_str()
    )?;
    Ok(())
}

pub(crate) fn conversation_heading(out: &mut impl Write, rec: &AuditRecord) -> R {
    write!(out, "### {} · {} · {}", rec.source.as_str(), code(&rec.archive), code(&rec.conversation))?;
    match &rec.subject {
        Some(s) if !s.trim().is_empty() => writeln!(out, " · {}\n", inline(s))?,
        _ => writeln!(out, "\n")?,
    }
    Ok(())
}

/// True for evidence that cannot carry a verdict on its own: a heading
/// line, or a line that is only a number (with its punctuation).
fn is_heading_or_bare_value(quote: &str) -> bool {
    let t = quote.trim();
    let unheaded = t.trim_start_matches('#').trim();
    let words = unheaded.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count();
    t.starts_with('#') && !unheaded.contains(['.', '!', '?']) || words == 0
}

fn role_label(r: EvidenceRole) -> &'static str {
    match r {
        EvidenceRole::Supports => "supports",
        EvidenceRole::Conflicts => "conflicts",
        EvidenceRole::Context => "context",
    }
}

/// When a cited note was written, and which time that is: "written
/// 2019-03-01 (front matter `date:`)", or "modified 2024-04-01 08:00:00 UTC
/// (file time)" for a note whose front matter gives no date. A front matter
/// date without a time is shown as the day alone.
pub(crate) fn note_time(n: &NoteRef) -> Option<String> {
    match (n.written_at.as_deref(), n.written_from.as_deref()) {
        (Some(w), Some(key)) if key != "mtime" => {
            let day = w.strip_suffix("T00:00:00Z").filter(|d| d.len() == 10);
            Some(format!("written {} (front matter `{}:`)", day.map_or_else(|| when_text(w), inline), inline(key)))
        }
        (Some(w), _) => Some(format!("modified {} (file time)", when_text(w))),
        (None, _) => n.modified_at.as_deref().map(|m| format!("modified {} (file time)", when_text(m))),
    }
}

fn evidence_line(c: &CitedEvidence, note: Option<&NoteRef>) -> String {
    let e = &c.evidence;
    let mut parts = vec![format!("**{}**", role_label(c.role))];
    if let Some(t) = e.title.as_deref().filter(|t| !t.trim().is_empty()) {
        parts.push(format!("“{}”", inline(t)));
    }
    if let Some(n) = note {
        parts.push(code(&format!("wiki/{}", n.path)));
        if let Some(t) = note_time(n) {
            parts.push(t);
        }
    }
    if let Some(u) = &e.source_url {
        parts.push(url(u));
        // A fetched page's time is when it was captured; an own note's is
        // its file's modification time above, never the indexing time.
        if let Some(c) = &e.captured_at {
            parts.push(format!("captured {}", when_text(c)));
        }
    }
    parts.push(code(&e.uri.to_string()));
    parts.push(format!("bytes {}–{}", e.span.start, e.span.end));
    parts.join(" · ")
}

/// What a REWRITE beside a ✅ asks of the reader.
const REWRITE_ON_SUPPORTED: &str = "REWRITE beside ✅: your notes support the claim, but they state it with a qualifier \
     (a hedge, condition, scope, attribution or unit) the claim drops; repeat it the way the note puts it.";

pub(crate) fn record(out: &mut impl Write, rec: &AuditRecord) -> R {
    let a = &rec.assessment;
    let c = &rec.claim;
    let you = if rec.from_me { " (you)" } else { "" };
    writeln!(
        out,
        "- **{}**{you}, {}, message {} at {}",
        inline(&rec.author),
        when(rec.sent_at),
        code(&rec.message_id.0),
        code(&rec.locator)
    )?;
    if let Some(by) = &rec.forwarded_by {
        // The words are the original author's; the forwarder passed them on.
        if rec.forwarded_by_me {
            writeln!(out, "  (you forwarded this; the words are {}'s)", inline(&rec.author))?;
        } else {
            writeln!(out, "  (forwarded by {}; the words are {}'s)", inline(by), inline(&rec.author))?;
        }
    }
    if !rec.also_filed_at.is_empty() {
        let at: Vec<String> = rec.also_filed_at.iter().map(|l| code(l)).collect();
        writeln!(out, "  (the same mail is also filed at {}; audited once)", at.join(", "))?;
    }
    writeln!(out)?;
    out.write_all(blockquote(&c.text, "  ").as_bytes())?;
    writeln!(out)?;
    writeln!(
        out,
        "  - status: {} **{}** · {} claim {} · method {}",
        status_mark(a.status),
        a.status.as_str(),
        c.kind.as_str(),
        code(&c.id.0.short(16)),
        code(&a.method)
    )?;
    if !c.cues.is_empty() {
        let cues: Vec<String> = c.cues.iter().map(|q| format!("{} {}", q.class.as_str(), code(&q.text))).collect();
        writeln!(out, "  - stance cues: {}", cues.join(", "))?;
    }
    for r in &a.reasons {
        let detail = if r.detail.trim().is_empty() { String::new() } else { format!(": {}", inline(&r.detail)) };
        writeln!(out, "  - why ({}){detail} · rule {}", inline(&r.facet), code(&r.rule))?;
    }
    let cited = evidence_with_roles(a);
    let shown: Vec<&CitedEvidence> = cited.iter().filter(|e| !is_heading_or_bare_value(&e.evidence.quote)).collect();
    if cited.is_empty() {
        writeln!(out, "  - evidence: none in the reviewed set")?;
    } else if shown.is_empty() {
        writeln!(out, "  - evidence: only headings or bare numbers matched (listed in `audit.arrow`)")?;
    }
    for e in shown {
        let note = rec.notes.iter().find(|n| n.item == e.evidence.uri.item);
        writeln!(out, "  - evidence {}", evidence_line(e, note))?;
        writeln!(out)?;
        out.write_all(blockquote(&e.evidence.quote, "    ").as_bytes())?;
        writeln!(out)?;
        if let Some(v) = &e.value {
            let label = if e.role == EvidenceRole::Conflicts { "conflicting value" } else { "value" };
            writeln!(out, "    - {label}: {} (bytes {}–{})", code(&v.quote), v.span.start, v.span.end)?;
        }
    }
    match &a.gate {
        None => writeln!(out, "  - gate: not run")?,
        Some(g) => {
            writeln!(out, "  - gate: **{}**", g.verdict.as_str())?;
            if g.verdict == GateVerdict::Rewrite && a.group() == Group::Supported {
                writeln!(out, "    - {REWRITE_ON_SUPPORTED}")?;
            }
            for f in &g.flags {
                writeln!(out, "    - {}: cue {} · rule {}", inline(&f.check), code(&f.cue), code(&f.rule))?;
                if !f.source_sentence.is_empty() {
                    writeln!(out, "      - source: {}", inline(&f.source_sentence))?;
                }
                if !f.memory_sentence.is_empty() {
                    writeln!(out, "      - claim: {}", inline(&f.memory_sentence))?;
                }
            }
        }
    }
    writeln!(out)?;
    Ok(())
}

pub(crate) fn skipped(out: &mut impl Write, s: &RunSummary) -> R {
    let t = &s.skipped;
    writeln!(out, "## Skipped ({})\n", t.total)?;
    if t.total == 0 {
        writeln!(out, "_Nothing was skipped._\n")?;
        return Ok(());
    }
    writeln!(out, "| stage | reason | count |")?;
    writeln!(out, "|---|---|---:|")?;
    for (stage, reasons) in &t.by_stage {
        for (reason, n) in reasons {
            writeln!(out, "| {} | {} | {n} |", inline(stage), inline(reason))?;
        }
    }
    writeln!(out)?;
    if !t.sample.is_empty() {
        let shown = t.sample.len() as u64;
        if shown < t.total {
            writeln!(out, "The first {shown} of {} by locator:\n", t.total)?;
        }
        for sk in &t.sample {
            writeln!(out, "- {} · {} · {}", inline(&sk.stage), code(&sk.locator), inline(&sk.reason))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

pub(crate) fn uncheckable_heading(out: &mut impl Write, s: &RunSummary, gate_rows: u64) -> R {
    let total: u64 = s.uncheckable.values().sum();
    writeln!(out, "## Uncheckable ({total})\n")?;
    if total == 0 && gate_rows == 0 {
        writeln!(out, "_Nothing was uncheckable._\n")?;
        return Ok(());
    }
    writeln!(out, "Uncheckable is never a pass: these could not be aligned, parsed, fetched or read.\n")?;
    if total > 0 {
        writeln!(out, "| reason | count |")?;
        writeln!(out, "|---|---:|")?;
        for (reason, n) in &s.uncheckable {
            writeln!(out, "| {} | {n} |", inline(reason))?;
        }
        writeln!(out)?;
    }
    if gate_rows > 0 {
        writeln!(out, "Claims the gate could align with nothing in their evidence ({gate_rows}):\n")?;
    }
    Ok(())
}

pub(crate) fn uncheckable_row(out: &mut impl Write, rec: &AuditRecord) -> R {
    debug_assert!(rec.assessment.gate.as_ref().is_some_and(|g| g.verdict == GateVerdict::Uncheckable));
    writeln!(
        out,
        "- {} · {} · {} · **{}**, {}: {} ({})",
        rec.source.as_str(),
        code(&rec.archive),
        code(&rec.conversation),
        inline(&rec.author),
        when(rec.sent_at),
        inline(&rec.claim.text),
        rec.assessment.status.as_str()
    )?;
    Ok(())
}

pub(crate) fn not_checked(out: &mut impl Write, s: &RunSummary) -> R {
    writeln!(out, "## Not checked\n")?;
    if s.not_checked.is_empty() {
        writeln!(out, "_Every change type has a detector._")?;
        return Ok(());
    }
    let types: Vec<String> = s.not_checked.iter().map(|t| inline(t)).collect();
    writeln!(out, "No detector covers these change types, so a clean report does not rule them out: {}.", types.join(", "))?;
    Ok(())
}
