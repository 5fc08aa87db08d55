//! Cue evaluation against independent annotation (`amem eval cues`).
//!
//! Reads the JSONL cue corpora of `../shared/eval` (bioscope, sfu_review,
//! sherlock_cdsco, polnear: `{"text", "cues": [{"start","end","type"}]}`
//! with Unicode code-point offsets, converted here to bytes), runs
//! [`amem_text::cues::detect_cues`] on every text and scores each annotated class
//! (negation, hedge, attribution):
//!
//! - a detected cue is a true positive for precision when it overlaps an
//!   annotated cue of the same class (`start..end`, the first to the last
//!   fragment of a discontinuous cue);
//! - an annotated cue is found (recall) when a detected cue of its class
//!   overlaps it;
//! - `n` is the number of annotated cues of the class.
//!
//! [`mine`] implements the word-list mining rule, fixed before looking at
//! the data (docs/benchmarks.md, the gate): a candidate is an annotated cue text of the
//! class (lower-cased, contiguous, not affixal) that is not yet a lexicon
//! form; it is kept only if it fires (word-boundary, case-insensitive) at
//! least [`MINE_MIN_FIRES`] times on the dev half and at least
//! [`MINE_MIN_SHARE`] of the sentences it newly fires on (sentences where
//! the current lexicon detects no cue of that class) have an annotated cue
//! of that class at the matched span.

use crate::{Error, Result};
use amem_records::{CueClass, Span};
use amem_text::cues::detect_cues;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The cue corpora this evaluation knows, in report order.
pub const CORPORA: &[&str] = &["bioscope", "sfu_review", "sherlock_cdsco", "polnear"];

/// Mining rule: minimum fires on the dev half.
pub const MINE_MIN_FIRES: usize = 10;
/// Mining rule: minimum share of newly-fired sentences annotated for the class.
pub const MINE_MIN_SHARE: f64 = 0.6;

/// One annotated sentence (or paragraph), offsets converted to bytes.
#[derive(Clone, Debug)]
pub struct Record {
    /// The text.
    pub text: String,
    /// Annotated cues: class and byte span.
    pub cues: Vec<(CueClass, Span)>,
    /// The annotated cue texts (lower-cased) with class, contiguous and
    /// non-affixal ones only (mining candidates).
    pub cue_texts: Vec<(CueClass, String)>,
}

#[derive(Deserialize)]
struct RawCue {
    start: usize,
    end: usize,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    fragments: Vec<(usize, usize)>,
    #[serde(default)]
    affixal: bool,
}

#[derive(Deserialize)]
struct RawRecord {
    text: String,
    cues: Vec<RawCue>,
}

fn class_of(kind: &str) -> Option<CueClass> {
    match kind {
        "negation" => Some(CueClass::Negation),
        "hedge" => Some(CueClass::Hedge),
        "attribution" => Some(CueClass::Attribution),
        _ => None,
    }
}

/// Byte offset of every code point index (plus the end).
fn char_to_byte(text: &str) -> Vec<usize> {
    let mut v: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    v.push(text.len());
    v
}

/// Read one corpus file (`<dir>/sentences.jsonl`).
///
/// # Errors
/// [`Error::Read`] when the file cannot be read; [`Error::Record`] naming the
/// line when a line is not the documented JSON or an offset is out of range.
pub fn load(path: &Path) -> Result<Vec<Record>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Read { path: path.to_path_buf(), source })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| Error::Record { path: path.to_path_buf(), line: i + 1, message };
        let raw: RawRecord = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        let map = char_to_byte(&raw.text);
        let mut cues = Vec::new();
        let mut cue_texts = Vec::new();
        for c in raw.cues {
            let Some(class) = class_of(&c.kind) else { continue };
            let (Some(&s), Some(&e)) = (map.get(c.start), map.get(c.end)) else {
                return Err(bad(format!("cue offsets {}..{} out of range", c.start, c.end)));
            };
            cues.push((class, Span::new(s, e)));
            if !c.affixal && c.fragments.len() <= 1 && !c.text.is_empty() {
                cue_texts.push((class, c.text.to_lowercase()));
            }
        }
        out.push(Record { text: raw.text, cues, cue_texts });
    }
    Ok(out)
}

/// The corpora under `dir`: `dir` itself when it holds `sentences.jsonl`
/// (named after the folder), else its known sub-folders.
///
/// # Errors
/// [`Error::NoCorpus`] when neither is found.
pub fn corpora(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let own = dir.join("sentences.jsonl");
    if own.is_file() {
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "corpus".into());
        return Ok(vec![(name, own)]);
    }
    let found: Vec<(String, PathBuf)> =
        CORPORA.iter().map(|c| (c.to_string(), dir.join(c).join("sentences.jsonl"))).filter(|(_, p)| p.is_file()).collect();
    if found.is_empty() { Err(Error::NoCorpus(dir.to_path_buf())) } else { Ok(found) }
}

/// One line of the evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// Corpus folder name.
    pub corpus: String,
    /// `negation`, `hedge` or `attribution`.
    pub class: String,
    /// Detected cues overlapping an annotated cue / detected cues.
    pub precision: f64,
    /// Annotated cues overlapped by a detected cue / annotated cues.
    pub recall: f64,
    /// Harmonic mean.
    pub f1: f64,
    /// Annotated cues of the class.
    pub n: usize,
}

#[derive(Default)]
struct Tally {
    detected: usize,
    detected_ok: usize,
    annotated: usize,
    annotated_found: usize,
}

impl Tally {
    /// One record's `detected` cues against its `annotated` ones (overlap counts).
    fn add(&mut self, detected: &[Span], annotated: &[Span]) {
        self.detected += detected.len();
        self.detected_ok += detected.iter().filter(|d| annotated.iter().any(|a| a.overlaps(d))).count();
        self.annotated += annotated.len();
        self.annotated_found += annotated.iter().filter(|a| detected.iter().any(|d| d.overlaps(a))).count();
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Score the detector on one corpus, one [`Score`] per annotated class.
pub fn evaluate(corpus: &str, records: &[Record]) -> Vec<Score> {
    let classes: BTreeSet<CueClass> = records.iter().flat_map(|r| r.cues.iter().map(|c| c.0)).collect();
    let mut tallies: BTreeMap<CueClass, Tally> = classes.iter().map(|c| (*c, Tally::default())).collect();
    for r in records {
        let found = detect_cues(&r.text);
        for (class, t) in tallies.iter_mut() {
            let det: Vec<Span> = found.iter().filter(|c| c.class == *class).map(|c| c.span).collect();
            let ann: Vec<Span> = r.cues.iter().filter(|c| c.0 == *class).map(|c| c.1).collect();
            t.add(&det, &ann);
        }
    }
    tallies.into_iter().map(|(class, t)| score_of(corpus, class, &t)).collect()
}

/// Load and score every corpus under `dir`.
///
/// # Errors
/// As [`corpora`] and [`load`].
pub fn evaluate_dir(dir: &Path) -> Result<Vec<Score>> {
    let mut out = Vec::new();
    for (name, path) in corpora(dir)? {
        out.extend(evaluate(&name, &load(&path)?));
    }
    Ok(out)
}

/// The docs/benchmarks.md table of scores (markdown, deterministic).
pub fn markdown_table(scores: &[Score]) -> String {
    let mut s = String::from("| corpus | class | precision | recall | F1 | n |\n|---|---|---|---|---|---|\n");
    for x in scores {
        s.push_str(&format!("| {} | {} | {:.3} | {:.3} | {:.3} | {} |\n", x.corpus, x.class, x.precision, x.recall, x.f1, x.n));
    }
    s
}

/// Per lexicon rule: how often it fired for an annotated class of the
/// corpus and how often it overlapped an annotated cue of that class
/// (`(class, rule, fired, overlapped)`, sorted by most false positives).
pub fn rule_precision(records: &[Record]) -> Vec<(String, String, usize, usize)> {
    let classes: BTreeSet<CueClass> = records.iter().flat_map(|r| r.cues.iter().map(|c| c.0)).collect();
    let mut m: BTreeMap<(CueClass, String), (usize, usize)> = BTreeMap::new();
    for r in records {
        for c in detect_cues(&r.text).into_iter().filter(|c| classes.contains(&c.class)) {
            let ok = r.cues.iter().any(|(k, s)| *k == c.class && s.overlaps(&c.span));
            let e = m.entry((c.class, c.rule)).or_default();
            e.0 += 1;
            e.1 += usize::from(ok);
        }
    }
    let mut v: Vec<(String, String, usize, usize)> = m.into_iter().map(|((c, r), (f, o))| (c.as_str().to_string(), r, f, o)).collect();
    v.sort_by(|a, b| (b.2 - b.3).cmp(&(a.2 - a.3)).then(a.1.cmp(&b.1)));
    v
}

/// A mining candidate and its figures on the dev half.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The corpus mined.
    pub corpus: String,
    /// The class.
    pub class: String,
    /// The candidate entry (lower-cased annotated cue text).
    pub entry: String,
    /// Word-boundary matches on the dev half.
    pub fires: usize,
    /// Sentences where it fires and the current lexicon detects no cue of the class.
    pub newly: usize,
    /// Of those, sentences with an annotated cue of the class at the match.
    pub annotated: usize,
    /// `fires >= MINE_MIN_FIRES && annotated / newly >= MINE_MIN_SHARE`.
    pub kept: bool,
}

/// The text line `amem eval cues --mine` and the `cue_eval` example print:
/// `corpus class "entry" fires=N newly=N annotated=N KEPT` (`-` when not kept).
impl std::fmt::Display for Candidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} {:?} fires={} newly={} annotated={} {}",
            self.corpus,
            self.class,
            self.entry,
            self.fires,
            self.newly,
            self.annotated,
            if self.kept { "KEPT" } else { "-" }
        )
    }
}

/// Word-boundary, ASCII-case-insensitive occurrences of `needle` (lower-case).
fn occurrences(hay: &str, needle: &str) -> Vec<Span> {
    let lower = hay.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = lower[from..].find(needle) {
        let s = from + p;
        let e = s + needle.len();
        if !amem_text::lexicon::is_word_char_before(hay, s) && !amem_text::lexicon::is_word_char_at(hay, e) {
            out.push(Span::new(s, e));
        }
        from = s + needle.len().max(1);
        while from < lower.len() && !lower.is_char_boundary(from) {
            from += 1;
        }
    }
    out
}

/// Apply the mining rule to one corpus: every candidate with its figures,
/// sorted by class then fires (descending) then entry.
pub fn mine(corpus: &str, records: &[Record]) -> Vec<Candidate> {
    let forms: BTreeSet<String> = amem_text::lexicon::all_terms().into_iter().collect();
    let mut cands: BTreeSet<(CueClass, String)> = BTreeSet::new();
    for r in records {
        for (c, t) in &r.cue_texts {
            let t = t.trim().to_string();
            if !t.is_empty() && !forms.contains(&t) {
                cands.insert((*c, t));
            }
        }
    }
    let detected: Vec<Vec<amem_records::Cue>> = records.iter().map(|r| detect_cues(&r.text)).collect();
    let mut out = Vec::new();
    for (class, entry) in cands {
        let (mut fires, mut newly, mut annotated) = (0usize, 0usize, 0usize);
        for (r, det) in records.iter().zip(&detected) {
            let occ = occurrences(&r.text, &entry);
            if occ.is_empty() {
                continue;
            }
            fires += occ.len();
            if det.iter().any(|c| c.class == class) {
                continue;
            }
            newly += 1;
            if occ.iter().any(|o| r.cues.iter().any(|(c, s)| *c == class && s.overlaps(o))) {
                annotated += 1;
            }
        }
        let kept = fires >= MINE_MIN_FIRES && newly > 0 && annotated as f64 / newly as f64 >= MINE_MIN_SHARE;
        out.push(Candidate { corpus: corpus.to_string(), class: class.as_str().to_string(), entry, fires, newly, annotated, kept });
    }
    out.sort_by(|a, b| a.class.cmp(&b.class).then(b.fires.cmp(&a.fires)).then(a.entry.cmp(&b.entry)));
    out
}

/// [`load`] one corpus file (as listed by [`corpora`]) and [`mine`] it.
pub fn mine_file(corpus: &str, path: &Path) -> Result<Vec<Candidate>> {
    Ok(mine(corpus, &load(path)?))
}

/// Records taken for a model's evaluation: at most `limit` of `records`, evenly spaced
/// (record `i * len / limit`), so a small budget still spans the corpus; all when `limit`
/// is 0 or not smaller.
pub fn spread(records: &[Record], limit: usize) -> Vec<&Record> {
    if limit == 0 || limit >= records.len() {
        return records.iter().collect();
    }
    (0..limit).map(|i| &records[i * records.len() / limit]).collect()
}

/// One class of one corpus scored with a witness beside the word lists
/// (`amem eval cues --witness NAME`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WitnessScore {
    /// Corpus folder name.
    pub corpus: String,
    /// `hedge` or `attribution`.
    pub class: String,
    /// Records read.
    pub records: usize,
    /// The word lists alone on those records.
    pub lexicon: Score,
    /// The word lists and the witness's checked markers together (what the gate reads).
    pub with_witness: Score,
    /// Sentence level: the witness's "does it hedge / attribute" against "has an annotated
    /// cue of the class", as F1.
    pub sentence_f1: f64,
    /// The same with each record's answer set against the next record's annotation (the
    /// shuffled control), and the margin.
    pub sentence_f1_shuffled: f64,
    /// `sentence_f1 - sentence_f1_shuffled`.
    pub margin: f64,
    /// Records the witness gave no usable answer for (only the word lists count there).
    pub not_established: usize,
}

fn score_of(corpus: &str, class: CueClass, t: &Tally) -> Score {
    let p = if t.detected == 0 { 0.0 } else { t.detected_ok as f64 / t.detected as f64 };
    let r = if t.annotated == 0 { 0.0 } else { t.annotated_found as f64 / t.annotated as f64 };
    let f = if p + r == 0.0 { 0.0 } else { 2.0 * p * r / (p + r) };
    Score {
        corpus: corpus.to_string(),
        class: class.as_str().to_string(),
        precision: round3(p),
        recall: round3(r),
        f1: round3(f),
        n: t.annotated,
    }
}

fn f1_of(pairs: impl Iterator<Item = (bool, bool)>) -> f64 {
    let (mut tp, mut fp, mut fneg) = (0usize, 0usize, 0usize);
    for (said, gold) in pairs {
        match (said, gold) {
            (true, true) => tp += 1,
            (true, false) => fp += 1,
            (false, true) => fneg += 1,
            _ => {}
        }
    }
    if tp == 0 { 0.0 } else { 2.0 * tp as f64 / (2 * tp + fp + fneg) as f64 }
}

/// Score the word lists alone and with `witness` on `records` of one corpus, for the
/// hedge and attribution classes the corpus annotates. One witness call per record.
pub fn evaluate_witness(corpus: &str, records: &[&Record], witness: &dyn amem_gate::Witness) -> Vec<WitnessScore> {
    let classes: Vec<CueClass> = [CueClass::Hedge, CueClass::Attribution]
        .into_iter()
        .filter(|c| records.iter().any(|r| r.cues.iter().any(|(k, _)| k == c)))
        .collect();
    if classes.is_empty() {
        return Vec::new();
    }
    let readings: Vec<Option<amem_gate::Stance>> = records.iter().map(|r| witness.read(&r.text)).collect();
    classes
        .into_iter()
        .map(|class| {
            let (mut lex, mut both) = (Tally::default(), Tally::default());
            let mut said_gold: Vec<(Option<bool>, bool)> = Vec::new();
            for (r, reading) in records.iter().zip(&readings) {
                let ann: Vec<Span> = r.cues.iter().filter(|c| c.0 == class).map(|c| c.1).collect();
                let det: Vec<Span> = detect_cues(&r.text).iter().filter(|c| c.class == class).map(|c| c.span).collect();
                let markers: Vec<Span> = reading
                    .as_ref()
                    .map(|s| if class == CueClass::Hedge { &s.hedge } else { &s.attribution })
                    .map(|m| m.iter().map(|x| Span::new(x.start, x.end)).collect())
                    .unwrap_or_default();
                let mut joint = det.clone();
                joint.extend(markers.iter().filter(|m| !det.iter().any(|d| d.overlaps(m))));
                lex.add(&det, &ann);
                both.add(&joint, &ann);
                said_gold.push((reading.as_ref().map(|_| !markers.is_empty()), !ann.is_empty()));
            }
            // Sentence level, over the records the witness answered; the control pairs each
            // answer with the next answered record's annotation.
            let answered: Vec<(bool, bool)> = said_gold.iter().filter_map(|(s, g)| s.map(|s| (s, *g))).collect();
            let f1 = f1_of(answered.iter().copied());
            let n = answered.len();
            let shuffled = f1_of((0..n).map(|i| (answered[i].0, answered[(i + 1) % n.max(1)].1)));
            WitnessScore {
                corpus: corpus.to_string(),
                class: class.as_str().to_string(),
                records: records.len(),
                lexicon: score_of(corpus, class, &lex),
                with_witness: score_of(corpus, class, &both),
                sentence_f1: round3(f1),
                sentence_f1_shuffled: round3(shuffled),
                margin: round3(f1 - shuffled),
                not_established: readings.iter().filter(|r| r.is_none()).count(),
            }
        })
        .collect()
}

/// The witness table (markdown).
pub fn witness_table(rows: &[WitnessScore]) -> String {
    let mut s = String::from(
        "| corpus | class | records | lexicon P | lexicon R | with witness P | with witness R | sentence F1 | shuffled | margin | not established |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for x in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:+.3} | {} |\n",
            x.corpus,
            x.class,
            x.records,
            x.lexicon.precision,
            x.lexicon.recall,
            x.with_witness.precision,
            x.with_witness.recall,
            x.sentence_f1,
            x.sentence_f1_shuffled,
            x.margin,
            x.not_established
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_points_become_bytes() {
        let dir = std::env::temp_dir().join(format!("amem-gate-eval-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let p = dir.join("sentences.jsonl");
        // "é" is 2 bytes: code point 5..8 ("not") is bytes 6..9
        std::fs::write(&p, "{\"text\": \"café not open\", \"cues\": [{\"start\": 5, \"end\": 8, \"type\": \"negation\", \"text\": \"not\", \"fragments\": [[5, 8]]}]}\n{\"text\": \"open\", \"cues\": []}\n").expect("write");
        let recs = load(&p).expect("load");
        assert_eq!(recs[0].cues[0].1, Span::new(6, 9));
        assert_eq!(&recs[0].text[6..9], "not");
        let s = evaluate("t", &recs);
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].precision, s[0].recall, s[0].n), (1.0, 1.0, 1));
        std::fs::write(&p, "{\"text\": \"x\", \"cues\": [{\"start\": 5, \"end\": 9, \"type\": \"negation\"}]}\n").expect("write");
        assert!(matches!(load(&p), Err(Error::Record { line: 1, .. })));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn occurrences_respect_word_boundaries() {
        assert_eq!(occurrences("Not a knot, not.", "not").len(), 2);
    }

    #[test]
    fn candidate_text_line() {
        let mut c = Candidate {
            corpus: "bioscope".into(),
            class: "hedge".into(),
            entry: "suggest".into(),
            fires: 12,
            newly: 5,
            annotated: 4,
            kept: true,
        };
        assert_eq!(c.to_string(), "bioscope hedge \"suggest\" fires=12 newly=5 annotated=4 KEPT");
        c.kept = false;
        assert_eq!(c.to_string(), "bioscope hedge \"suggest\" fires=12 newly=5 annotated=4 -");
    }
}
