//! The word lists (data files under `lexicons/`, compiled in) and the one
//! aho-corasick automaton built over all of them.
//!
//! Every stance class, the false friends, the total and derivation words go
//! into a single automaton, so a text is scanned once ([`Lexicon::scan`]).
//! Units, scales, stopwords and the "if means whether" verbs are small
//! look-up sets used by the number scanner and the tokenizer.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use amem_model::CueClass;
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
pub(crate) enum Kind {
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
pub(crate) struct Entry {
    pub kind: Kind,
    /// `<file>:<first form>`, e.g. `attribution:say`.
    pub rule: String,
    /// A suffix entry (`-n't`): no word boundary required on the left.
    pub suffix: bool,
}

/// A raw match of one entry, already word-boundary checked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    pub entry: usize,
    pub start: usize,
    pub end: usize,
}

/// The compiled lexicon.
pub(crate) struct Lexicon {
    ac: AhoCorasick,
    pub entries: Vec<Entry>,
    /// Lower-cased unit surface forms → canonical unit.
    pub units: HashMap<String, String>,
    /// Lower-cased scale words → multiplier.
    pub scales: HashMap<String, f64>,
    pub stopwords: HashSet<String>,
    /// Lower-cased single words after which "if" means "whether".
    pub if_whether: HashSet<String>,
}

/// Parse a lexicon file into groups of forms (one group per line). Forms are
/// lower-cased; comments and blank lines skipped.
pub(crate) fn parse_groups(text: &str) -> Vec<Vec<String>> {
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
    pub(crate) fn get() -> &'static Lexicon {
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
        // Standard semantics + overlapping iteration: every entry that
        // matches is seen, then the longest non-overlapping ones are kept
        // (see `resolve`), so a failed word-boundary check on a long entry
        // never hides a shorter one.
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&patterns)
            .expect("invariant: lexicon patterns are plain non-empty strings");
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
        let stopwords = parse_groups(file("stopwords")).into_iter().flatten().collect();
        let if_whether = parse_groups(file("if_whether")).into_iter().flatten().collect();
        Lexicon { ac, entries, units, scales, stopwords, if_whether }
    }

    /// All word-boundary-checked matches in `text`, overlapping, in one pass.
    pub(crate) fn raw_hits(&self, text: &str) -> Vec<Hit> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        for m in self.ac.find_overlapping_iter(text) {
            let e = &self.entries[m.pattern().as_usize()];
            let (s, t) = (m.start(), m.end());
            // ASCII case-insensitive matching of ASCII patterns always lands
            // on char boundaries, but a non-ASCII pattern (n’t) is matched
            // byte-exact, so it does too.
            if !text.is_char_boundary(s) || !text.is_char_boundary(t) {
                continue;
            }
            let left_ok = e.suffix || !is_word_char_before(text, s);
            let right_ok = !is_word_char_at(text, t);
            if left_ok && right_ok && s < t && t <= bytes.len() {
                out.push(Hit { entry: m.pattern().as_usize(), start: s, end: t });
            }
        }
        out
    }

    /// One pass, then overlaps resolved: longest match first, earlier
    /// first on ties; false friends win over the cues they cover and are
    /// then dropped.
    pub(crate) fn scan(&self, text: &str) -> Vec<Hit> {
        resolve(self, self.raw_hits(text))
    }
}

fn resolve(lex: &Lexicon, mut hits: Vec<Hit>) -> Vec<Hit> {
    hits.sort_by(|a, b| (b.end - b.start).cmp(&(a.end - a.start)).then(a.start.cmp(&b.start)));
    let mut kept: Vec<Hit> = Vec::with_capacity(hits.len());
    for h in hits {
        if kept.iter().all(|k| k.end <= h.start || h.end <= k.start) {
            kept.push(h);
        }
    }
    kept.retain(|h| lex.entries[h.entry].kind != Kind::FalseFriend);
    kept.sort_by_key(|h| (h.start, h.end));
    kept
}

/// True when the char ending at byte `i` is alphanumeric (a word continues
/// to the left).
pub(crate) fn is_word_char_before(text: &str, i: usize) -> bool {
    text[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// True when the char starting at byte `i` is alphanumeric.
pub(crate) fn is_word_char_at(text: &str, i: usize) -> bool {
    text[i..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_')
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
