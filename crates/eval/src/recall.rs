//! The presence instrument: does recall put the gold evidence in front of
//! the verifier?
//!
//! For each gold (claim, supporting sentence) pair of an annotated corpus,
//! the claim is searched and its top-k chunks joined into a context; the pair
//! counts as present **verbatim** when the sentence occurs in that context
//! (whitespace-normalised), and **in value** when every number (with its
//! anchor) and date the sentence states occurs in the context in any written
//! form ([`crate::value`]; only pairs whose sentence states a value count).
//! Every measure is replayed with a **shuffled control**: claim *i*'s pairs
//! are scored against the context recalled for claim *i+1* (file order,
//! wrapping), which shows how much presence any topical context gets for
//! free. The margin (signal minus shuffled) is the figure that counts.
//!
//! Corpus: Climate-FEVER (`../shared/eval/climate_fever`): `corpus.jsonl`
//! is written as a wiki of markdown files (one per article, title in front
//! matter) into a temporary home and indexed like a user's wiki; gold pairs
//! are the evidence sentences labelled `SUPPORTED` in `claims.jsonl`.

use crate::value::{self, Value};
use amem_recall::{Error, IndexOptions, Meaning, Recall, RecallMethod, Result, Wiki};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;

/// The k values published in docs/benchmarks.md.
pub const DEFAULT_KS: &[usize] = &[1, 3, 5, 10];

/// Counts for one measure at one k.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Measure {
    /// Pairs the measure applies to.
    pub n: usize,
    /// Pairs present in their own claim's context.
    pub signal: usize,
    /// Pairs present in the next claim's context (the control).
    pub shuffled: usize,
}

impl Measure {
    /// Signal rate in percent.
    pub fn signal_pct(&self) -> f64 {
        pct(self.signal, self.n)
    }
    /// Shuffled rate in percent.
    pub fn shuffled_pct(&self) -> f64 {
        pct(self.shuffled, self.n)
    }
    /// Signal minus shuffled, in percentage points.
    pub fn margin_pts(&self) -> f64 {
        self.signal_pct() - self.shuffled_pct()
    }
}

fn pct(a: usize, n: usize) -> f64 {
    if n == 0 { 0.0 } else { 100.0 * a as f64 / n as f64 }
}

/// Both measures at one k.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PresenceRow {
    /// Chunks in the context.
    pub k: usize,
    /// Sentence present verbatim.
    pub verbatim: Measure,
    /// Sentence's values present.
    pub value: Measure,
}

/// The whole measurement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PresenceReport {
    /// Corpus folder name.
    pub corpus: String,
    /// How recall ranked (`bm25`, `dense`, `hybrid`).
    pub method: String,
    /// Claims searched.
    pub claims: usize,
    /// Gold (claim, supporting sentence) pairs.
    pub pairs: usize,
    /// Pairs whose sentence states at least one number or date.
    pub value_pairs: usize,
    /// Gold sentences not found in the corpus (counted absent everywhere).
    pub missing_sentences: usize,
    /// Documents written to the wiki.
    pub documents: usize,
    /// Chunks in the index.
    pub chunks: u64,
    /// One row per k.
    pub rows: Vec<PresenceRow>,
}

#[derive(Deserialize)]
struct CorpusDoc {
    doc_id: String,
    title: String,
    text: String,
    sentences: Vec<CorpusSentence>,
}

#[derive(Deserialize)]
struct CorpusSentence {
    idx: i64,
    text: String,
}

#[derive(Deserialize)]
struct ClaimRecord {
    claim: String,
    evidence: Vec<EvidenceRecord>,
}

#[derive(Deserialize)]
struct EvidenceRecord {
    doc_id: String,
    sentences: Vec<i64>,
    label: String,
}

fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { what: "read", path: path.to_path_buf(), source })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let rec = serde_json::from_str(line).map_err(|e| Error::Corpus { path: path.to_path_buf(), line: i + 1, reason: e.to_string() })?;
        out.push(rec);
    }
    Ok(out)
}

fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One corpus in the instrument's terms: documents for the wiki, and claims
/// with their gold supporting sentences (`None`: the sentence is not in the
/// corpus, counted absent).
struct Loaded {
    docs: Vec<(Option<String>, String)>,
    claims: Vec<(String, Vec<Option<String>>)>,
}

/// Climate-FEVER shape: `corpus.jsonl` articles, `claims.jsonl` with
/// evidence sentence indices; gold pairs are evidence labelled `SUPPORTED`.
fn load_climate_fever(dir: &Path) -> Result<Loaded> {
    let docs: Vec<CorpusDoc> = read_jsonl(&dir.join("corpus.jsonl"))?;
    let claims: Vec<ClaimRecord> = read_jsonl(&dir.join("claims.jsonl"))?;
    let mut sentences: BTreeMap<(&str, i64), &str> = BTreeMap::new();
    for d in &docs {
        for s in &d.sentences {
            sentences.insert((d.doc_id.as_str(), s.idx), s.text.as_str());
        }
    }
    let claims = claims
        .iter()
        .map(|c| {
            let gold = c
                .evidence
                .iter()
                .filter(|e| e.label == "SUPPORTED")
                .flat_map(|e| e.sentences.iter().map(|idx| sentences.get(&(e.doc_id.as_str(), *idx)).map(|s| s.to_string())))
                .collect();
            (c.claim.clone(), gold)
        })
        .collect();
    let docs = docs.into_iter().map(|d| (Some(d.title), d.text)).collect();
    Ok(Loaded { docs, claims })
}

#[derive(Deserialize)]
struct PairRecord {
    claim: String,
    evidence: String,
    label: String,
    #[serde(default)]
    evidence_sentences: Option<Vec<String>>,
    #[serde(default)]
    rationale_sentences: Option<Vec<String>>,
}

/// Verification-pair shape (`pairs.jsonl`: claim, evidence text, label): the
/// distinct evidence texts are the wiki; a claim's gold sentences are, for
/// its `supported` pairs, the rationale sentences (WiCE), else the evidence
/// sentences (COVID-Fact), else the evidence itself (FEVER, HealthVer).
/// Claims are taken once each, in order of first appearance.
fn load_pairs(dir: &Path) -> Result<Loaded> {
    let pairs: Vec<PairRecord> = read_jsonl(&dir.join("pairs.jsonl"))?;
    let mut docs: Vec<(Option<String>, String)> = Vec::new();
    let mut doc_seen: BTreeMap<&str, ()> = BTreeMap::new();
    let mut claim_at: BTreeMap<&str, usize> = BTreeMap::new();
    let mut claims: Vec<(String, Vec<Option<String>>)> = Vec::new();
    for p in &pairs {
        if doc_seen.insert(p.evidence.as_str(), ()).is_none() {
            docs.push((None, p.evidence.clone()));
        }
        let at = *claim_at.entry(p.claim.as_str()).or_insert_with(|| {
            claims.push((p.claim.clone(), Vec::new()));
            claims.len() - 1
        });
        if p.label != "supported" {
            continue;
        }
        let gold: Vec<String> = match (&p.rationale_sentences, &p.evidence_sentences) {
            (Some(r), _) if !r.is_empty() => r.clone(),
            (_, Some(e)) if !e.is_empty() => e.clone(),
            _ => vec![p.evidence.clone()],
        };
        claims[at].1.extend(gold.into_iter().filter(|g| !g.trim().is_empty()).map(Some));
    }
    Ok(Loaded { docs, claims })
}

/// The corpus folders under `dir` the instrument can read (`dir` itself when
/// it is one), sorted by name.
pub fn corpora(dir: &Path) -> Vec<std::path::PathBuf> {
    let readable = |d: &Path| d.join("pairs.jsonl").is_file() || (d.join("corpus.jsonl").is_file() && d.join("claims.jsonl").is_file());
    if readable(dir) {
        return vec![dir.to_path_buf()];
    }
    let mut out: Vec<std::path::PathBuf> =
        std::fs::read_dir(dir).map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.is_dir() && readable(p)).collect()).unwrap_or_default();
    out.sort();
    out
}

/// Run the instrument on one corpus folder: Climate-FEVER shaped
/// (`corpus.jsonl`, `claims.jsonl`) or verification pairs (`pairs.jsonl`),
/// for each k in `ks`, once per recall method in `methods` (the wiki is indexed
/// once, with `embedder`'s vectors when given; a method that reads vectors needs
/// it). `progress(done, total)` is called as claims are searched.
///
/// # Errors
/// A file is missing or a record malformed (with file and line); the
/// temporary wiki cannot be written or indexed; a method reads vectors and no
/// embedder is given.
pub fn run(
    dir: &Path,
    ks: &[usize],
    methods: &[RecallMethod],
    embedder: Option<&'static amem_models::StaticEmbedder>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<PresenceReport>> {
    let loaded = if dir.join("pairs.jsonl").is_file() { load_pairs(dir)? } else { load_climate_fever(dir)? };
    let corpus = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    measure(corpus, &loaded, ks, methods, embedder, progress)
}

fn measure(
    corpus: String,
    loaded: &Loaded,
    ks: &[usize],
    methods: &[RecallMethod],
    embedder: Option<&'static amem_models::StaticEmbedder>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<PresenceReport>> {
    let tmp = tempfile::tempdir().map_err(|source| Error::Io { what: "create a temporary home in", path: std::env::temp_dir(), source })?;
    let wiki_dir = tmp.path().join("wiki");
    std::fs::create_dir_all(&wiki_dir).map_err(|source| Error::Io { what: "create folder", path: wiki_dir.clone(), source })?;
    for (i, (title, text)) in loaded.docs.iter().enumerate() {
        let file = wiki_dir.join(format!("doc-{i:05}.md"));
        let body = match title {
            Some(t) => {
                format!("---\ntitle: {}\n---\n{text}\n", amem_recall::yaml_quoted(&t.split_whitespace().collect::<Vec<_>>().join(" ")))
            }
            // No front matter: a first line of `---` in the text must not read as one.
            None => format!("\n{text}\n"),
        };
        std::fs::write(&file, body).map_err(|source| Error::Io { what: "write", path: file.clone(), source })?;
    }
    let meaning = |method| embedder.map(|embedder| Meaning { embedder, method });
    let mut wiki = Wiki::open(tmp.path())?.with_meaning(meaning(RecallMethod::Bm25));
    let opts = IndexOptions { rehash: false, now: Some(jiff::Timestamp::UNIX_EPOCH) };
    let report = wiki.index_wiki(opts, &mut |_| ControlFlow::Continue(()))?;
    let mut out = Vec::with_capacity(methods.len());
    for &method in methods {
        if method.reads_vectors() && embedder.is_none() {
            return Err(Error::NoEmbedder(method));
        }
        wiki = wiki.with_meaning(meaning(method));
        out.push(measure_with(&wiki, corpus.clone(), method, loaded, ks, report.stats.chunks, progress)?);
    }
    Ok(out)
}

fn measure_with(
    wiki: &Wiki,
    corpus: String,
    method: RecallMethod,
    loaded: &Loaded,
    ks: &[usize],
    chunks: u64,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<PresenceReport> {
    let claims = &loaded.claims;
    let kmax = ks.iter().copied().max().unwrap_or(0);
    // contexts[i][j]: claim i's context at ks[j], normalised, and its values.
    let mut contexts: Vec<Vec<(String, Vec<Value>)>> = Vec::with_capacity(claims.len());
    // Values are read once per chunk (a context's values are its chunks' values).
    let mut chunk_values: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (i, (claim, _)) in claims.iter().enumerate() {
        progress(i, claims.len());
        let hits = wiki.search(claim, kmax)?;
        for h in &hits {
            chunk_values.entry(h.uri.to_string()).or_insert_with(|| value::values(&h.text));
        }
        let per_k = ks
            .iter()
            .map(|&k| {
                let joined = hits.iter().take(k).map(|h| h.text.as_str()).collect::<Vec<_>>().join("\n");
                let values = hits.iter().take(k).flat_map(|h| chunk_values.get(&h.uri.to_string()).cloned().unwrap_or_default()).collect();
                (normalise(&joined), values)
            })
            .collect();
        contexts.push(per_k);
    }
    progress(claims.len(), claims.len());

    let mut rows: Vec<PresenceRow> =
        ks.iter().map(|&k| PresenceRow { k, verbatim: Measure::default(), value: Measure::default() }).collect();
    let (mut pairs, mut value_pairs, mut missing) = (0, 0, 0);
    let n = claims.len();
    for (i, (_, gold)) in claims.iter().enumerate() {
        for sentence in gold {
            pairs += 1;
            let Some(sentence) = sentence else {
                missing += 1;
                for r in rows.iter_mut() {
                    r.verbatim.n += 1;
                }
                continue;
            };
            let needle = normalise(sentence);
            let wanted = value::values(sentence);
            if !wanted.is_empty() {
                value_pairs += 1;
            }
            for (j, r) in rows.iter_mut().enumerate() {
                let own = &contexts[i][j];
                let next = &contexts[(i + 1) % n][j];
                r.verbatim.n += 1;
                r.verbatim.signal += usize::from(own.0.contains(&needle));
                r.verbatim.shuffled += usize::from(next.0.contains(&needle));
                if !wanted.is_empty() {
                    r.value.n += 1;
                    r.value.signal += usize::from(value::all_stated(&wanted, &own.1));
                    r.value.shuffled += usize::from(value::all_stated(&wanted, &next.1));
                }
            }
        }
    }
    Ok(PresenceReport {
        corpus,
        method: method.as_str().to_string(),
        claims: n,
        pairs,
        value_pairs,
        missing_sentences: missing,
        documents: loaded.docs.len(),
        chunks,
        rows,
    })
}

/// The docs/benchmarks.md block for several corpora: one row per (corpus, k).
pub fn markdown_table(reports: &[PresenceReport]) -> String {
    let mut s = String::from(
        "Presence of gold evidence in the recalled context. Each set's documents are indexed as a wiki in a temporary home \
         and each claim is searched (k chunks). *Verbatim*: the gold supporting sentence occurs in the context. *In value*: \
         every number (with its anchor) and date of the sentence occurs there, in any written form (pairs whose sentence \
         states one). *Shuffled*: claim i scored against the context recalled for claim i+1. `climate_fever`: its \
         articles are the wiki, gold = evidence sentences labelled SUPPORTED; the pair sets: the distinct evidence texts \
         are the wiki, gold = the rationale or evidence sentences of `supported` pairs. Where neighbouring claims share \
         their evidence (covid_fact's generated counter-claims, fever_symmetric's variants) the shuffled control is high: \
         the margin is the figure that counts. *Recall*: `bm25` ranks by the words (the full-text index), `dense` by \
         the static embedder's cosine (`model:embed@1`), `hybrid` fuses both lists by reciprocal rank.\n\n\
         | set | recall | docs | chunks | claims | gold pairs | k | verbatim | shuffled | margin | in value (pairs) | shuffled | margin |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in reports {
        for row in &r.rows {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {:.1}% | {:.1}% | **{:+.1}** | {:.1}% ({}) | {:.1}% | **{:+.1}** |\n",
                r.corpus,
                r.method,
                r.documents,
                r.chunks,
                r.claims,
                r.pairs,
                row.k,
                row.verbatim.signal_pct(),
                row.verbatim.shuffled_pct(),
                row.verbatim.margin_pts(),
                row.value.signal_pct(),
                row.value.n,
                row.value.shuffled_pct(),
                row.value.margin_pts()
            ));
        }
    }
    let missing: usize = reports.iter().map(|r| r.missing_sentences).sum();
    if missing > 0 {
        s.push_str(&format!("\n{missing} gold sentences were not in their corpus and count as absent.\n"));
    }
    s.push_str("\nMargins are in percentage points.\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_on_a_tiny_corpus() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("corpus.jsonl"),
            r#"{"doc_id": "Ice", "title": "Ice", "text": "Arctic sea ice fell 40 percent since 1979. Ice is white.", "sentences": [{"idx": 3, "text": "Arctic sea ice fell 40 percent since 1979."}, {"idx": 4, "text": "Ice is white."}]}
{"doc_id": "Volcano", "title": "Volcano", "text": "Samalas erupted in 1257 in Indonesia.", "sentences": [{"idx": 0, "text": "Samalas erupted in 1257 in Indonesia."}]}
"#,
        )
        .unwrap();
        std::fs::write(
            d.path().join("claims.jsonl"),
            r#"{"id": "1", "claim": "Arctic sea ice declined 40% since 1979", "label": "SUPPORTED", "evidence": [{"doc_id": "Ice", "sentences": [3], "label": "SUPPORTED"}, {"doc_id": "Ice", "sentences": [4], "label": "NO_EVIDENCE"}]}
{"id": "2", "claim": "Samalas volcano erupted in Indonesia", "label": "SUPPORTED", "evidence": [{"doc_id": "Volcano", "sentences": [0], "label": "SUPPORTED"}, {"doc_id": "Gone", "sentences": [1], "label": "SUPPORTED"}]}
"#,
        )
        .unwrap();
        let mut calls = 0;
        let r = run(d.path(), &[1], &[RecallMethod::Bm25], None, &mut |_, _| calls += 1).unwrap().remove(0);
        assert_eq!(calls, 3);
        assert_eq!((r.claims, r.pairs, r.value_pairs, r.missing_sentences, r.documents), (2, 3, 2, 1, 2));
        let row = r.rows[0];
        assert_eq!(row.verbatim, Measure { n: 3, signal: 2, shuffled: 0 });
        assert_eq!(row.value, Measure { n: 2, signal: 2, shuffled: 0 });
        let name = r.corpus.clone();
        let md = markdown_table(&[r]);
        assert!(
            md.contains(&format!("| {name} | bm25 | 2 | 2 | 2 | 3 | 1 | 66.7% | 0.0% | **+66.7** | 100.0% (2) | 0.0% | **+100.0** |")),
            "{md}"
        );
        assert!(md.contains("1 gold sentences were not in their corpus"));
    }

    #[test]
    fn pairs_sets_use_evidence_as_wiki_and_rationales_as_gold() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("pairs.jsonl"),
            r#"{"claim": "Arctic ice fell 40% since 1979", "evidence": "Ice is white.\nArctic sea ice fell 40 percent since 1979.", "label": "supported", "rationale_sentences": ["Arctic sea ice fell 40 percent since 1979."]}
{"claim": "Arctic ice fell 40% since 1979", "evidence": "Penguins live in the south.", "label": "contradicted"}
{"claim": "Samalas erupted in Indonesia", "evidence": "Samalas erupted in 1257 in Indonesia. It was large.", "label": "supported", "evidence_sentences": ["Samalas erupted in 1257 in Indonesia."]}
{"claim": "Volcanoes are hot", "evidence": "Volcanoes are hot.", "label": "supported"}
"#,
        )
        .unwrap();
        let r = run(d.path(), &[1], &[RecallMethod::Bm25], None, &mut |_, _| {}).unwrap().remove(0);
        assert_eq!((r.documents, r.claims, r.pairs, r.missing_sentences), (4, 3, 3, 0));
        assert_eq!(r.rows[0].verbatim, Measure { n: 3, signal: 3, shuffled: 0 });
    }

    #[test]
    fn every_method_is_measured_on_one_index_and_dense_needs_the_embedder() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("pairs.jsonl"),
            r#"{"claim": "The ice sheet shrank", "evidence": "The frozen mass of the glacier got smaller every year.", "label": "supported"}
{"claim": "Volcanoes are hot", "evidence": "Volcanoes are hot.", "label": "supported"}
"#,
        )
        .unwrap();
        let all = [RecallMethod::Bm25, RecallMethod::Dense, RecallMethod::Hybrid];
        let e = amem_models::StaticEmbedder::shipped().unwrap();
        let r = run(d.path(), &[1], &all, Some(e), &mut |_, _| {}).unwrap();
        assert_eq!(r.iter().map(|r| r.method.as_str()).collect::<Vec<_>>(), vec!["bm25", "dense", "hybrid"]);
        // The first claim shares no word with its evidence: bm25 misses it, meaning finds it.
        assert_eq!(r[0].rows[0].verbatim.signal, 1);
        assert_eq!(r[1].rows[0].verbatim.signal, 2);
        assert!(run(d.path(), &[1], &[RecallMethod::Dense], None, &mut |_, _| {}).is_err());
    }

    #[test]
    fn malformed_records_name_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("corpus.jsonl"),
            "{\"doc_id\": \"a\", \"title\": \"a\", \"text\": \"x\", \"sentences\": []}\nnot json\n",
        )
        .unwrap();
        std::fs::write(d.path().join("claims.jsonl"), "").unwrap();
        let e = run(d.path(), &[1], &[RecallMethod::Bm25], None, &mut |_, _| {}).unwrap_err();
        assert!(e.to_string().contains("corpus.jsonl:2:"), "{e}");
        assert!(matches!(run(&d.path().join("nope"), &[1], &[RecallMethod::Bm25], None, &mut |_, _| {}), Err(Error::Io { .. })));
    }
}
