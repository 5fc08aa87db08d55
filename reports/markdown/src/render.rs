//! The report's text. Every piece of user text goes through `escape`.

use crate::RenderError;
use crate::escape::{blockquote, code, inline, url};
use amem_model::{AuditRecord, Evidence, GateVerdict, Group, RunInfo, RunSummary, Status};
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

pub(crate) fn header(out: &mut impl Write, run: &RunInfo, s: &RunSummary) -> R {
    let p = &run.params;
    writeln!(out, "# amem audit: run {}\n", code(&run.run_id.0))?;
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
    let claims: u64 = s.claims_by_kind.values().sum();
    let kinds: Vec<String> = s.claims_by_kind.iter().map(|(k, n)| format!("{} {n}", k.as_str())).collect();
    if kinds.is_empty() {
        writeln!(out, "| claims extracted | {claims} |")?;
    } else {
        writeln!(out, "| claims extracted | {claims} ({}) |", kinds.join(", "))?;
    }
    writeln!(out, "| claims audited | {} |", s.audited)?;
    writeln!(out, "| assessments | {} |", s.assessed)?;
    for g in [Group::Supported, Group::Contradicted, Group::Unverified] {
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
    writeln!(out, "| skipped | {} |", s.skipped.total)?;
    writeln!(out, "| uncheckable | {} |", s.uncheckable.values().sum::<u64>())?;
    writeln!(out)?;
    Ok(())
}

pub(crate) fn group_heading(out: &mut impl Write, g: Group, n: u64) -> R {
    writeln!(out, "## {} ({n})\n", group_title(g))?;
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

fn evidence_line(e: &Evidence) -> String {
    let mut parts = vec![code(&e.uri.to_string())];
    if let Some(u) = &e.source_url {
        parts.push(url(u));
    }
    if let Some(t) = e.title.as_deref().filter(|t| !t.trim().is_empty()) {
        parts.push(format!("“{}”", inline(t)));
    }
    parts.push(format!("bytes {}–{}", e.span.start, e.span.end));
    if let Some(c) = &e.captured_at {
        parts.push(format!("captured {}", when_text(c)));
    }
    parts.push(format!("revision {}", code(&e.item_digest.short(12))));
    parts.join(" · ")
}

pub(crate) fn record(out: &mut impl Write, rec: &AuditRecord) -> R {
    let a = &rec.assessment;
    let c = &rec.claim;
    writeln!(out, "- **{}**, {}, message {}", inline(&rec.author), when(rec.sent_at), code(&rec.message_id.0))?;
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
    if rec.evidence.is_empty() {
        writeln!(out, "  - evidence: none in the reviewed set")?;
    }
    for e in &rec.evidence {
        writeln!(out, "  - evidence {}", evidence_line(e))?;
        writeln!(out)?;
        out.write_all(blockquote(&e.quote, "    ").as_bytes())?;
        writeln!(out)?;
    }
    match &a.gate {
        None => writeln!(out, "  - gate: not run")?,
        Some(g) => {
            writeln!(out, "  - gate: **{}**", g.verdict.as_str())?;
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
