//! Claims filed as unverified under `$AMEM_HOME/unverified/`, with their
//! message context, so a person can work through them: list, reject with a
//! reason, or capture a source into the wiki and reassess.
//!
//! Each report pass writes one queue file, `queue-<seq>-<run id>.jsonl`:
//! a line `{"queued": <the claim and its context>}` for every unverified
//! claim of the run (earlier versions wrote `{"filed": <report row>}`, still read),
//! and `{"resolved": {"id", "status"}}` for every claim the run assessed
//! otherwise (it leaves the queue if it was on it). The queue is those files
//! replayed in `seq` order (the order they were written, whatever clock the
//! runs were given), the last word on a claim winning, minus the claims a
//! person rejected. The first version wrote one JSON file per claim; on the
//! Enron bench (36,649 unverified claims) creating them was 14% of the
//! whole run's CPU. Such files are still read, before every queue file.
//!
//! Filing never mutates history: the ledger keeps every assessment; the
//! queue is rebuilt from the latest assessments. A rejection is itself an
//! observation, appended to `unverified/rejected.jsonl`.

use crate::assess::assess_text;
use amem_ledger::Ledger;
use amem_recall::{Capture, IndexOptions, Wiki};
use amem_records::{AuditRecord, Group, RunId, RunInfo, RunParams, RunSummary};
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, Write};
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

/// One line of a queue file.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum QueueLine {
    /// The claim is unverified as of this run: on the queue (what earlier
    /// versions wrote: the whole report row; still read).
    Filed(Box<AuditRecord>),
    /// The claim is unverified as of this run: on the queue, as [`Queued`].
    Queued(Box<Queued>),
    /// The run assessed the claim as something else: off the queue.
    Resolved {
        /// The claim's short id.
        id: String,
        /// Its status in this run.
        status: String,
    },
}

/// A queue file's name: `queue-<seq>-<run id>.jsonl`.
fn queue_name(seq: u64, run: &RunId) -> String {
    format!("queue-{seq:06}-{}.jsonl", run.0)
}

/// The sequence number and run id of a queue file name, if it is one.
fn parse_queue_name(name: &str) -> Option<(u64, &str)> {
    let rest = name.strip_prefix("queue-")?.strip_suffix(".jsonl")?;
    let (seq, run) = rest.split_once('-')?;
    Some((seq.parse().ok()?, run))
}

/// A queue file: its sequence number, run id and path.
type QueueFile = (u64, String, PathBuf);

/// The queue files of a folder, in the order they were written, and the
/// single-claim files of the first version.
fn queue_files(d: &Path) -> anyhow::Result<(Vec<QueueFile>, Vec<PathBuf>)> {
    let mut queues = Vec::new();
    let mut singles = Vec::new();
    let Ok(rd) = std::fs::read_dir(d) else {
        return Ok((queues, singles));
    };
    for entry in rd {
        let p = entry.with_context(|| format!("cannot read {}", d.display()))?.path();
        let Some(name) = p.file_name().and_then(|n| n.to_str()) else { continue };
        if let Some((seq, run)) = parse_queue_name(name) {
            queues.push((seq, run.to_string(), p.clone()));
        } else if name.ends_with(".json") {
            singles.push(p);
        }
    }
    queues.sort();
    singles.sort();
    Ok((queues, singles))
}

/// The rejected claim ids of a home.
fn rejected_ids(home: &Path) -> HashSet<String> {
    match std::fs::read_to_string(rejected_log(home)) {
        Ok(text) => text.lines().filter_map(|l| serde_json::from_str::<Rejection>(l).ok()).map(|r| r.id).collect(),
        Err(_) => HashSet::new(),
    }
}

/// A claim as the queue keeps it: what a person needs to find it and act on
/// it (the claim, where it was said, its status), and references for the
/// rest. Its reasons, gate flags, stance cues, cited notes and evidence are
/// in the ledger and the reports, not copied here: the queue grows with
/// unverified claims, not with what their verdicts looked at. On the Enron
/// bench the whole report row took about 2 KB a claim, reasons and cues
/// (which quote the claim again) most of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Queued {
    run_id: RunId,
    source: amem_records::SourceKind,
    archive: String,
    conversation: String,
    message_id: amem_records::MessageId,
    locator: String,
    author: String,
    sent_at: jiff::Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subject: Option<String>,
    claim: amem_records::ClaimId,
    message_digest: amem_records::Digest,
    span: amem_records::Span,
    text: String,
    kind: amem_records::ClaimKind,
    extractor: String,
    status: amem_records::Status,
    method: String,
    assessed_at: String,
    policy_version: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    from_me: bool,
}

impl Queued {
    fn of(rec: &AuditRecord) -> Queued {
        Queued {
            run_id: rec.run_id.clone(),
            source: rec.source,
            archive: rec.archive.clone(),
            conversation: rec.conversation.clone(),
            message_id: rec.message_id.clone(),
            locator: rec.locator.clone(),
            author: rec.author.clone(),
            sent_at: rec.sent_at,
            subject: rec.subject.clone(),
            claim: rec.claim.id,
            message_digest: rec.claim.message_digest,
            span: rec.claim.span,
            text: rec.claim.text.clone(),
            kind: rec.claim.kind,
            extractor: rec.claim.extractor.clone(),
            status: rec.assessment.status,
            method: rec.assessment.method.clone(),
            assessed_at: rec.assessment.assessed_at.clone(),
            policy_version: rec.assessment.policy_version.clone(),
            from_me: rec.from_me,
        }
    }

    /// The report row it stands for, without what the queue does not keep
    /// (reasons, gate, cues, evidence, notes: read them in the reports).
    fn into_record(self) -> AuditRecord {
        let claim = amem_records::Claim {
            id: self.claim,
            message: self.message_id.clone(),
            message_digest: self.message_digest,
            span: self.span,
            text: self.text,
            kind: self.kind,
            cues: Vec::new(),
            extractor: self.extractor,
        };
        let assessment = amem_records::Assessment {
            claim: self.claim,
            status: self.status,
            method: self.method,
            reasons: Vec::new(),
            gate: None,
            assessed_at: self.assessed_at,
            policy_version: self.policy_version,
        };
        AuditRecord {
            run_id: self.run_id,
            source: self.source,
            archive: self.archive,
            conversation: self.conversation,
            message_id: self.message_id,
            locator: self.locator,
            author: self.author,
            sent_at: self.sent_at,
            subject: self.subject,
            claim,
            assessment,
            evidence: Vec::new(),
            from_me: self.from_me,
            notes: Vec::new(),
            also_filed_at: Vec::new(),
            forwarded_by: None,
            forwarded_by_me: false,
        }
    }
}

/// Files one report pass's rows into a queue file of its own, written
/// beside its final name and renamed into place by [`Filer::finish`], so
/// an interrupted pass leaves the queue as it was (the resumed run writes
/// the file again).
pub struct Filer {
    tmp: PathBuf,
    path: PathBuf,
    out: Option<std::io::BufWriter<std::fs::File>>,
    rejected: HashSet<String>,
}

impl Filer {
    /// Start the queue file of `run` in a home: the next in sequence, or the
    /// run's own again when a pass of the same run wrote one before.
    ///
    /// # Errors
    /// The queue folder cannot be listed or created.
    pub fn open(home: &Path, run: &RunId) -> anyhow::Result<Filer> {
        let d = dir(home);
        let (queues, _) = queue_files(&d)?;
        let seq = match queues.iter().find(|(_, r, _)| *r == run.0) {
            Some((seq, _, _)) => *seq,
            None => queues.last().map_or(1, |(seq, _, _)| seq + 1),
        };
        let path = d.join(queue_name(seq, run));
        let mut tmp = path.clone().into_os_string();
        tmp.push(".tmp");
        Ok(Filer { tmp: PathBuf::from(tmp), path, out: None, rejected: rejected_ids(home) })
    }

    fn line(&mut self, line: &QueueLine) -> anyhow::Result<()> {
        let out = match self.out.as_mut() {
            Some(out) => out,
            None => {
                if let Some(d) = self.path.parent() {
                    std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
                }
                let f = std::fs::File::create(&self.tmp).with_context(|| format!("cannot write {}", self.tmp.display()))?;
                self.out.insert(std::io::BufWriter::with_capacity(1 << 16, f))
            }
        };
        serde_json::to_writer(&mut *out, line).context("encoding a queue entry")?;
        out.write_all(b"\n").with_context(|| format!("cannot write {}", self.tmp.display()))?;
        Ok(())
    }

    /// File a report row when it is unverified (unless a person rejected
    /// it); record that it left the queue when it is anything else.
    ///
    /// # Errors
    /// The queue file cannot be written.
    pub fn file(&mut self, rec: &AuditRecord) -> anyhow::Result<()> {
        let id = short_id(rec);
        // A claim with nothing to check has nothing to look for either: it
        // leaves the queue (an older policy filed such claims as ambiguous).
        if rec.group() != Group::Unverified || rec.assessment.status == amem_records::Status::NotCheckable {
            return self.line(&QueueLine::Resolved { id, status: rec.assessment.status.as_str().to_string() });
        }
        if self.rejected.contains(&id) {
            return Ok(());
        }
        self.line(&QueueLine::Queued(Box::new(Queued::of(rec))))
    }

    /// Put the queue file in place (nothing when no row was filed).
    ///
    /// # Errors
    /// The file cannot be written or renamed.
    pub fn finish(mut self) -> anyhow::Result<()> {
        let Some(out) = self.out.take() else { return Ok(()) };
        let f = out.into_inner().map_err(|e| anyhow::anyhow!("cannot write {}: {}", self.tmp.display(), e.error()))?;
        f.sync_all().with_context(|| format!("cannot write {}", self.tmp.display()))?;
        std::fs::rename(&self.tmp, &self.path).with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// What [`list`] read: the filed claims, and what it had to skip.
#[derive(Debug, Default)]
pub struct Listed {
    /// Every filed claim, sorted by id.
    pub items: Vec<(String, AuditRecord)>,
    /// One message per line or file that did not decode, naming the file
    /// and line: skipped, so one damaged entry does not hide the queue.
    pub skipped: Vec<String>,
}

/// Every filed claim, sorted by id: the queue files replayed in order,
/// rejected claims left out. A line or file that does not decode is skipped
/// and named in [`Listed::skipped`].
///
/// # Errors
/// The folder or a file cannot be read.
pub fn list(home: &Path) -> anyhow::Result<Listed> {
    let d = dir(home);
    let (queues, singles) = queue_files(&d)?;
    let mut queue: BTreeMap<String, AuditRecord> = BTreeMap::new();
    let mut skipped = Vec::new();
    for p in singles {
        let bytes = std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
        match serde_json::from_slice::<AuditRecord>(&bytes) {
            Ok(rec) => {
                let id = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
                queue.insert(id, rec);
            }
            Err(e) => skipped.push(format!("{}: not a filed claim: {e}", p.display())),
        }
    }
    for (_, _, p) in queues {
        let f = std::fs::File::open(&p).with_context(|| format!("cannot read {}", p.display()))?;
        for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
            let line = match line {
                Ok(l) => l,
                Err(e) => {
                    skipped.push(format!("{}:{}: cannot read: {e}", p.display(), n + 1));
                    continue;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            let entry: QueueLine = match serde_json::from_str(&line) {
                Ok(e) => e,
                Err(e) => {
                    skipped.push(format!("{}:{}: not a queue entry: {e}", p.display(), n + 1));
                    continue;
                }
            };
            match entry {
                QueueLine::Filed(rec) => {
                    queue.insert(short_id(&rec), *rec);
                }
                QueueLine::Queued(q) => {
                    let rec = q.into_record();
                    queue.insert(short_id(&rec), rec);
                }
                QueueLine::Resolved { id, .. } => {
                    queue.remove(&id);
                }
            }
        }
    }
    let rejected = rejected_ids(home);
    Ok(Listed { items: queue.into_iter().filter(|(id, _)| !rejected.contains(id)).collect(), skipped })
}

/// Find a filed claim by id or unique id prefix.
///
/// # Errors
/// No such claim, or the prefix is ambiguous.
pub fn find(home: &Path, id: &str) -> anyhow::Result<(String, AuditRecord)> {
    let mut matches: Vec<_> = list(home)?.items.into_iter().filter(|(k, _)| k.starts_with(id)).collect();
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
    // Off the queue from now on: `list` and every later pass read the log.
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
    shard: Option<amem_records::Shard>,
    id: &str,
    file: &Path,
    source_url: Option<&str>,
    now: jiff::Timestamp,
    meaning: Option<amem_recall::Meaning>,
) -> anyhow::Result<AuditRecord> {
    // A shard's queue and ledger are its own; the wiki the capture goes into is the home's,
    // which every shard reads.
    let state = crate::run::state_dir(home, shard);
    let (_, mut rec) = find(&state, id)?;
    let text = amem_records::source_file::read_file_to_string(file, amem_records::source_file::Limit::INPUT_TEXT)
        .with_context(|| format!("cannot read {} as UTF-8 text", file.display()))?;
    let mut wiki = Wiki::open(home).context("cannot open the wiki index")?.with_meaning(meaning);
    let title = file.file_stem().and_then(|s| s.to_str()).map(str::to_string);
    wiki.capture(&Capture { text: &text, title: title.as_deref(), source_url, retrieved_at: &now.to_string() })
        .with_context(|| format!("cannot capture {}", file.display()))?;
    wiki.index_wiki(IndexOptions { rehash: false, now: Some(now) }, &mut |_| ControlFlow::Continue(()))?;
    let outcome = assess_text(&wiki, &rec.claim.text)?;
    let policy = rec.assessment.policy_version.clone();
    rec.assessment = outcome.to_assessment(&rec.claim, &now.to_string(), &policy);
    rec.evidence = amem_records::cited_evidence(&rec.assessment);
    // The reassessment is a new observation in the ledger, under a run of
    // its own that names what it was.
    let mut ledger = Ledger::open(&state.join(amem_ledger::LEDGER_FILE))?;
    let params = RunParams {
        sources: vec![],
        since: None,
        until: None,
        now,
        offline: true,
        policy_version: policy.clone(),
        home: home.display().to_string(),
        who: amem_records::Who::All,
        include_bulk: false,
        include_forwarded: false,
        shard,
        reassess: false,
    };
    let tag = format!("unverified capture {} {}", rec.claim.id.0, file.display());
    let run = RunInfo { run_id: RunId::derive(now, tag.as_bytes()), started_at: now, params };
    ledger.begin_run(&run)?;
    ledger.append_assessment(&rec.claim.message_digest, &rec.assessment)?;
    rec.run_id = run.run_id.clone();
    ledger.finish_run(&RunSummary { assessed: 1, finished_at: Some(now), ..RunSummary::default() })?;
    let mut filer = Filer::open(&state, &run.run_id)?;
    filer.file(&rec)?;
    filer.finish()?;
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_status(mut rec: AuditRecord, status: amem_records::Status, run: &str) -> AuditRecord {
        rec.assessment.status = status;
        rec.run_id = RunId(run.into());
        rec
    }

    fn pass(home: &Path, run: &str, rows: &[AuditRecord]) {
        let mut f = Filer::open(home, &RunId(run.into())).unwrap();
        for r in rows {
            f.file(r).unwrap();
        }
        f.finish().unwrap();
    }

    fn ids(home: &Path) -> Vec<String> {
        list(home).unwrap().items.into_iter().map(|(id, _)| id).collect()
    }

    /// Passes replay in the order they were written, not by their run's
    /// clock: a later pass moves a claim on or off the queue.
    #[test]
    fn queue_is_the_passes_replayed_in_writing_order() {
        use amem_records::Status;
        let home = tempfile::tempdir().unwrap();
        let rows = amem_records::sample::audit_records(3);
        let (a, b, c) = (&rows[0], &rows[1], &rows[2]);
        // Run ids whose clocks run backwards: order must not come from them.
        pass(
            home.path(),
            "2030-z",
            &[with_status(a.clone(), Status::NoEvidence, "2030-z"), with_status(b.clone(), Status::NoEvidence, "2030-z")],
        );
        assert_eq!(ids(home.path()), {
            let mut v = vec![short_id(a), short_id(b)];
            v.sort();
            v
        });
        pass(
            home.path(),
            "1999-a",
            &[with_status(a.clone(), Status::Supported, "1999-a"), with_status(c.clone(), Status::Ambiguous, "1999-a")],
        );
        let mut want = vec![short_id(b), short_id(c)];
        want.sort();
        assert_eq!(ids(home.path()), want, "a resolved, c filed by the later pass");
        // The same run's pass again (a resumed run) replaces its own file.
        pass(home.path(), "1999-a", &[with_status(c.clone(), Status::Supported, "1999-a")]);
        let mut want = vec![short_id(a), short_id(b)];
        want.sort();
        assert_eq!(ids(home.path()), want, "a is back as the first pass filed it, c resolved");
        let files: Vec<_> = std::fs::read_dir(dir(home.path())).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(files.len(), 2, "{files:?}");
    }

    /// An interrupted pass leaves the queue as it was; a claim a person
    /// rejected is never filed again; files of the first version are read.
    #[test]
    fn interrupted_rejected_and_first_version_files() {
        use amem_records::Status;
        let home = tempfile::tempdir().unwrap();
        let rows = amem_records::sample::audit_records(3);
        let a = with_status(rows[0].clone(), Status::NoEvidence, "r1");
        let b = with_status(rows[1].clone(), Status::NoEvidence, "r1");
        pass(home.path(), "r1", &[a.clone(), b.clone()]);
        // A pass that stops before `finish`: nothing of it is seen.
        let mut f = Filer::open(home.path(), &RunId("r2".into())).unwrap();
        f.file(&with_status(rows[0].clone(), Status::Supported, "r2")).unwrap();
        drop(f);
        assert_eq!(ids(home.path()).len(), 2);
        // Rejected: off the queue, and a later pass does not file it again.
        reject(home.path(), &short_id(&a), "not a claim", "2030-01-01T00:00:00Z".parse().unwrap()).unwrap();
        assert_eq!(ids(home.path()), vec![short_id(&b)]);
        pass(home.path(), "r3", &[with_status(a.clone(), Status::NoEvidence, "r3")]);
        assert_eq!(ids(home.path()), vec![short_id(&b)]);
        // A single-claim file of the first version is on the queue too, and
        // queue files come after it.
        let c = with_status(rows[2].clone(), Status::NoEvidence, "old");
        std::fs::write(dir(home.path()).join(format!("{}.json", short_id(&c))), serde_json::to_vec_pretty(&c).unwrap()).unwrap();
        assert!(ids(home.path()).contains(&short_id(&c)));
        pass(home.path(), "r4", &[with_status(rows[2].clone(), Status::Supported, "r4")]);
        assert!(!ids(home.path()).contains(&short_id(&c)));
        let (id, rec) = find(home.path(), &short_id(&b)[..6]).unwrap();
        assert_eq!((id, rec), (short_id(&b), Queued::of(&b).into_record()));
    }

    /// A filed claim keeps its claim, context and verdict, not the evidence
    /// the verdict looked at, nor its reasons, gate flags or cues: a queue
    /// line's size does not grow with them.
    #[test]
    fn the_queue_keeps_claims_not_their_evidence() {
        let home = tempfile::tempdir().unwrap();
        let mut rec = with_status(amem_records::sample::audit_records(1).remove(0), amem_records::Status::NotAddressed, "r1");
        let one = rec.assessment.reasons.iter().flat_map(|r| r.evidence.first()).next().cloned().expect("the sample cites evidence");
        for r in &mut rec.assessment.reasons {
            r.evidence = vec![one.clone(); 50];
            r.detail = "a long explanation ".repeat(20);
        }
        rec.evidence = vec![one; 50];
        pass(home.path(), "r1", std::slice::from_ref(&rec));
        let (_, back) = find(home.path(), &short_id(&rec)).unwrap();
        assert_eq!(
            (back.claim.id, &back.claim.text, back.claim.span, back.claim.message_digest, back.assessment.status, &back.locator),
            (rec.claim.id, &rec.claim.text, rec.claim.span, rec.claim.message_digest, rec.assessment.status, &rec.locator)
        );
        assert_eq!(back.assessment.policy_version, rec.assessment.policy_version);
        assert!(back.evidence.is_empty() && back.assessment.reasons.is_empty() && back.notes.is_empty());
        let bytes = std::fs::metadata(dir(home.path()).join(queue_name(1, &RunId("r1".into())))).unwrap().len();
        let context: usize = [&rec.archive, &rec.conversation, &rec.message_id.0, &rec.locator, &rec.author, &rec.claim.text]
            .iter()
            .map(|s| s.len())
            .sum::<usize>()
            + rec.subject.as_ref().map_or(0, String::len);
        assert!(bytes < context as u64 + 600, "{bytes} bytes for {context} bytes of claim and context");
        // A line of the earlier format (the whole row) is still read.
        let old = dir(home.path()).join(queue_name(2, &RunId("r0".into())));
        let mut other = with_status(amem_records::sample::audit_records(2).remove(1), amem_records::Status::NoEvidence, "r0");
        other.evidence.clear();
        std::fs::write(&old, format!("{}\n", serde_json::json!({ "filed": other }))).unwrap();
        assert_eq!(find(home.path(), &short_id(&other)).unwrap().1, other);
    }

    /// A damaged queue line is skipped, named with its file and line; the
    /// intact entries are still listed.
    #[test]
    fn a_damaged_line_names_file_and_line() {
        let home = tempfile::tempdir().unwrap();
        let rows = amem_records::sample::audit_records(1);
        pass(home.path(), "r1", &[with_status(rows[0].clone(), amem_records::Status::NoEvidence, "r1")]);
        let p = dir(home.path()).join(queue_name(1, &RunId("r1".into())));
        let mut text = std::fs::read_to_string(&p).unwrap();
        text.push_str("{\"filed\": {\"truncated\n");
        std::fs::write(&p, text).unwrap();
        let listed = list(home.path()).unwrap();
        assert_eq!(listed.items.len(), 1);
        assert_eq!(listed.skipped.len(), 1);
        assert!(listed.skipped[0].contains("queue-000001-r1.jsonl:2: not a queue entry"), "{:?}", listed.skipped);
    }
}
