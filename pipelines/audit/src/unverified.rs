//! Claims filed as unverified under `$AMEM_HOME/unverified/`, one JSON file
//! per claim (the report row, with its message context), so a person can
//! work through them: list, reject with a reason, or capture a source into
//! the wiki and reassess.
//!
//! Filing never mutates history: the ledger keeps every assessment; these
//! files are a work queue rebuilt from the latest assessments. A rejection
//! is itself an observation, appended to `unverified/rejected.jsonl`.

use crate::assess::assess_text;
use amem_ledger::Ledger;
use amem_model::{AuditRecord, Group, RunId, RunInfo, RunParams, RunSummary};
use amem_recall::{Capture, IndexOptions, Wiki};
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// The queue folder of a home.
pub fn dir(home: &Path) -> PathBuf {
    home.join("unverified")
}

/// The short id a filed claim goes by (16 hex characters of its claim id).
pub fn short_id(rec: &AuditRecord) -> String {
    rec.claim.id.0.short(16)
}

/// The queue as a report pass files into it: the rejected ids and the files
/// already filed are read once, not once per row (a run files tens of
/// thousands of rows; reading the rejection log for each was quadratic).
pub struct Filer {
    dir: PathBuf,
    rejected: std::collections::HashSet<String>,
    filed: std::collections::HashSet<String>,
    dir_made: bool,
}

impl Filer {
    /// Read the queue of a home.
    ///
    /// # Errors
    /// The queue folder exists but cannot be listed.
    pub fn open(home: &Path) -> anyhow::Result<Filer> {
        let d = dir(home);
        let mut filed = std::collections::HashSet::new();
        if d.is_dir() {
            for entry in std::fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))? {
                let name = entry.with_context(|| format!("cannot read {}", d.display()))?.file_name();
                if let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".json")) {
                    filed.insert(id.to_string());
                }
            }
        }
        let rejected = match std::fs::read_to_string(rejected_log(home)) {
            Ok(text) => text.lines().filter_map(|l| serde_json::from_str::<Rejection>(l).ok()).map(|r| r.id).collect(),
            Err(_) => std::collections::HashSet::new(),
        };
        Ok(Filer { dir_made: d.is_dir(), dir: d, rejected, filed })
    }

    /// File a report row when it is unverified; take it off the queue when a
    /// later assessment moved it to supported or contradicted.
    ///
    /// # Errors
    /// The queue folder cannot be written.
    pub fn file(&mut self, rec: &AuditRecord) -> anyhow::Result<()> {
        let id = short_id(rec);
        let path = self.dir.join(format!("{id}.json"));
        if rec.group() != Group::Unverified {
            if self.filed.remove(&id) {
                std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
            }
            return Ok(());
        }
        if self.rejected.contains(&id) {
            return Ok(());
        }
        if !self.dir_made {
            std::fs::create_dir_all(&self.dir).with_context(|| format!("cannot create {}", self.dir.display()))?;
            self.dir_made = true;
        }
        let json = serde_json::to_vec_pretty(rec).context("encoding an unverified claim")?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, json).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
        self.filed.insert(id);
        Ok(())
    }
}

/// Every filed claim, sorted by id.
///
/// # Errors
/// The folder or a file cannot be read or decoded (naming the file).
pub fn list(home: &Path) -> anyhow::Result<Vec<(String, AuditRecord)>> {
    let d = dir(home);
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(&d) else {
        return Ok(out);
    };
    for entry in rd {
        let p = entry.with_context(|| format!("cannot read {}", d.display()))?.path();
        if p.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let bytes = std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
        let rec: AuditRecord = serde_json::from_slice(&bytes).with_context(|| format!("{} is not a filed claim", p.display()))?;
        let id = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        out.push((id, rec));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Find a filed claim by id or unique id prefix.
///
/// # Errors
/// No such claim, or the prefix is ambiguous.
pub fn find(home: &Path, id: &str) -> anyhow::Result<(String, AuditRecord)> {
    let mut matches: Vec<_> = list(home)?.into_iter().filter(|(k, _)| k.starts_with(id)).collect();
    match matches.len() {
        0 => anyhow::bail!("no unverified claim {id:?} in {} (see `amem unverified list`)", dir(home).display()),
        1 => Ok(matches.remove(0)),
        n => anyhow::bail!("{n} unverified claims start with {id:?}: give more of the id"),
    }
}

/// A person's decision to take a claim off the queue, with the reason.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Rejection {
    /// The filed claim's id.
    pub id: String,
    /// Why.
    pub why: String,
    /// When, RFC 3339.
    pub at: String,
}

fn rejected_log(home: &Path) -> PathBuf {
    dir(home).join("rejected.jsonl")
}

/// Reject a filed claim: append the rejection and take it off the queue.
///
/// # Errors
/// Unknown id; the log cannot be written.
pub fn reject(home: &Path, id: &str, why: &str, at: jiff::Timestamp) -> anyhow::Result<Rejection> {
    let (id, _) = find(home, id)?;
    let r = Rejection { id: id.clone(), why: why.to_string(), at: at.to_string() };
    let mut line = serde_json::to_vec(&r).context("encoding a rejection")?;
    line.push(b'\n');
    let p = rejected_log(home);
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&p).with_context(|| format!("cannot open {}", p.display()))?;
    f.write_all(&line).with_context(|| format!("cannot write {}", p.display()))?;
    let filed = dir(home).join(format!("{id}.json"));
    std::fs::remove_file(&filed).with_context(|| format!("cannot remove {}", filed.display()))?;
    Ok(r)
}

/// Capture `file` into the wiki as evidence for a filed claim, reindex,
/// and assess the claim again against the wiki. Returns the new row (its
/// assessment is a new observation; the caller records it in the ledger).
///
/// # Errors
/// Unknown id; the file cannot be read; the wiki cannot be written or searched.
pub fn capture_and_reassess(
    home: &Path,
    id: &str,
    file: &Path,
    source_url: Option<&str>,
    now: jiff::Timestamp,
) -> anyhow::Result<AuditRecord> {
    let (_, mut rec) = find(home, id)?;
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {} as UTF-8 text", file.display()))?;
    let mut wiki = Wiki::open(home).context("cannot open the wiki index")?;
    let title = file.file_stem().and_then(|s| s.to_str()).map(str::to_string);
    wiki.capture(&Capture { text: &text, title: title.as_deref(), source_url, retrieved_at: &now.to_string() })
        .with_context(|| format!("cannot capture {}", file.display()))?;
    wiki.index_wiki(IndexOptions { rehash: false, now: Some(now) }, &mut |_| ControlFlow::Continue(()))?;
    let outcome = assess_text(&wiki, &rec.claim.text)?;
    let policy = rec.assessment.policy_version.clone();
    rec.assessment = outcome.to_assessment(&rec.claim, &now.to_string(), &policy);
    rec.evidence = amem_model::cited_evidence(&rec.assessment);
    // The reassessment is a new observation in the ledger, under a run of
    // its own that names what it was.
    let mut ledger = Ledger::open(&home.join(amem_ledger::LEDGER_FILE))?;
    let params = RunParams {
        sources: vec![],
        since: None,
        until: None,
        now,
        offline: true,
        policy_version: policy.clone(),
        home: home.display().to_string(),
    };
    let tag = format!("unverified capture {} {}", rec.claim.id.0, file.display());
    let run = RunInfo { run_id: RunId::derive(now, tag.as_bytes()), started_at: now, params };
    ledger.begin_run(&run)?;
    ledger.append_assessment(&rec.claim.message_digest, &rec.assessment)?;
    rec.run_id = run.run_id.clone();
    ledger.finish_run(&RunSummary { assessed: 1, finished_at: Some(now), ..RunSummary::default() })?;
    Filer::open(home)?.file(&rec)?;
    Ok(rec)
}
