//! `amem grounding fetch --queue DIR...`: the trust list as one stage for every shard.
//!
//! Rate limits are per client: n shards, each asking arXiv under a limiter of its own, would send
//! n times the published rate. So a sharded run asks no host; each shard files its misses in its
//! own unverified queue, and one process reads the union of those queues and grounds each
//! distinct claim text once, under the one limiter per host the trust list sets, capturing what
//! it finds into the home's wiki. `amem audit --shard I/N --reassess` then decides each shard's
//! queued claims on what was captured, locally.

use crate::ground::{Grounded, Grounding};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What grounding the queues did.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FetchReport {
    /// Queues read.
    pub queues: usize,
    /// Claims on them (a claim filed by two shards counts twice).
    pub queued: usize,
    /// Distinct claim texts grounded.
    pub claims: usize,
    /// Texts for which documents were fetched or found in the capture cache, now in the wiki.
    pub captured: usize,
    /// Texts the trust list searched and found nothing relevant for.
    pub no_evidence: usize,
    /// Texts a source could not be asked for, with why (never counted as no evidence).
    pub unavailable: Vec<(String, String)>,
    /// Requests sent to the trust list's hosts.
    pub requests: u64,
    /// Queue lines that did not decode, named with file and line, skipped.
    pub skipped: Vec<String>,
}

/// The run state folders of a home that hold an unverified queue: the home's own, then each
/// shard's, in name order.
///
/// # Errors
/// The home's `shards/` folder cannot be listed.
pub fn queues_of(home: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = vec![home.to_path_buf()];
    let shards = home.join("shards");
    if shards.is_dir() {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&shards)
            .map_err(|e| anyhow::anyhow!("cannot list {}: {e}", shards.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        out.extend(dirs);
    }
    out.retain(|d| crate::unverified::dir(d).is_dir());
    Ok(out)
}

/// The run state folder a `--queue` argument names: a shard's folder (or a home) holding an
/// `unverified/` queue, or that `unverified/` folder itself.
pub fn state_of_queue_arg(dir: &Path) -> PathBuf {
    match (dir.file_name().and_then(|n| n.to_str()), dir.parent()) {
        (Some("unverified"), Some(parent)) => parent.to_path_buf(),
        _ => dir.to_path_buf(),
    }
}

/// The distinct claim texts on `queues` (run state folders), in text order, and the counts.
///
/// # Errors
/// A queue folder that does not exist, or a queue file that cannot be read.
pub fn queued_claims(queues: &[PathBuf]) -> anyhow::Result<(BTreeSet<String>, FetchReport)> {
    let mut report = FetchReport { queues: queues.len(), ..FetchReport::default() };
    let mut texts = BTreeSet::new();
    for q in queues {
        if !crate::unverified::dir(q).is_dir() {
            anyhow::bail!(
                "{} holds no unverified queue (no unverified/ folder): name a shard's folder, e.g. $AMEM_HOME/shards/0-of-4",
                q.display()
            );
        }
        let listed = crate::unverified::list(q)?;
        report.queued += listed.items.len();
        report.skipped.extend(listed.skipped);
        texts.extend(listed.items.into_iter().map(|(_, rec)| rec.claim.text));
    }
    report.claims = texts.len();
    Ok((texts, report))
}

/// Ground every distinct claim text of `queues` on the trust list behind `grounding`, `concurrency`
/// claims at once (each host keeps its own limiter whatever that is), telling `progress` after each.
///
/// # Errors
/// A queue cannot be read, or the network runtime cannot start.
pub fn fetch_queued(
    queues: &[PathBuf],
    grounding: Arc<dyn Grounding>,
    concurrency: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> anyhow::Result<FetchReport> {
    use futures::StreamExt;
    let (texts, mut report) = queued_claims(queues)?;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let total = texts.len();
    let outcomes: Vec<(String, Grounded)> = rt.block_on(async {
        let mut done = 0usize;
        let mut out = Vec::with_capacity(total);
        let mut stream = futures::stream::iter(texts)
            .map(|text| {
                let g = Arc::clone(&grounding);
                async move {
                    let grounded = g.ground(text.clone()).await;
                    (text, grounded)
                }
            })
            .buffer_unordered(concurrency.max(1));
        while let Some(one) = stream.next().await {
            done += 1;
            progress(done, total);
            out.push(one);
        }
        out
    });
    for (text, grounded) in outcomes {
        match grounded {
            Grounded::Captured { .. } => report.captured += 1,
            Grounded::NoEvidence => report.no_evidence += 1,
            Grounded::Unavailable(why) => report.unavailable.push((text, why)),
        }
    }
    report.unavailable.sort();
    report.requests = grounding.requests();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::GroundFuture;
    use std::sync::Mutex;

    /// Counts the texts it was asked to ground.
    struct Counting(Mutex<Vec<String>>);

    impl Grounding for Counting {
        fn ground(&self, claim: String) -> GroundFuture<'_> {
            self.0.lock().unwrap().push(claim.clone());
            Box::pin(async move {
                if claim.contains("down") {
                    Grounded::Unavailable("arxiv: 503".into())
                } else if claim.contains("nothing") {
                    Grounded::NoEvidence
                } else {
                    Grounded::Captured { stale: vec![] }
                }
            })
        }
        fn requests(&self) -> u64 {
            self.0.lock().unwrap().len() as u64
        }
    }

    fn file(state: &Path, run: &str, texts: &[&str]) {
        let mut f = crate::unverified::Filer::open(state, &amem_records::RunId(run.into())).unwrap();
        for (i, t) in texts.iter().enumerate() {
            let mut rec = amem_records::sample::audit_records(1).remove(0);
            rec.claim.text = (*t).to_string();
            rec.claim.id = amem_records::ClaimId(amem_records::Digest::of(format!("{run}{i}{t}").as_bytes()));
            rec.assessment.status = amem_records::Status::NoEvidence;
            f.file(&rec).unwrap();
        }
        f.finish().unwrap();
    }

    /// The union of the shards' queues, each text once, whichever shards filed it.
    #[test]
    fn each_distinct_claim_of_every_queue_is_grounded_once() {
        let home = tempfile::tempdir().unwrap();
        let (a, b) = (home.path().join("shards/0-of-2"), home.path().join("shards/1-of-2"));
        file(&a, "ra", &["The mill employs 40 people.", "The source is down today.", "Shared claim of both."]);
        file(&b, "rb", &["Shared claim of both.", "There is nothing on this."]);
        let queues = queues_of(home.path()).unwrap();
        assert_eq!(queues, vec![a.clone(), b.clone()], "the home itself has no queue");
        assert!(queued_claims(&[home.path().to_path_buf()]).is_err(), "naming a folder without a queue is an error");
        let g = Arc::new(Counting(Mutex::new(vec![])));
        let seen = Mutex::new(vec![]);
        let report = fetch_queued(&[a, b.join("unverified")].map(|q| state_of_queue_arg(&q)), g.clone(), 3, &|d, t| {
            seen.lock().unwrap().push((d, t))
        })
        .unwrap();
        let mut asked = g.0.lock().unwrap().clone();
        asked.sort();
        assert_eq!(
            asked,
            ["Shared claim of both.", "The mill employs 40 people.", "The source is down today.", "There is nothing on this."]
        );
        assert_eq!((report.queues, report.queued, report.claims), (2, 5, 4));
        assert_eq!((report.captured, report.no_evidence, report.requests), (2, 1, 4));
        assert_eq!(report.unavailable, vec![("The source is down today.".to_string(), "arxiv: 503".to_string())]);
        assert_eq!(seen.lock().unwrap().last(), Some(&(4, 4)));
    }
}
