//! The passes of the second readers ([`crate::models`]) over one gate run: each adds findings
//! with the evidence they rest on, never removes one.

use crate::check::Scanned;
use crate::models::{AddedContent, Addition, ModelUse, Stance, Witness, valid};
use crate::report::{Check, Flag};
use amem_records::{CueClass, Span};
use std::collections::HashMap;

/// The witness over the aligned groups `(source sentence, memory sentences)`: for each class
/// (hedge, attribution) the word lists found nowhere in the source sentence, the witness reads
/// the source sentence; a marker it reads there that the memory carries in no form (no cue of
/// the class by the word lists, none of the source's marker words, and none by the witness's
/// reading of the memory sentences) is a finding of that class.
pub(crate) fn witness_pass(
    src: &Scanned<'_>,
    mem: &Scanned<'_>,
    groups: &[(usize, &[usize])],
    w: &dyn Witness,
    flags: &mut Vec<Flag>,
) -> ModelUse {
    let mut used = ModelUse { role: "witness".into(), method: w.method().to_string(), ..ModelUse::default() };
    let mut readings: HashMap<(bool, usize, usize), Option<Stance>> = HashMap::new();
    let mut read = |used: &mut ModelUse, key: (bool, usize, usize), text: &str| -> Option<Stance> {
        readings
            .entry(key)
            .or_insert_with(|| {
                used.asked += 1;
                let got = w.read(text).filter(|s| s.hedge.iter().chain(&s.attribution).all(|r| valid(text, r)));
                match got {
                    Some(_) => used.answered += 1,
                    None => used.not_established += 1,
                }
                got
            })
            .clone()
    };
    for &(si, ms) in groups {
        let s = &src.sentences[si];
        let classes: Vec<(CueClass, Check)> = [(CueClass::Hedge, Check::Hedge), (CueClass::Attribution, Check::Attribution)]
            .into_iter()
            .filter(|&(class, check)| {
                src.cues_in(s.start, s.end, class).next().is_none()
                    && !flags
                        .iter()
                        .any(|f| f.check == check && f.source_sentence == s.text && f.memory_span.start == mem.sentences[ms[0]].start)
            })
            .collect();
        if classes.is_empty() {
            continue;
        }
        let Some(src_stance) = read(&mut used, (true, si, si), s.text) else { continue };
        let (first, last) = (&mem.sentences[ms[0]], &mem.sentences[ms[ms.len() - 1]]);
        let mem_text = &mem.text[first.start..last.end.max(first.end)];
        let mem_lower = mem_text.to_lowercase();
        for (class, check) in classes {
            let markers = if class == CueClass::Hedge { &src_stance.hedge } else { &src_stance.attribution };
            let Some(marker) = markers.first() else { continue };
            // The memory carries it by the word lists (hedges: also in a neighbouring sentence,
            // as the deterministic check reads them) or in the source's own words.
            let n = mem.sentences.len();
            let lexicon_has = ms.iter().any(|&mi| {
                let (lo, hi) = if class == CueClass::Hedge { (mi.saturating_sub(1), (mi + 1).min(n - 1)) } else { (mi, mi) };
                (lo..=hi).any(|k| mem.cues_in(mem.sentences[k].start, mem.sentences[k].end, class).next().is_some())
            });
            if lexicon_has || markers.iter().any(|r| mem_lower.contains(&s.text[r.clone()].to_lowercase())) {
                continue;
            }
            let Some(mem_stance) = read(&mut used, (false, ms[0], ms[ms.len() - 1]), mem_text) else { continue };
            let mem_markers = if class == CueClass::Hedge { &mem_stance.hedge } else { &mem_stance.attribution };
            if !mem_markers.is_empty() {
                continue;
            }
            let cue = &s.text[marker.clone()];
            let what = if class == CueClass::Hedge {
                "the source hedges; the memory states it flat"
            } else {
                "the source says who said it; the memory drops the attribution"
            };
            flags.push(Flag {
                check,
                source_sentence: s.text.to_string(),
                source_span: Span::new(s.start + marker.start, s.start + marker.end),
                cue: cue.to_string(),
                memory_sentence: first.text.to_string(),
                memory_span: Span::new(first.start, first.end),
                rule: format!("llm.witness:{}", class.as_str()),
                detail: format!(
                    "{what} ({cue:?}, read by {}: not in the word lists, checked verbatim in the source; the memory carries no {} by the word lists or by the same model)",
                    w.method(),
                    class.as_str()
                ),
            });
        }
    }
    used
}

/// The added-content detector on every memory sentence with a content word: an unsupported
/// answer whose added words are the memory's own (found in the memory sentence, not in the
/// source) is an [`Check::Added`] finding; supported, cannot tell or no usable answer add
/// nothing.
pub(crate) fn added_pass(src: &Scanned<'_>, mem: &Scanned<'_>, a: &dyn AddedContent, flags: &mut Vec<Flag>) -> ModelUse {
    let mut used = ModelUse { role: "added_content".into(), method: a.method().to_string(), ..ModelUse::default() };
    let source_lower = src.text.to_lowercase();
    for (mi, m) in mem.sentences.iter().enumerate() {
        if mem.sent_words(mi).is_empty() {
            continue;
        }
        used.asked += 1;
        let answer = a.judge(src.text, m.text);
        let (source, added) = match answer {
            Some(Addition::Supported { source }) if valid(src.text, &source) => {
                used.answered += 1;
                continue;
            }
            Some(Addition::Unsupported { source, added })
                if valid(src.text, &source)
                    && valid(m.text, &added)
                    && !source_lower.contains(&m.text[added.clone()].trim().to_lowercase()) =>
            {
                (source, added)
            }
            _ => {
                used.not_established += 1;
                continue;
            }
        };
        used.answered += 1;
        let holder = src.sentences.iter().find(|s| source.start >= s.start && source.start < s.end.max(s.start + 1));
        let added_text = &m.text[added];
        flags.push(Flag {
            check: Check::Added,
            source_sentence: holder.map(|s| s.text.to_string()).unwrap_or_else(|| src.text[source.clone()].to_string()),
            source_span: Span::new(source.start, source.end),
            cue: added_text.to_string(),
            memory_sentence: m.text.to_string(),
            memory_span: Span::new(m.start, m.end),
            rule: "llm.added_content:unsupported".into(),
            detail: format!(
                "the memory adds what the source does not state ({added_text:?}, read by {}: its words are the memory's, not the source's; it quoted the source verbatim)",
                a.method()
            ),
        });
    }
    used
}
