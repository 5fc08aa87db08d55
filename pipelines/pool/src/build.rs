//! Building a candidate write pool from mail archives.
//!
//! Selection is on structure alone: a message enters the pool when it
//! carries quoted or forwarded content (`Message.quoted` is not empty).
//! Never on cue words: selecting on hedging vocabulary would build a pool
//! out of exactly what the word lists already see.
//!
//! The source text of a selected message is what a memory system reading
//! the thread saw: the author's own text, then each quoted or forwarded
//! part with the header that introduced it. Candidate writes come from a
//! writes file produced by any memory system, joined on the message id
//! `amem import` prints, or from the built-in rules extractor, which
//! writes every audited claim of the source text verbatim (a faithful
//! baseline: what it loses, it loses by leaving the context behind).

use crate::{Candidate, Error, Result};
use amem_records::{Digest, Message, MessageStream};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::Path;

/// Where candidate writes come from.
pub enum Writes {
    /// A memory system's writes: source id → (write id, memory), in file order.
    File(HashMap<String, Vec<(String, String)>>),
    /// The built-in rules extractor.
    Rules,
}

/// One line of a writes file.
#[derive(Debug, Deserialize)]
struct WriteLine {
    source_id: String,
    write_id: String,
    memory: String,
}

/// Read a writes file (`{"source_id","write_id","memory"}` per line).
///
/// # Errors
/// Unreadable file; a malformed line (naming its number).
pub fn read_writes(path: &Path) -> Result<Writes> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut map: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let w: WriteLine =
            serde_json::from_str(&line).map_err(|e| Error::Input { path: path.to_path_buf(), line: i + 1, reason: e.to_string() })?;
        map.entry(w.source_id).or_default().push((w.write_id, w.memory));
    }
    Ok(Writes::File(map))
}

/// The text a memory system reading this message saw.
pub fn source_text(m: &Message) -> String {
    let mut s = m.text.trim().to_string();
    for q in &m.quoted {
        if !s.is_empty() {
            s.push_str("\n\n");
        }
        s.push_str(q.header.trim());
        s.push('\n');
        s.push_str(q.text.trim());
    }
    s
}

/// The pool's counts and stimulus-set id, written as `manifest.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// SHA-256 over the selected sources (id and source-text digest, sorted):
    /// the same archives select the same stimulus set on any machine.
    pub stimulus_set_id: String,
    /// Where the writes came from: `rules@<version>` or the writes file.
    pub writes: String,
    /// Messages read.
    pub messages_read: u64,
    /// Messages selected (carrying quoted or forwarded content).
    pub sources_selected: u64,
    /// Selected sources with no candidate write (abstentions).
    pub sources_without_writes: u64,
    /// Candidate writes gated.
    pub candidates: u64,
    /// Candidates by gate verdict.
    pub by_verdict: BTreeMap<String, u64>,
    /// Writes whose source id matched no selected source.
    pub writes_unmatched: u64,
    /// Records the importers skipped, by kind.
    pub skipped: BTreeMap<String, u64>,
    /// The model roles the gate asked (witness, added content), summed over the candidates;
    /// empty for the deterministic gate alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gate_models: Vec<amem_gate::ModelUse>,
}

/// Build a pool from message streams: select, pair with writes, gate.
/// Each candidate goes to `sink` as soon as it is gated, so a pool of any
/// size is written without holding it in memory.
///
/// # Errors
/// Whatever `sink` returns.
pub fn build(
    streams: Vec<MessageStream>,
    writes: &Writes,
    writes_name: &str,
    models: amem_gate::GateModels<'_>,
    sink: &mut dyn FnMut(Candidate) -> Result<()>,
) -> Result<Manifest> {
    let mut m = Manifest { writes: writes_name.to_string(), ..Manifest::default() };
    let mut selected: Vec<(String, Digest)> = Vec::new();
    let mut matched: std::collections::HashSet<String> = std::collections::HashSet::new();
    for stream in streams {
        for item in stream {
            let msg = match item {
                Ok(msg) => msg,
                Err(e) => {
                    *m.skipped.entry(e.kind).or_default() += 1;
                    continue;
                }
            };
            m.messages_read += 1;
            if msg.quoted.is_empty() {
                continue;
            }
            let source = source_text(&msg);
            selected.push((msg.id.0.clone(), Digest::of(source.as_bytes())));
            let pairs: Vec<(String, String)> = match writes {
                Writes::File(map) => match map.get(&msg.id.0) {
                    Some(v) => {
                        matched.insert(msg.id.0.clone());
                        v.clone()
                    }
                    None => Vec::new(),
                },
                Writes::Rules => rules_writes(&msg, &source),
            };
            if pairs.is_empty() {
                m.sources_without_writes += 1;
            }
            for (write_id, memory) in pairs {
                let report = amem_gate::check_with(&source, &memory, models);
                amem_gate::ModelUse::add_all(&mut m.gate_models, &report.models);
                let summary = report.summary();
                *m.by_verdict.entry(summary.verdict.as_str().to_string()).or_default() += 1;
                m.candidates += 1;
                sink(Candidate {
                    source_id: msg.id.0.clone(),
                    write_id,
                    source: source.clone(),
                    memory,
                    verdict: summary.verdict,
                    flags: summary.flags,
                })?;
            }
        }
    }
    if let Writes::File(map) = writes {
        m.writes_unmatched = map.iter().filter(|(k, _)| !matched.contains(*k)).map(|(_, v)| v.len() as u64).sum();
    }
    selected.sort();
    selected.dedup();
    m.sources_selected = selected.len() as u64;
    let fields: Vec<Vec<u8>> = selected.iter().flat_map(|(id, d)| [id.as_bytes().to_vec(), d.0.to_vec()]).collect();
    m.stimulus_set_id = Digest::of_fields(fields.iter().map(|f| f.as_slice())).short(16);
    Ok(m)
}

/// The rules extractor's writes: every audited claim of the source text,
/// verbatim, numbered in order.
fn rules_writes(msg: &Message, source: &str) -> Vec<(String, String)> {
    let mut whole = msg.clone();
    whole.text = source.to_string();
    whole.quoted = Vec::new();
    amem_extract::extract(&whole)
        .into_iter()
        .filter(|c| c.kind.is_audited())
        .enumerate()
        .map(|(i, c)| (format!("rules-{i}"), c.text))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use amem_records::{MessageId, QuoteKind, QuotedPart, SourceKind};

    fn msg(id: &str, text: &str, quoted: Option<&str>) -> Message {
        Message {
            source: SourceKind::ENRON,
            archive: "a".into(),
            conversation: "c".into(),
            id: MessageId(id.into()),
            author: "x".into(),
            recipients: vec![],
            sent_at: "2001-05-01T00:00:00Z".parse().unwrap(),
            subject: None,
            text: text.into(),
            quoted: quoted
                .map(|q| {
                    vec![QuotedPart {
                        kind: QuoteKind::Reply,
                        header: "-----Original Message-----".into(),
                        author: None,
                        sent_at: None,
                        text: q.into(),
                    }]
                })
                .unwrap_or_default(),
            locator: "a:0".into(),
            meta: Default::default(),
            not_claims: None,
        }
    }

    fn stream(v: Vec<Message>) -> MessageStream {
        Box::new(v.into_iter().map(Ok))
    }

    fn collect(streams: Vec<MessageStream>, writes: &Writes) -> (Vec<Candidate>, Manifest) {
        let mut out = Vec::new();
        let m = build(streams, writes, "test", amem_gate::GateModels::default(), &mut |c| {
            out.push(c);
            Ok(())
        })
        .unwrap();
        (out, m)
    }

    #[test]
    fn selects_on_structure_not_words() {
        let msgs = vec![
            msg("a", "Maybe the deal closes Friday, reportedly.", None),
            msg("b", "Thanks.", Some("The deal closes Friday at the earliest.")),
        ];
        let mut writes = HashMap::new();
        writes.insert("a".to_string(), vec![("w1".to_string(), "The deal closes Friday.".to_string())]);
        writes.insert("b".to_string(), vec![("w2".to_string(), "The deal closes Friday.".to_string())]);
        let (cands, m) = collect(vec![stream(msgs)], &Writes::File(writes));
        // The hedged message without quoted content is not selected; its write is unmatched.
        assert_eq!(m.sources_selected, 1);
        assert_eq!(cands.len(), 1);
        assert_eq!(cands[0].source_id, "b");
        assert_eq!(m.writes_unmatched, 1);
        assert_eq!(m.messages_read, 2);
    }

    #[test]
    fn stimulus_set_id_is_order_free() {
        let a = vec![msg("b", "x", Some("The plant shut down in May.")), msg("c", "y", Some("Prices rose 5%."))];
        let b = vec![msg("c", "y", Some("Prices rose 5%.")), msg("b", "x", Some("The plant shut down in May."))];
        let (_, ma) = collect(vec![stream(a)], &Writes::Rules);
        let (_, mb) = collect(vec![stream(b)], &Writes::Rules);
        assert_eq!(ma.stimulus_set_id, mb.stimulus_set_id);
        assert_eq!(ma.stimulus_set_id.len(), 16);
    }

    #[test]
    fn abstentions_are_counted() {
        let (_, m) = collect(vec![stream(vec![msg("b", "ok", Some("The plant shut down in May."))])], &Writes::File(HashMap::new()));
        assert_eq!(m.sources_without_writes, 1);
        assert_eq!(m.candidates, 0);
    }
}
