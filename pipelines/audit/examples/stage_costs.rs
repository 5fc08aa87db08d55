//! Where the time of an offline audit goes, stage by stage, on one thread.
//!
//! `cargo run --release -p amem-audit --example stage_costs -- HOME MBOX [LIMIT] [--json]`
//! reads the first LIMIT (default 3000) messages of the mbox into memory,
//! then times each stage as the audit runs it, one after the other on this
//! thread: parsing (the importer), extraction, recall (the FTS5 query, whole
//! chunks) per audited claim, verification (one verifier, its evidence
//! cache warm across claims), the gate against the top chunk, and recording
//! messages, claims and assessments in a fresh ledger. Prints the cost of
//! each per message and per audited claim; `--json` prints one JSON object
//! instead (read by scripts/bench-audit.py).
//!
//! `stage_costs HOME MBOX --least-work` times instead, over the whole mbox,
//! the least work an audit of it does (parse, extract what the run reads,
//! assess each distinct audited text once) and prints its seconds as one
//! JSON object.
use amem_audit::assess::{Assessor, RECALL_K};
use amem_ledger::{Ledger, MessageOutcome};
use amem_recall::{Recall, Wiki};
use amem_records::{ImportOptions, RunId, RunInfo, RunParams, SourceKind};
use std::time::Instant;

/// The `amem` binary's allocator (crates/cli/main.rs). The stages allocate
/// in their hottest loops, so timing them on another allocator times other
/// work: on the system allocator, `malloc` and `free` were a fifth of this
/// example's `--least-work` profile (`perf record`, x1 archive), and its
/// seconds could not bound the binary's.
#[global_allocator]
static ALLOCATOR: amem_alloc::SplitAllocator = amem_alloc::SplitAllocator;

fn main() -> anyhow::Result<()> {
    // As the binary does before its first allocation: its memory off
    // transparent huge pages (see `keep_off_huge_pages` in crates/cli/main.rs).
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let json = std::env::args().any(|a| a == "--json");
    let (Some(home), Some(mbox)) = (args.first(), args.get(1)) else {
        anyhow::bail!("usage: stage_costs HOME MBOX [LIMIT] [--json] [--least-work]");
    };
    if std::env::args().any(|a| a == "--least-work") {
        // The bench runs one copy alone and one per core at once, to see
        // what the cores give together (they share caches and memory).
        let floor = least_work(&Wiki::open(home.as_ref())?, mbox.as_ref())?;
        println!("{}", serde_json::json!({ "least_work": floor }));
        return Ok(());
    }
    let limit: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3000);
    let mut us = serde_json::Map::new();
    let mut put = |k: &str, secs: f64, per: f64| {
        us.insert(k.to_string(), serde_json::json!((secs * 1e6 / per * 10.0).round() / 10.0));
    };

    let t = Instant::now();
    let opts = ImportOptions::default();
    let msgs: Vec<_> =
        amem_audit::sources::open_source(SourceKind::GMAIL, mbox.as_ref(), &opts)?.filter_map(Result::ok).take(limit).collect();
    let n = msgs.len() as f64;
    put("import_per_msg", t.elapsed().as_secs_f64(), n);

    let t = Instant::now();
    let claims: Vec<Vec<amem_records::Claim>> = msgs.iter().map(amem_extract::extract).collect();
    put("extract_per_msg", t.elapsed().as_secs_f64(), n);
    let audited: Vec<(usize, &amem_records::Claim)> =
        claims.iter().enumerate().flat_map(|(i, cs)| cs.iter().map(move |c| (i, c))).filter(|(_, c)| c.kind.is_audited()).collect();
    let na = audited.len() as f64;

    let wiki = Wiki::open(home.as_ref())?;
    let t = Instant::now();
    let mut hits = Vec::with_capacity(audited.len());
    for (_, c) in &audited {
        hits.push(wiki.search_chunks(&c.text, RECALL_K)?);
    }
    let s = t.elapsed().as_secs_f64();
    put("recall_per_claim", s, na);
    put("recall_per_msg", s, n);

    let mut verifier = amem_verify::Verifier::new();
    let mut groups = std::collections::BTreeMap::new();
    let t = Instant::now();
    for ((i, c), h) in audited.iter().zip(&hits) {
        let ev: Vec<amem_records::Evidence> = h.iter().map(amem_recall::Hit::to_evidence).collect();
        // As the audit verifies: the claim's words weighed by their rarity
        // in the wiki, its message's time known.
        if let Some(r) = amem_audit::assess::rarity_of(&wiki, &c.text)? {
            verifier = verifier.with_rarity(r);
        }
        let v = verifier.verify_at(&c.text, Some(&msgs[*i].sent_at.to_string()), &ev);
        *groups.entry(format!("{:?}", v.status.group()).to_lowercase()).or_insert(0usize) += 1;
    }
    let s = t.elapsed().as_secs_f64();
    put("verify_per_claim", s, na);
    put("verify_per_msg", s, n);

    let t = Instant::now();
    for ((_, c), h) in audited.iter().zip(&hits) {
        if let Some(h) = h.first() {
            std::hint::black_box(amem_gate::check(&h.text, &c.text).summary());
        }
    }
    let s = t.elapsed().as_secs_f64();
    put("gate_per_claim", s, na);
    put("gate_per_msg", s, n);

    // The ledger stage records what the audit records: every message, every
    // claim, one assessment per audited claim (assessed again here, outside
    // the timing, so the rows have their real size).
    let mut assessor = Assessor::new();
    let mut per_msg: Vec<Vec<amem_records::Assessment>> = vec![Vec::new(); msgs.len()];
    for (i, c) in &audited {
        let o = assessor.assess_at(&wiki, &c.text, Some(&msgs[*i].sent_at.to_string()))?;
        per_msg[*i].push(o.to_assessment(c, "2030-01-01T00:00:00Z", &amem_audit::policy_version()));
    }
    let scratch = tempfile::tempdir()?;
    let mut ledger = Ledger::open(&scratch.path().join(amem_ledger::LEDGER_FILE))?;
    let now: jiff::Timestamp = "2030-01-01T00:00:00Z".parse()?;
    let params = RunParams {
        sources: vec![],
        since: None,
        until: None,
        now,
        offline: true,
        policy_version: amem_audit::policy_version(),
        home: String::new(),
        who: amem_records::Who::All,
        include_bulk: false,
        include_forwarded: false,
        shard: None,
        reassess: false,
    };
    let run = RunInfo { run_id: RunId::derive(now, b"stage_costs"), started_at: now, params };
    ledger.begin_run(&run)?;
    let t = Instant::now();
    for ((m, cs), assessments) in msgs.iter().zip(&claims).zip(&per_msg) {
        ledger.record(&MessageOutcome { message: m, claims: cs, assessments, skipped: &[] })?;
    }
    ledger.flush()?;
    put("ledger_per_msg", t.elapsed().as_secs_f64(), n);

    let mut out = serde_json::Map::new();
    out.insert("messages".into(), serde_json::json!(msgs.len()));
    out.insert("claims".into(), serde_json::json!(claims.iter().map(Vec::len).sum::<usize>()));
    out.insert("audited".into(), serde_json::json!(audited.len()));
    out.insert("verdicts".into(), serde_json::json!(groups));
    out.insert("us".into(), serde_json::Value::Object(us));
    if json {
        println!("{}", serde_json::Value::Object(out));
    } else {
        println!("{}", serde_json::to_string_pretty(&serde_json::Value::Object(out))?);
    }
    Ok(())
}

/// The least work a whole audit of `mbox` does, timed on this thread: the
/// whole archive parsed, every message the run reads (not bulk, not a
/// recurring template, not a copy of one read before, not a duplicate) extracted, and every distinct audited claim text assessed
/// once (recall, verification, gate: `Assessor::assess_at`, what the run's
/// workers call). The run does all of this and more (it also keys a verdict
/// that depends on the writing day by day, records every message and writes
/// the reports), and here one thread keeps every cache to itself, so these
/// seconds are a lower bound of the run's CPU. With one copy per core
/// running at once (as scripts/bench-audit.py runs it), `messages × cores /
/// the slowest copy's seconds` bounds the run's rate from above on this
/// machine at that time.
fn least_work(wiki: &Wiki, mbox: &std::path::Path) -> anyhow::Result<serde_json::Value> {
    let opts = ImportOptions::default();
    let t = Instant::now();
    let all: Vec<_> = amem_audit::sources::open_source(SourceKind::GMAIL, mbox, &opts)?.filter_map(Result::ok).collect();
    let parse = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let mut digests = std::collections::HashSet::new();
    // As the run's importer thread decides: copies of a mail read before,
    // and a sender's recurring template, are not read.
    let mut copies = amem_audit::copies::CopyFinder::new(None);
    let mut templates = amem_audit::templates::Templates::default();
    let mut read = 0usize;
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut distinct = std::collections::HashSet::new();
    for m in &all {
        let digest = m.digest();
        let recurring = templates.recurring(m);
        let copy = copies.check(&m.copy_keys(), digest)? != amem_audit::copies::Seen::First;
        if m.meta.contains_key("bulk") || recurring || copy || !digests.insert(digest) {
            continue;
        }
        read += 1;
        for c in amem_extract::extract_digested(m, digest) {
            if c.kind.is_audited() && distinct.insert(c.text.clone()) {
                texts.push((c.text, m.sent_at.to_string()));
            }
        }
    }
    let extract = t.elapsed().as_secs_f64();

    let mut assessor = Assessor::new();
    let t = Instant::now();
    for (text, sent_at) in &texts {
        std::hint::black_box(assessor.assess_at(wiki, text, Some(sent_at))?);
    }
    let assess = t.elapsed().as_secs_f64();
    Ok(serde_json::json!({
        "messages": all.len(),
        "read": read,
        "distinct_audited": texts.len(),
        "seconds": { "parse": parse, "extract": extract, "assess": assess },
    }))
}
