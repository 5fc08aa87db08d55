//! The index's own tokenizer (`porter unicode61 remove_diacritics 2`,
//! [`crate::index::TOKENIZER`]) restated in Rust for ASCII text, so a query
//! term's stems are known without handing the term to SQLite.
//!
//! This is not amem's stemmer (`amem_text::words::stem`, Snowball English):
//! it is the one the index was built with, the original Porter algorithm as
//! SQLite's FTS5 `porter` tokenizer applies it, with its limits (tokens
//! shorter than 3 or longer than 64 bytes are kept whole). Search needs the
//! stems FTS5 wrote into the index, bit for bit, so it lives beside the
//! index and is proven equal to FTS5 over whole vocabularies
//! (`tests::rust_stems_equal_fts5`). Text with any non-ASCII byte is not
//! handled here ([`fts5_stems`] answers `None`): unicode61's case folding
//! and diacritic removal stay SQLite's.

/// The stems FTS5 makes of `text`, in order (one per token: runs of ASCII
/// letters and digits, lowercased, each stemmed), or `None` when `text`
/// holds a non-ASCII byte.
pub(crate) fn fts5_stems(text: &str) -> Option<Vec<String>> {
    if !text.is_ascii() {
        return None;
    }
    let mut out = Vec::new();
    let mut buf: Vec<u8> = Vec::with_capacity(16);
    for token in text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|t| !t.is_empty()) {
        buf.clear();
        buf.extend(token.bytes().map(|b| b.to_ascii_lowercase()));
        stem_token(&mut buf);
        // ASCII in, ASCII out: the stem is the token's bytes cut and
        // rewritten with ASCII letters.
        out.push(String::from_utf8(buf.clone()).ok()?);
    }
    Some(out)
}

/// A vowel, `y` counting as one when `y_is_vowel` (after a consonant, in
/// Porter's definition).
fn vowel(c: u8, y_is_vowel: bool) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u') || (y_is_vowel && c == b'y')
}

/// Past one vowel run and one consonant after it (a `VC` of Porter's
/// measure), starting after a consonant when `after_consonant`: the index
/// just past that consonant, or `None` when the stem has no such pair.
fn past_vc(stem: &[u8], after_consonant: bool) -> Option<usize> {
    let mut consonant = after_consonant;
    let mut i = 0;
    while i < stem.len() {
        consonant = !vowel(stem[i], consonant);
        if !consonant {
            break;
        }
        i += 1;
    }
    i += 1;
    while i < stem.len() {
        consonant = !vowel(stem[i], consonant);
        if consonant {
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// Porter's measure m > 0.
fn m_gt0(stem: &[u8]) -> bool {
    past_vc(stem, false).is_some()
}

/// m > 1.
fn m_gt1(stem: &[u8]) -> bool {
    past_vc(stem, false).is_some_and(|n| past_vc(&stem[n..], true).is_some())
}

/// m = 1.
fn m_eq1(stem: &[u8]) -> bool {
    past_vc(stem, false).is_some_and(|n| past_vc(&stem[n..], true).is_none())
}

/// `*o`: the stem ends consonant, vowel, consonant, the last not w, x or y.
fn cvc(stem: &[u8]) -> bool {
    match stem.last() {
        None | Some(b'w' | b'x' | b'y') => false,
        Some(_) => {
            let mut mask = 0u8;
            let mut consonant = false;
            for &c in stem {
                consonant = !vowel(c, consonant);
                mask = ((mask << 1) | u8::from(consonant)) & 0b111;
            }
            mask == 0b101
        }
    }
}

/// `*v*`: the stem holds a vowel (`y` counts anywhere but first).
fn has_vowel(stem: &[u8]) -> bool {
    stem.iter().enumerate().any(|(i, &c)| vowel(c, i > 0))
}

/// What a rule asks of the stem left once its suffix is cut.
#[derive(Clone, Copy)]
enum Cond {
    None,
    MGt0,
    MGt1,
    /// m > 1 and the stem ends in `s` or `t`.
    MGt1ST,
    Vowel,
}

impl Cond {
    fn holds(self, stem: &[u8]) -> bool {
        match self {
            Cond::None => true,
            Cond::MGt0 => m_gt0(stem),
            Cond::MGt1 => m_gt1(stem),
            Cond::MGt1ST => matches!(stem.last(), Some(b's' | b't')) && m_gt1(stem),
            Cond::Vowel => has_vowel(stem),
        }
    }
}

/// One rule: a suffix, what replaces it, and the condition on the stem.
type Rule = (&'static str, &'static str, Cond);

/// Step 1b: -eed (not a removal: 1b's second part does not follow it),
/// then the removals.
const STEP_1B_EED: &[Rule] = &[("eed", "ee", Cond::MGt0)];
const STEP_1B: &[Rule] = &[("ed", "", Cond::Vowel), ("ing", "", Cond::Vowel)];
const STEP_1B2: &[Rule] = &[("at", "ate", Cond::None), ("bl", "ble", Cond::None), ("iz", "ize", Cond::None)];
const STEP_2: &[Rule] = &[
    ("ational", "ate", Cond::MGt0),
    ("tional", "tion", Cond::MGt0),
    ("enci", "ence", Cond::MGt0),
    ("anci", "ance", Cond::MGt0),
    ("izer", "ize", Cond::MGt0),
    ("logi", "log", Cond::MGt0),
    ("bli", "ble", Cond::MGt0),
    ("alli", "al", Cond::MGt0),
    ("entli", "ent", Cond::MGt0),
    ("eli", "e", Cond::MGt0),
    ("ousli", "ous", Cond::MGt0),
    ("ization", "ize", Cond::MGt0),
    ("ation", "ate", Cond::MGt0),
    ("ator", "ate", Cond::MGt0),
    ("alism", "al", Cond::MGt0),
    ("iveness", "ive", Cond::MGt0),
    ("fulness", "ful", Cond::MGt0),
    ("ousness", "ous", Cond::MGt0),
    ("aliti", "al", Cond::MGt0),
    ("iviti", "ive", Cond::MGt0),
    ("biliti", "ble", Cond::MGt0),
];
const STEP_3: &[Rule] = &[
    ("ical", "ic", Cond::MGt0),
    ("ness", "", Cond::MGt0),
    ("icate", "ic", Cond::MGt0),
    ("iciti", "ic", Cond::MGt0),
    ("ful", "", Cond::MGt0),
    ("ative", "", Cond::MGt0),
    ("alize", "al", Cond::MGt0),
];
const STEP_4: &[Rule] = &[
    ("al", "", Cond::MGt1),
    ("ance", "", Cond::MGt1),
    ("ence", "", Cond::MGt1),
    ("er", "", Cond::MGt1),
    ("ic", "", Cond::MGt1),
    ("able", "", Cond::MGt1),
    ("ible", "", Cond::MGt1),
    ("ant", "", Cond::MGt1),
    ("ement", "", Cond::MGt1),
    ("ment", "", Cond::MGt1),
    ("ent", "", Cond::MGt1),
    ("ion", "", Cond::MGt1ST),
    ("ou", "", Cond::MGt1),
    ("ism", "", Cond::MGt1),
    ("ate", "", Cond::MGt1),
    ("iti", "", Cond::MGt1),
    ("ous", "", Cond::MGt1),
    ("ive", "", Cond::MGt1),
    ("ize", "", Cond::MGt1),
];

/// Apply the first rule of `rules` whose suffix ends `w` with at least one
/// byte before it (a later rule is not tried when that one's condition
/// fails, as in FTS5). Whether a rule's replacement was made.
fn apply(w: &mut Vec<u8>, rules: &[Rule]) -> bool {
    let Some(&(suffix, with, cond)) = rules.iter().find(|(s, _, _)| w.len() > s.len() && w.ends_with(s.as_bytes())) else {
        return false;
    };
    let stem = w.len() - suffix.len();
    if !cond.holds(&w[..stem]) {
        return false;
    }
    w.truncate(stem);
    w.extend_from_slice(with.as_bytes());
    true
}

/// Stem one lowercased ASCII token in place.
fn stem_token(w: &mut Vec<u8>) {
    if w.len() < 3 || w.len() > 64 {
        return;
    }
    // Step 1a: plurals.
    let n = w.len();
    if w[n - 1] == b's' {
        if w[n - 2] == b'e' {
            let cut = if (n > 4 && w[n - 4] == b's' && w[n - 3] == b's') || (n > 3 && w[n - 3] == b'i') { 2 } else { 1 };
            w.truncate(n - cut);
        } else if w[n - 2] != b's' {
            w.truncate(n - 1);
        }
    }
    // Step 1b: -ed, -ing (a removal then tidies the stem's end).
    let removed = if w.len() > 3 && w.ends_with(b"eed") {
        // -eed becomes -ee (or stays): not a removal, and -ed is not tried.
        apply(w, STEP_1B_EED);
        false
    } else {
        apply(w, STEP_1B)
    };
    if removed && !apply(w, STEP_1B2) {
        let n = w.len();
        let c = w[n - 1];
        if n >= 2 && !vowel(c, false) && !matches!(c, b'l' | b's' | b'z') && c == w[n - 2] {
            w.truncate(n - 1);
        } else if m_eq1(w) && cvc(w) {
            w.push(b'e');
        }
    }
    // Step 1c.
    let n = w.len();
    if w[n - 1] == b'y' && has_vowel(&w[..n - 1]) {
        w[n - 1] = b'i';
    }
    apply(w, STEP_2);
    apply(w, STEP_3);
    apply(w, STEP_4);
    // Step 5a.
    let n = w.len();
    if w[n - 1] == b'e' {
        let stem = &w[..n - 1];
        if m_gt1(stem) || (m_eq1(stem) && !cvc(stem)) {
            w.truncate(n - 1);
        }
    }
    // Step 5b.
    let n = w.len();
    if n > 1 && w[n - 1] == b'l' && w[n - 2] == b'l' && m_gt1(&w[..n - 1]) {
        w.truncate(n - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::FtsIndex;
    use std::collections::BTreeSet;

    /// Every text's stems from [`fts5_stems`] and from SQLite's tokenizer
    /// (the index's own), compared; the texts that differ.
    fn differing(ix: &FtsIndex, texts: &BTreeSet<String>) -> Vec<(String, Vec<String>, Vec<String>)> {
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut bad = Vec::new();
        for batch in texts.chunks(5_000) {
            let by_sqlite = ix.fts5_stems(batch).unwrap();
            for (t, want) in batch.iter().zip(by_sqlite) {
                let got = fts5_stems(t).expect("ASCII text is stemmed");
                if got != want {
                    bad.push((t.to_string(), got, want));
                }
            }
        }
        bad
    }

    /// Words built to reach every rule: short stems of every shape
    /// (vowels, `y` after vowels and consonants, doubled letters) with every
    /// suffix the steps know, digits, and the length limits.
    fn generated() -> BTreeSet<String> {
        let letters = ["a", "e", "i", "o", "u", "y", "b", "l", "s", "t", "z", "w", "x", "c", "n", "r"];
        let mut stems: Vec<String> = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = stems.iter().flat_map(|s| letters.iter().map(move |l| format!("{s}{l}"))).collect();
            stems.extend(longer);
        }
        stems.sort();
        stems.dedup();
        let suffixes = [
            "", "s", "es", "ies", "sses", "ss", "ed", "eed", "ing", "ation", "ational", "tional", "enci", "anci", "izer", "logi", "bli",
            "alli", "entli", "eli", "ousli", "ization", "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti", "biliti",
            "ical", "ness", "icate", "iciti", "ful", "ative", "alize", "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement",
            "ment", "ent", "sion", "tion", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "e", "ll", "y", "at", "bl", "iz", "ying",
            "ied", "tted", "lled", "zzing", "hopping", "filing",
        ];
        let mut out = BTreeSet::new();
        for s in &stems {
            for x in suffixes {
                out.insert(format!("{s}{x}"));
            }
        }
        for s in ["1990s", "3.5", "1,200.5", "U.S.", "don't", "e-mail", "ASCII_text", "x2y", "A", "", "  ", "--", "Caps Lock"] {
            out.insert(s.to_string());
        }
        out.insert("a".repeat(64) + "tion");
        out.insert("b".repeat(60) + "ness");
        out.insert("c".repeat(61) + "ness");
        out
    }

    /// Every ASCII word and whitespace-separated piece (punctuation kept:
    /// the tokenizing is compared too) of the texts under `dir`.
    fn vocabulary_of_files(dir: &std::path::Path, out: &mut BTreeSet<String>) -> usize {
        let mut files = 0;
        let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                files += vocabulary_of_files(&p, out);
            } else if let Ok(text) = std::fs::read_to_string(&p) {
                files += 1;
                vocabulary_of(&text, out);
            }
        }
        files
    }

    fn vocabulary_of(text: &str, out: &mut BTreeSet<String>) {
        for piece in text.split_whitespace().filter(|p| p.is_ascii() && p.len() <= 80) {
            out.insert(piece.to_string());
            for w in piece.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
                out.insert(w.to_string());
            }
        }
    }

    /// The Rust stems are FTS5's, text for text: over generated words that
    /// reach every rule, over the whole vocabulary of the shared dev halves
    /// (`../shared/eval`: claims and evidence of several domains), and,
    /// when `AMEM_PORTER_CHECK_HOME` names an amem home, over every word of
    /// its indexed wiki's chunks (run that way on the Enron bench wiki).
    #[test]
    fn rust_stems_equal_fts5() {
        let ix = FtsIndex::open_in_memory().unwrap();
        let built = generated();
        assert!(built.len() > 300_000, "{}", built.len());
        let bad = differing(&ix, &built);
        assert!(bad.is_empty(), "{} of {} generated texts differ, first: {:?}", bad.len(), built.len(), &bad[..bad.len().min(20)]);
        let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/eval");
        let mut words = BTreeSet::new();
        let files = vocabulary_of_files(&shared, &mut words);
        if files == 0 {
            println!("SKIPPED: ../shared/eval is absent");
        } else {
            let bad = differing(&ix, &words);
            assert!(bad.is_empty(), "{} of {} texts differ, first: {:?}", bad.len(), words.len(), &bad[..bad.len().min(20)]);
            println!("{} texts of {files} files under ../shared/eval stem as FTS5 stems them", words.len());
        }
        if let Some(home) = std::env::var_os("AMEM_PORTER_CHECK_HOME") {
            let c = rusqlite::Connection::open_with_flags(
                std::path::Path::new(&home).join("ledger.sqlite"),
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            )
            .unwrap();
            let mut words = BTreeSet::new();
            let mut st = c.prepare("SELECT text FROM wiki_chunks").unwrap();
            let mut rows = st.query([]).unwrap();
            while let Some(r) = rows.next().unwrap() {
                vocabulary_of(r.get_ref(0).unwrap().as_str().unwrap(), &mut words);
            }
            let bad = differing(&ix, &words);
            assert!(bad.is_empty(), "{} of {} wiki texts differ, first: {:?}", bad.len(), words.len(), &bad[..bad.len().min(20)]);
            println!("{} texts of the wiki's chunks stem as FTS5 stems them", words.len());
        }
        assert_eq!(fts5_stems("Caf\u{e9}"), None, "non-ASCII text is left to SQLite");
    }
}
