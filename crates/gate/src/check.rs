//! Alignment and the eight checks.

use crate::models::GateModels;
use crate::report::{Alignment, Check, Flag, GateReport, NOT_CHECKED};
use amem_records::{CueClass, Span};
use amem_text::cues::CueAt;
use amem_text::cues::cues_from;
use amem_text::lexicon::{Hit, Kind, Lexicon};
use amem_text::numbers::{Number, same_value, scan_numbers};
use amem_text::sentence::{Layout, Sentence, sentences};
use amem_text::words::{WordAt, WordHash as Word, clauses, content_words, word_set};

/// Alignment threshold: a memory sentence is checkable when at least a
/// quarter of the content words of the smaller of the two sentences are
/// shared. 0.25 is the published factwash calibration (issue 2); the
/// smaller-set denominator (overlap coefficient) lets both compressions
/// ("Alice has admin" out of a long sentence) and elaborations (a memory
/// that adds a date to "someone said Alice was promoted") align.
pub const ALIGN_THRESHOLD: f64 = 0.25;

/// One scanned text: sentences, cues, numbers, lexicon hits, content words.
pub(crate) struct Scanned<'a> {
    pub text: &'a str,
    pub sentences: Vec<Sentence<'a>>,
    pub cues: Vec<CueAt<'a>>,
    pub numbers: Vec<Number>,
    pub hits: Vec<Hit>,
    /// All content words in text order (for clause checks); sentence `i`
    /// owns `tokens[ranges[i][0]..ranges[i][1]]` (words never cross a
    /// sentence boundary: boundaries are punctuation and line breaks).
    tokens: Vec<WordAt>,
    /// Per sentence: its range of `tokens` and its range of `words` (one
    /// list for both: one allocation a text, not two).
    ranges: Vec<[usize; 4]>,
    /// Per sentence content-word sets (sorted, deduplicated), flattened the
    /// same way, `words[ranges[i][2]..ranges[i][3]]` (for alignment).
    words: Vec<Word>,
}

impl<'a> Scanned<'a> {
    pub(crate) fn new(text: &'a str) -> Scanned<'a> {
        let lex = Lexicon::get();
        let hits = lex.scan(text);
        let numbers = scan_numbers(lex, text);
        let cues = cues_from(lex, text, &hits, &numbers);
        let sentences = sentences(text, Layout::Lines);
        let tokens = content_words(lex, text, 0, text.len(), &cues);
        let mut ranges = Vec::with_capacity(sentences.len());
        let mut words = Vec::with_capacity(tokens.len());
        for s in &sentences {
            let lo = tokens.partition_point(|w| w.start < s.start);
            let hi = tokens.partition_point(|w| w.start < s.end);
            let from = words.len();
            words.extend(tokens[lo..hi.max(lo)].iter().map(|w| w.word));
            words[from..].sort_unstable();
            let mut keep = from;
            for k in from..words.len() {
                if k == from || words[k] != words[keep - 1] {
                    words[keep] = words[k];
                    keep += 1;
                }
            }
            words.truncate(keep);
            ranges.push([lo, hi.max(lo), from, keep]);
        }
        Scanned { text, sentences, cues, numbers, hits, tokens, ranges, words }
    }

    /// Content words of sentence `i`, in text order.
    fn sent_tokens(&self, i: usize) -> &[WordAt] {
        let [a, b, _, _] = self.ranges[i];
        &self.tokens[a..b]
    }

    /// Content-word set of sentence `i`.
    pub(crate) fn sent_words(&self, i: usize) -> &[Word] {
        let [_, _, a, b] = self.ranges[i];
        &self.words[a..b]
    }

    /// Cues of `class` inside `start..end` (cues are sorted by start).
    pub(crate) fn cues_in(&self, start: usize, end: usize, class: CueClass) -> impl Iterator<Item = &CueAt<'a>> {
        let lo = self.cues.partition_point(|c| c.span.start < start);
        let hi = self.cues.partition_point(|c| c.span.start < end);
        self.cues[lo..hi.max(lo)].iter().filter(move |c| c.class == class && c.span.end <= end)
    }

    /// Non-date numbers of sentence `i` (numbers are sorted by start).
    fn numbers_in(&self, i: usize) -> impl Iterator<Item = &Number> {
        let s = &self.sentences[i];
        let lo = self.numbers.partition_point(|n| n.start < s.start);
        let hi = self.numbers.partition_point(|n| n.start < s.end);
        self.numbers[lo..hi.max(lo)].iter().filter(move |n| !n.is_date && n.end <= s.end)
    }

    /// Lexicon hits inside sentence `i` (hits are sorted by start).
    fn hits_in(&self, i: usize) -> &[Hit] {
        let s = &self.sentences[i];
        let lo = self.hits.partition_point(|h| h.start < s.start);
        let hi = self.hits.partition_point(|h| h.start < s.end);
        &self.hits[lo..hi.max(lo)]
    }
}

/// `(containment, jaccard)` of two sorted, deduplicated word lists:
/// |a ∩ b| / min(|a|, |b|), and |a ∩ b| / |a ∪ b| to break ties (so a
/// sentence repeated verbatim aligns to itself, not to a longer sentence
/// that also contains all its words).
fn containment(a: &[Word], b: &[Word]) -> (f64, f64) {
    if a.is_empty() || b.is_empty() {
        return (0.0, 0.0);
    }
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - shared;
    (shared as f64 / a.len().min(b.len()) as f64, shared as f64 / union as f64)
}

/// Align each memory sentence to its best source sentence.
pub(crate) fn align(src: &Scanned<'_>, mem: &Scanned<'_>) -> Vec<Alignment> {
    mem.sentences
        .iter()
        .enumerate()
        .map(|(mi, ms)| {
            let mut best: Option<(usize, f64, f64)> = None;
            for si in 0..src.sentences.len() {
                let (score, jaccard) = containment(src.sent_words(si), mem.sent_words(mi));
                if score > 0.0 && best.is_none_or(|(_, b, j)| score > b || (score == b && jaccard > j)) {
                    best = Some((si, score, jaccard));
                }
            }
            let score = best.map(|b| b.1).unwrap_or(0.0);
            Alignment {
                memory_index: mi,
                memory_sentence: ms.text.to_string(),
                memory_span: Span::new(ms.start, ms.end),
                source_index: best.map(|b| b.0),
                source_sentence: best.map(|b| src.sentences[b.0].text.to_string()),
                source_span: best.map(|b| Span::new(src.sentences[b.0].start, src.sentences[b.0].end)),
                score: (score * 1000.0).round() / 1000.0,
                aligned: score >= ALIGN_THRESHOLD,
            }
        })
        .collect()
}

/// Run the gate: align, then every check on every aligned group.
pub fn check(source: &str, memory: &str) -> GateReport {
    check_with(source, memory, GateModels::default())
}

/// [`check`], then the second readers `models` names (a model's witness and added-content
/// detector, [`crate::models`]): each may add findings, never remove one, so the verdict
/// can only be lowered. With no role configured this is [`check`].
pub fn check_with(source: &str, memory: &str, models: GateModels<'_>) -> GateReport {
    let src = Scanned::new(source);
    let mem = Scanned::new(memory);
    let alignment = align(&src, &mem);
    let mut flags = Vec::new();
    let any_aligned = alignment.iter().any(|a| a.aligned);

    // Memory sentences grouped by the source sentence they align to: a
    // memory that splits one source sentence in two is checked as one.
    // (source, memory) pairs sorted by source, then memory order; a group is
    // a run of one source. Two flat lists, not a map of lists.
    let mut pairs: Vec<(usize, usize)> =
        alignment.iter().filter(|a| a.aligned).filter_map(|a| a.source_index.map(|si| (si, a.memory_index))).collect();
    pairs.sort_unstable();
    let members: Vec<usize> = pairs.iter().map(|&(_, mi)| mi).collect();
    let mut sources: Vec<usize> = pairs.iter().map(|&(si, _)| si).collect();
    sources.dedup();
    let groups = groups_of(&pairs, &members, &sources);
    for &(si, ms) in &groups {
        let g = Group {
            src: &src,
            mem: &mem,
            si,
            ms,
            aligned_sources: &sources,
            clauses: std::cell::OnceCell::new(),
            mem_words: std::cell::OnceCell::new(),
        };
        g.polarity(&mut flags);
        g.stance(CueClass::Condition, Check::Condition, &mut flags);
        g.stance(CueClass::Hedge, Check::Hedge, &mut flags);
        g.stance(CueClass::Attribution, Check::Attribution, &mut flags);
        g.stance(CueClass::Temporal, Check::Temporal, &mut flags);
        g.arithmetic(&mut flags);
        g.unit(&mut flags);
    }
    if any_aligned {
        // A sentence with no content word ("!!!", "Ok so.") has nothing to
        // check: it stays in the alignment as unaligned but is not a finding.
        for a in alignment.iter().filter(|a| !a.aligned && !mem.sent_words(a.memory_index).is_empty()) {
            flags.push(Flag {
                check: Check::Unaligned,
                source_sentence: a.source_sentence.clone().unwrap_or_default(),
                source_span: Span::default(),
                cue: String::new(),
                memory_sentence: a.memory_sentence.clone(),
                memory_span: a.memory_span,
                rule: "align:below_threshold".into(),
                detail: format!("memory sentence aligns to no source sentence (best containment {:.2} < {ALIGN_THRESHOLD})", a.score),
            });
        }
    }
    let mut uses = Vec::new();
    if let Some(w) = models.witness {
        uses.push(crate::second::witness_pass(&src, &mem, &groups, w, &mut flags));
    }
    if let Some(a) = models.added {
        uses.push(crate::second::added_pass(&src, &mem, a, &mut flags));
    }
    flags.sort_by(|a, b| a.memory_span.start.cmp(&b.memory_span.start).then(a.check.cmp(&b.check)).then(a.source_span.cmp(&b.source_span)));
    let verdict = GateReport::verdict_for(&alignment, &flags);
    GateReport {
        verdict,
        flags,
        alignment,
        not_checked: NOT_CHECKED.iter().map(|s| s.to_string()).collect(),
        threshold: ALIGN_THRESHOLD,
        models: uses,
    }
}

/// The aligned groups as (source sentence, its memory sentences), from the sorted pairs.
fn groups_of<'m>(pairs: &[(usize, usize)], members: &'m [usize], sources: &[usize]) -> Vec<(usize, &'m [usize])> {
    let mut out = Vec::with_capacity(sources.len());
    let mut from = 0;
    for &si in sources {
        let to = from + pairs[from..].iter().take_while(|&&(s, _)| s == si).count();
        out.push((si, &members[from..to]));
        from = to;
    }
    out
}

/// One source sentence and the memory sentences aligned to it.
struct Group<'r, 'a> {
    src: &'r Scanned<'a>,
    mem: &'r Scanned<'a>,
    si: usize,
    ms: &'r [usize],
    /// Every source sentence some memory sentence aligned to, sorted.
    aligned_sources: &'r [usize],
    /// Clauses of the source sentence, computed on first use.
    clauses: std::cell::OnceCell<Vec<(usize, usize)>>,
    /// Content words of the memory sentences, computed on first use (the
    /// polarity and the temporal check both read them).
    mem_words: std::cell::OnceCell<Vec<Word>>,
}

impl Group<'_, '_> {
    fn src_sentence(&self) -> &Sentence<'_> {
        &self.src.sentences[self.si]
    }

    fn first_mem(&self) -> &Sentence<'_> {
        &self.mem.sentences[self.ms[0]]
    }

    fn mem_has(&self, class: CueClass, with_neighbours: bool) -> bool {
        let n = self.mem.sentences.len();
        self.ms.iter().any(|&mi| {
            let (lo, hi) = if with_neighbours { (mi.saturating_sub(1), (mi + 1).min(n - 1)) } else { (mi, mi) };
            (lo..=hi).any(|k| {
                let s = &self.mem.sentences[k];
                self.mem.cues_in(s.start, s.end, class).next().is_some()
            })
        })
    }

    fn flag(&self, check: Check, src_sentence: &Sentence<'_>, span: Span, cue: &str, rule: &str, detail: String) -> Flag {
        let m = self.first_mem();
        Flag {
            check,
            source_sentence: src_sentence.text.to_string(),
            source_span: span,
            cue: cue.to_string(),
            memory_sentence: m.text.to_string(),
            memory_span: Span::new(m.start, m.end),
            rule: rule.to_string(),
            detail,
        }
    }

    /// Condition, hedge, attribution, temporal: the source window carries a
    /// cue of the class, the memory (aligned sentences; for hedges also
    /// their neighbours) carries none.
    fn stance(&self, class: CueClass, check: Check, flags: &mut Vec<Flag>) {
        let hedge = class == CueClass::Hedge;
        // Source window: the matched sentence; for hedges also the
        // neighbours no other memory sentence aligned to (docs/architecture.md,
        // "The gate": the hedge check also reads neighbouring sentences).
        let n = self.src.sentences.len();
        let neighbour = |k: usize| (hedge && k < n && self.aligned_sources.binary_search(&k).is_err()).then_some(k);
        let window = [Some(self.si), neighbour(self.si.wrapping_sub(1)), neighbour(self.si + 1)];
        // Temporal scope, like negation, belongs to its clause: a date in a
        // clause the memory dropped entirely is not a lost scope.
        let mem_words: &[Word] = if class == CueClass::Temporal { self.mem_words() } else { &[] };
        let mut found: Option<(usize, &CueAt<'_>)> = None;
        for k in window.into_iter().flatten() {
            let s = &self.src.sentences[k];
            if let Some(c) =
                self.src.cues_in(s.start, s.end, class).find(|c| class != CueClass::Temporal || self.clause_kept(c, mem_words, false))
            {
                found = Some((k, c));
                break;
            }
        }
        let Some((k, cue)) = found else { return };
        if self.mem_has(class, hedge) {
            return;
        }
        let s = &self.src.sentences[k];
        let what = match check {
            Check::Condition => "the source states a condition the memory dropped",
            Check::Hedge if k != self.si => "the source hedged in the neighbouring sentence; the memory states it flat",
            Check::Hedge => "the source hedged; the memory states it flat",
            Check::Attribution => "the source says who said it; the memory drops the attribution",
            _ => "the source dates or time-scopes it; the memory does not",
        };
        flags.push(self.flag(check, s, cue.span, cue.text, cue.rule, format!("{what} ({:?})", cue.text)));
    }

    /// Content words of all memory sentences of the group, sorted.
    fn mem_words(&self) -> &[Word] {
        self.mem_words.get_or_init(|| word_set(self.ms.iter().flat_map(|&mi| self.mem.sent_words(mi).iter().copied())))
    }

    /// Is the clause holding `cue` kept in the memory? A clause is kept
    /// when more than half of its content words (cue words left out; dates
    /// too when `with_dates` is false, for the temporal check whose cue
    /// they are) are in the memory, or when it has none of its own ("On Monday,"
    /// scopes the whole sentence). One shared word is not enough: "The
    /// meeting is not on Monday, it is on Tuesday" → "The meeting is on
    /// Tuesday" dropped the negated clause, it did not reverse it.
    fn clause_kept(&self, cue: &CueAt<'_>, mem_words: &[Word], with_dates: bool) -> bool {
        let s = self.src_sentence();
        let rel = cue.span.start.saturating_sub(s.start);
        match self.clauses.get_or_init(|| clauses(s.text)).iter().copied().find(|(a, b)| rel >= *a && rel < *b) {
            Some((a, b)) => {
                let (a, b) = (s.start + a, s.start + b);
                let (mut n, mut kept) = (0usize, 0usize);
                for w in self.src.sent_tokens(self.si).iter().filter(|w| w.start >= a && w.start < b && (with_dates || !w.temporal)) {
                    n += 1;
                    kept += usize::from(mem_words.binary_search(&w.word).is_ok());
                }
                n == 0 || 2 * kept > n
            }
            None => true,
        }
    }

    /// Polarity: a negation in a source clause the memory kept, none in the
    /// memory (reversed); or a negation in the memory where the source
    /// sentence has none (the reverse). A negation inside a clause the
    /// memory dropped entirely is not a reversal.
    fn polarity(&self, flags: &mut Vec<Flag>) {
        let s = self.src_sentence();
        let mem_words = self.mem_words();
        let all_neg: Vec<&CueAt<'_>> = self.src.cues_in(s.start, s.end, CueClass::Negation).collect();
        let kept_neg = all_neg.iter().find(|c| self.clause_kept(c, mem_words, true));
        let mem_neg: Option<&CueAt<'_>> = self.ms.iter().find_map(|&mi| {
            let m = &self.mem.sentences[mi];
            self.mem.cues_in(m.start, m.end, CueClass::Negation).next()
        });
        match (kept_neg, mem_neg) {
            (Some(c), None) => flags.push(self.flag(
                Check::Polarity,
                s,
                c.span,
                c.text,
                c.rule,
                format!("the source denies it ({:?}); the memory asserts it", c.text),
            )),
            (None, Some(m)) if all_neg.is_empty() => flags.push(self.flag(
                Check::Polarity,
                s,
                Span::new(s.start, s.end),
                m.text,
                &format!("{}:added", m.rule),
                format!("the source asserts it; the memory denies it ({:?})", m.text),
            )),
            _ => {}
        }
    }

    /// Brittle and truncated: a source sentence with a conclusion marker
    /// ("so", "therefore", "in total", ...) and the numbers it rests on.
    fn arithmetic(&self, flags: &mut Vec<Flag>) {
        let lex = Lexicon::get();
        let s = self.src_sentence();
        let nums: Vec<&Number> = self.src.numbers_in(self.si).collect();
        if nums.len() < 2 {
            return;
        }
        let mem_vals: Vec<f64> = self.ms.iter().flat_map(|&mi| self.mem.numbers_in(mi).map(|n| n.value)).collect();
        let marker = self
            .src
            .hits_in(self.si)
            .iter()
            .find(|h| h.end <= s.end && matches!(lex.entries[h.entry].kind, Kind::Total | Kind::Derivation));
        let Some(marker) = marker else { return };
        let entry = &lex.entries[marker.entry];
        let is_total = entry.kind == Kind::Total;
        let marker_text = &self.src.text[marker.start..marker.end];
        // the conclusion: the first number after the marker, else (for
        // "6 people in total") the last one before it
        let after = nums.iter().position(|n| n.start >= marker.end);
        let ci = match (after, is_total) {
            (Some(i), _) => i,
            (None, true) => nums.len() - 1,
            (None, false) => return,
        };
        let conclusion = nums[ci];
        let inputs: Vec<f64> =
            nums.iter().enumerate().filter(|(i, n)| *i != ci && (is_total || n.end <= marker.start)).map(|(_, n)| n.value).collect();
        if inputs.is_empty() || !mem_vals.iter().any(|v| same_value(*v, conclusion.value)) {
            return;
        }
        let span = Span::new(marker.start, marker.end);
        if is_total {
            let sum: f64 = inputs.iter().sum();
            if !same_value(sum, conclusion.value) {
                return; // the source's own total does not recompute: not the rewrite's loss
            }
            let mut parts = mem_vals.clone();
            if let Some(p) = parts.iter().position(|v| same_value(*v, conclusion.value)) {
                parts.remove(p);
            }
            if parts.is_empty() {
                flags.push(self.flag(
                    Check::Brittle,
                    s,
                    span,
                    marker_text,
                    &entry.rule,
                    format!("the memory keeps the total {} but none of the parts it was summed from", fmt_num(conclusion.value)),
                ));
            } else if !same_value(parts.iter().sum(), conclusion.value) {
                flags.push(self.flag(
                    Check::Truncated,
                    s,
                    span,
                    marker_text,
                    "truncated:sum",
                    format!(
                        "the memory states a total of {} but its listed parts sum to {}",
                        fmt_num(conclusion.value),
                        fmt_num(parts.iter().sum())
                    ),
                ));
            }
        } else {
            let dropped: Vec<f64> = inputs.iter().copied().filter(|v| !mem_vals.iter().any(|m| same_value(*m, *v))).collect();
            if !dropped.is_empty() {
                flags.push(self.flag(
                    Check::Brittle,
                    s,
                    span,
                    marker_text,
                    &entry.rule,
                    format!(
                        "the memory keeps the conclusion {} but drops the values it came from ({})",
                        fmt_num(conclusion.value),
                        dropped.iter().map(|v| fmt_num(*v)).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
        }
    }

    /// Unit: a memory value found in the source sentence with another unit
    /// or currency (and nowhere with the memory's).
    fn unit(&self, flags: &mut Vec<Flag>) {
        let s = self.src_sentence();
        let src_nums: Vec<&Number> = self.src.numbers_in(self.si).collect();
        for &mi in self.ms {
            for mn in self.mem.numbers_in(mi) {
                let Some(mu) = &mn.unit else { continue };
                let same: Vec<&&Number> = src_nums.iter().filter(|n| same_value(n.value, mn.value)).collect();
                if same.iter().any(|n| n.unit.as_deref() == Some(mu.as_str())) {
                    continue;
                }
                if let Some(sn) = same.iter().find(|n| n.unit.is_some()) {
                    let su = sn.unit.as_deref().unwrap_or("");
                    let cue = &self.src.text[sn.start..sn.end];
                    let mut f = self.flag(
                        Check::Unit,
                        s,
                        Span::new(sn.start, sn.end),
                        cue,
                        &format!("unit:{su}->{mu}"),
                        format!(
                            "the value {} is kept but its unit changed: {:?} in the source, {:?} in the memory",
                            fmt_num(mn.value),
                            sn.unit_text.as_deref().unwrap_or(su),
                            mn.unit_text.as_deref().unwrap_or(mu)
                        ),
                    );
                    let m = &self.mem.sentences[mi];
                    f.memory_sentence = m.text.to_string();
                    f.memory_span = Span::new(m.start, m.end);
                    flags.push(f);
                }
            }
        }
    }
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}
