//! The word lists (data files under `lexicons/`, compiled in) and the one
//! aho-corasick automaton built over all of them.
//!
//! Every stance class, the false friends, the total and derivation words go
//! into a single automaton, so a text is scanned once ([`Lexicon::scan`]).
//! Units, scales, stopwords and the "if means whether" verbs are small
//! look-up sets used by the number scanner and the tokenizer.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, Input, MatchKind};
use amem_records::CueClass;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// The raw lexicon files, by name, as compiled in.
pub const FILES: &[(&str, &str)] = &[
    ("negation", include_str!("../lexicons/negation.txt")),
    ("hedge", include_str!("../lexicons/hedge.txt")),
    ("attribution", include_str!("../lexicons/attribution.txt")),
    ("condition", include_str!("../lexicons/condition.txt")),
    ("temporal", include_str!("../lexicons/temporal.txt")),
    ("false_friends", include_str!("../lexicons/false_friends.txt")),
    ("if_whether", include_str!("../lexicons/if_whether.txt")),
    ("totals", include_str!("../lexicons/totals.txt")),
    ("derivations", include_str!("../lexicons/derivations.txt")),
    ("units", include_str!("../lexicons/units.txt")),
    ("scales", include_str!("../lexicons/scales.txt")),
    ("stopwords", include_str!("../lexicons/stopwords.txt")),
];

fn file(name: &str) -> &'static str {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).unwrap_or("")
}

/// What a lexicon match means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A stance cue of this class.
    Cue(CueClass),
    /// A false friend: suppresses every cue it overlaps.
    FalseFriend,
    /// A word stating a total.
    Total,
    /// A word introducing a computed conclusion.
    Derivation,
}

/// One pattern of the automaton.
#[derive(Clone, Debug)]
pub struct Entry {
    /// What a match of this entry means.
    pub kind: Kind,
    /// `<file>:<first form>`, e.g. `attribution:say`.
    pub rule: String,
    /// A suffix entry (`-n't`): no word boundary required on the left.
    pub suffix: bool,
}

/// A raw match of one entry, already word-boundary checked.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    /// Index into [`Lexicon::entries`].
    pub entry: usize,
    /// Byte where the match starts.
    pub start: usize,
    /// Byte where it ends (exclusive).
    pub end: usize,
}

/// The compiled lexicon.
pub struct Lexicon {
    ac: AhoCorasick,
    ac_all: AhoCorasick,
    /// Per pattern: some shorter pattern is a prefix of it.
    has_prefix_entry: Vec<bool>,
    /// The patterns, in automaton order.
    pub entries: Vec<Entry>,
    /// Lower-cased unit surface forms → canonical unit.
    pub units: HashMap<String, String>,
    /// Lower-cased scale words → multiplier.
    pub scales: HashMap<String, f64>,
    /// Open-addressing table of the stopwords' hashes
    /// ([`crate::words::word_hash`], low bit forced to 1 so 0 means empty):
    /// one probe per token instead of a string set look-up.
    stopwords: Vec<u64>,
    /// Lower-cased single words after which "if" means "whether".
    pub if_whether: HashSet<String>,
}

/// Parse a lexicon file into groups of forms (one group per line). Forms are
/// lower-cased; comments and blank lines skipped.
pub fn parse_groups(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter_map(|l| {
            let l = l.split('#').next().unwrap_or("").trim();
            if l.is_empty() {
                return None;
            }
            let forms: Vec<String> = l.split(" | ").map(|f| f.trim().to_lowercase()).filter(|f| !f.is_empty()).collect();
            if forms.is_empty() { None } else { Some(forms) }
        })
        .collect()
}

/// `a | b = VALUE` lines.
fn parse_mapped(text: &str) -> Vec<(Vec<String>, String)> {
    text.lines()
        .filter_map(|l| {
            let l = l.split('#').next().unwrap_or("").trim();
            let (lhs, rhs) = l.split_once('=')?;
            let forms = lhs.split(" | ").map(|f| f.trim().to_lowercase()).filter(|f| !f.is_empty()).collect();
            Some((forms, rhs.trim().to_string()))
        })
        .collect()
}

impl Lexicon {
    /// The compiled-in lexicon, built once.
    pub fn get() -> &'static Lexicon {
        static LEX: OnceLock<Lexicon> = OnceLock::new();
        LEX.get_or_init(Lexicon::build)
    }

    fn build() -> Lexicon {
        let mut patterns: Vec<String> = Vec::new();
        let mut entries: Vec<Entry> = Vec::new();
        let sources: [(&str, Kind); 8] = [
            ("negation", Kind::Cue(CueClass::Negation)),
            ("hedge", Kind::Cue(CueClass::Hedge)),
            ("attribution", Kind::Cue(CueClass::Attribution)),
            ("condition", Kind::Cue(CueClass::Condition)),
            ("temporal", Kind::Cue(CueClass::Temporal)),
            ("false_friends", Kind::FalseFriend),
            ("totals", Kind::Total),
            ("derivations", Kind::Derivation),
        ];
        for (name, kind) in sources {
            for group in parse_groups(file(name)) {
                let head = group[0].trim_start_matches('-').to_string();
                for form in &group {
                    let suffix = form.starts_with('-') && form.len() > 1;
                    let pat = if suffix { form[1..].to_string() } else { form.clone() };
                    patterns.push(pat);
                    entries.push(Entry { kind, rule: format!("{name}:{head}"), suffix });
                }
            }
        }
        // Leftmost-longest for the pass itself; a standard automaton over
        // the same patterns for the rare fallback (see `scan`).
        // The pass itself is a DFA, not the contiguous NFA the builder picks
        // for this many patterns: one table look-up per byte instead of a
        // walk of the state's transitions. The scan runs on every claim the
        // extractor makes (a tenth of extraction with the NFA); the DFA
        // costs some memory and ~3 ms to build, once. The fallback
        // automaton runs on a few bytes now and then: the builder's choice.
        // Same matches either way.
        let build = |kind, dfa: bool| {
            let mut b = AhoCorasickBuilder::new();
            b.ascii_case_insensitive(true).match_kind(kind);
            if dfa {
                b.kind(Some(AhoCorasickKind::DFA));
            }
            b.build(&patterns)
                .or_else(|_| AhoCorasickBuilder::new().ascii_case_insensitive(true).match_kind(kind).build(&patterns))
                .expect("invariant: lexicon patterns are plain non-empty strings")
        };
        let ac = build(MatchKind::LeftmostLongest, true);
        let ac_all = build(MatchKind::Standard, false);
        let mut units = HashMap::new();
        for (forms, canon) in parse_mapped(file("units")) {
            for f in forms {
                units.insert(f, canon.clone());
            }
        }
        let mut scales = HashMap::new();
        for (forms, mult) in parse_mapped(file("scales")) {
            if let Ok(m) = mult.parse::<f64>() {
                for f in forms {
                    scales.insert(f, m);
                }
            }
        }
        let stop_hashes: Vec<u64> =
            parse_groups(file("stopwords")).into_iter().flatten().map(|w| crate::words::word_hash(w.as_bytes()) | 1).collect();
        let mut stopwords = vec![0u64; (stop_hashes.len() * 4).next_power_of_two().max(16)];
        let mask = stopwords.len() - 1;
        for h in stop_hashes {
            let mut i = (h as usize) & mask;
            while stopwords[i] != 0 && stopwords[i] != h {
                i = (i + 1) & mask;
            }
            stopwords[i] = h;
        }
        let if_whether = parse_groups(file("if_whether")).into_iter().flatten().collect();
        // For each pattern: is a shorter pattern a (case-insensitive) prefix
        // of it? Only then can a failed match hide a shorter one.
        let lower: Vec<String> = patterns.iter().map(|p| p.to_ascii_lowercase()).collect();
        let has_prefix_entry = lower.iter().map(|p| lower.iter().any(|q| q.len() < p.len() && p.starts_with(q.as_str()))).collect();
        Lexicon { ac, ac_all, has_prefix_entry, entries, units, scales, stopwords, if_whether }
    }

    /// Is the word with this hash (of its lower-cased form) a stopword?
    pub fn is_stopword(&self, hash: u64) -> bool {
        let h = hash | 1;
        let mask = self.stopwords.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            match self.stopwords[i] {
                0 => return false,
                x if x == h => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// True when a match at `start..end` of entry `entry` sits on word
    /// boundaries (suffix entries need only the right one).
    fn on_boundaries(&self, text: &str, entry: usize, start: usize, end: usize) -> bool {
        text.is_char_boundary(start)
            && text.is_char_boundary(end)
            && (self.entries[entry].suffix || !is_word_char_before(text, start))
            && !is_word_char_at(text, end)
    }

    /// One leftmost-longest pass over `text`, word boundaries checked; a
    /// false friend wins over the cues it covers and is then dropped.
    ///
    /// When the leftmost-longest match fails its boundary check ("no" inside
    /// "know"), the shorter entries starting at the same byte are tried
    /// (overlapping search over that match only) and the pass goes on from
    /// the next byte, so a failed long entry never hides a shorter one.
    pub fn scan(&self, text: &str) -> Vec<Hit> {
        let mut out: Vec<Hit> = Vec::with_capacity(text.len() / 16 + 4);
        let mut pos = 0usize;
        while pos < text.len() {
            let Some(m) = self.ac.find(Input::new(text).span(pos..text.len())) else { break };
            let (s, e, id) = (m.start(), m.end(), m.pattern().as_usize());
            if self.on_boundaries(text, id, s, e) {
                out.push(Hit { entry: id, start: s, end: e });
                pos = e;
                continue;
            }
            let mut best: Option<Hit> = None;
            // most entries have no shorter entry as a prefix ("so" in
            // "also"): then nothing else can start here and the fallback
            // search is skipped
            if self.has_prefix_entry[id] {
                for o in self.ac_all.find_overlapping_iter(Input::new(text).span(s..e)) {
                    let oid = o.pattern().as_usize();
                    if o.start() == s && self.on_boundaries(text, oid, s, o.end()) && best.is_none_or(|b| o.end() > b.end) {
                        best = Some(Hit { entry: oid, start: s, end: o.end() });
                    }
                }
            }
            match best {
                Some(h) => {
                    out.push(h);
                    pos = h.end;
                }
                None => {
                    pos = s + 1;
                    while pos < text.len() && !text.is_char_boundary(pos) {
                        pos += 1;
                    }
                }
            }
        }
        out.retain(|h| self.entries[h.entry].kind != Kind::FalseFriend);
        out
    }
}

/// True when the char ending at byte `i` is alphanumeric (a word continues
/// to the left).
pub fn is_word_char_before(text: &str, i: usize) -> bool {
    text[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// True when the char starting at byte `i` is alphanumeric.
pub fn is_word_char_at(text: &str, i: usize) -> bool {
    text[i..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// The canonical unit or currency (`USD`, `EUR`, `KM`, `PERCENT`, ...) of a
/// unit word as the number scanner reads it (`lexicons/units.txt`), any case;
/// `None` when the word is not a unit. Lets other crates read units from the
/// same list as the gate.
pub fn unit_canonical(word: &str) -> Option<&'static str> {
    Lexicon::get().units.get(&word.to_lowercase()).map(String::as_str)
}

/// Every pattern string of the automaton (for the throughput baseline: one
/// pass of all terms).
pub fn all_terms() -> Vec<String> {
    let mut out = Vec::new();
    for name in ["negation", "hedge", "attribution", "condition", "temporal", "false_friends", "totals", "derivations"] {
        for g in parse_groups(file(name)) {
            for f in g {
                out.push(f.trim_start_matches('-').to_string());
            }
        }
    }
    out
}
