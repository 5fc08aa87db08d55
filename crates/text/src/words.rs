//! Words of a text: the word iterator, the one stemmer, the fast word hash,
//! content words and clauses. The gate, the verifier and recall's cited span
//! read words through these functions.

use crate::lexicon::Lexicon;
use amem_records::Span;
use compact_str::CompactString;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::sync::OnceLock;

/// A content word, as a 64-bit hash of its lower-cased stem: the
/// alignment compares sets of these (no string allocation per word;
/// collisions among a few dozen words of two sentences are negligible).
pub type WordHash = u64;

/// A fast 64-bit word hash, eight bytes at a time (multiply-rotate in the
/// style of FxHash, with the length folded in). Not for adversarial input:
/// a collision can only make two different words count as shared.
pub fn word_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // assembled in a register: a copy into a stack buffer costs a
        // memcpy call and a store-forwarding stall per word
        let v = rest.iter().enumerate().fold(0u64, |v, (k, b)| v | (u64::from(*b) << (8 * k)));
        h = (h.rotate_left(5) ^ v).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// [`word_hash`] of the ASCII lower-case form of a word made of ASCII
/// letters, digits and apostrophes, without copying it: bit 0x20 turns
/// `A-Z` into `a-z` and leaves digits and `'` as they are.
fn word_hash_ascii_lower(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    const LOWER: u64 = 0x2020_2020_2020_2020;
    let mut h: u64 = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ (u64::from_le_bytes(w) | LOWER)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let v = rest.iter().enumerate().fold(0u64, |v, (k, b)| v | (u64::from(*b | 0x20) << (8 * k)));
        h = (h.rotate_left(5) ^ v).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// A content word of a sentence: where it starts (bytes of the text), its
/// hash, and whether it lies inside a temporal cue ("Monday").
#[derive(Clone, Copy, Debug)]
pub struct WordAt {
    /// Byte where the word starts in the text.
    pub start: usize,
    /// Hash of its lower-cased stem.
    pub word: WordHash,
    /// The word lies inside a temporal cue.
    pub temporal: bool,
}

/// A marked span of a text that [`content_words`] reads around: a stance cue
/// (`crate::cues::CueAt`). Defined here, not taken from the cue module, so the
/// word reader sits below the cue reader (cues read words; words never read cues).
pub trait MarkedSpan {
    /// Its byte span in the text.
    fn span(&self) -> Span;
    /// True for a temporal cue: its words stay content words, marked temporal.
    fn is_temporal(&self) -> bool;
}

/// A plain span covers its words (what a non-temporal cue does).
impl MarkedSpan for Span {
    fn span(&self) -> Span {
        *self
    }
    fn is_temporal(&self) -> bool {
        false
    }
}

/// No marked spans: every word of the text is read.
pub const NO_MARKS: &[Span] = &[];

/// Content words of `text[start..end]` in text order: alphanumeric runs
/// (inner apostrophes kept) that are not stopwords and not covered by a
/// non-temporal cue of `cues` (sorted by span, spans in bytes of `text`),
/// stemmed and hashed; those inside a temporal cue are kept and marked.
pub fn content_words<C: MarkedSpan>(lex: &Lexicon, text: &str, start: usize, end: usize, cues: &[C]) -> Vec<WordAt> {
    // one borrow of this thread's stem cache for the whole text, not one per word
    STEMS
        .try_with(|c| c.try_borrow_mut().ok().map(|mut c| content_words_with(&mut c, lex, text, start, end, cues)))
        .ok()
        .flatten()
        .unwrap_or_else(|| content_words_with(&mut StemCache { slots: Vec::new(), transient: true }, lex, text, start, end, cues))
}

/// [`content_words`] with the stem cache to use.
fn content_words_with<C: MarkedSpan>(
    cache: &mut StemCache,
    lex: &Lexicon,
    text: &str,
    start: usize,
    end: usize,
    cues: &[C],
) -> Vec<WordAt> {
    let piece = &text[start..end];
    let mut out = Vec::with_capacity(piece.len() / 6 + 1);
    let (mut lower, mut stemmed) = (String::new(), String::new());
    // Spans are sorted and do not overlap, and tokens come in text order:
    // one cursor per span list moves forward only.
    // two cursors over the one cue list: one over the covering
    // (non-temporal) cues, one over the temporal ones
    let covers = |c: &C| !c.is_temporal();
    let (mut ci, mut ti) = (0usize, 0usize);
    let mut emit = |s: usize, e: usize, ascii: bool, lower: &mut String| {
        let (as_, ae) = (s + start, e + start);
        while cues.get(ci).is_some_and(|c| !covers(c) || c.span().end <= as_) {
            ci += 1;
        }
        if cues.get(ci).is_some_and(|c| c.span().start < ae) {
            return;
        }
        let w = &piece[s..e];
        let word = if ascii {
            // ASCII word characters (letters, digits, apostrophe) lower-case
            // by setting bit 0x20, so the hash and the cache probe read the
            // text in place; the lower-cased copy is made only to stem a word
            // the cache does not hold
            let lower_hash = word_hash_ascii_lower(w.as_bytes());
            if lex.is_stopword(lower_hash) {
                return;
            }
            match cache.get_ascii_any_case(w, lower_hash) {
                Some(e) => e.stem_hash,
                None => {
                    lower_into(w, lower);
                    cache.stem_hash(lower, lower_hash, &mut stemmed)
                }
            }
        } else {
            lower_into(w, lower);
            let lower_hash = word_hash(lower.as_bytes());
            if lex.is_stopword(lower_hash) {
                return;
            }
            cache.stem_hash(lower, lower_hash, &mut stemmed)
        };
        while cues.get(ti).is_some_and(|c| covers(c) || c.span().end <= as_) {
            ti += 1;
        }
        let in_temporal = cues.get(ti).is_some_and(|c| c.span().start < ae);
        out.push(WordAt { start: as_, word, temporal: in_temporal });
    };
    let mut i = 0usize;
    while let Some((s, e, ascii)) = crate::tokens::next_with_apostrophes(piece, i) {
        emit(s, e, ascii, &mut lower);
        i = e;
    }
    out
}

/// The sorted, deduplicated word set of some content words.
pub fn word_set(words: impl Iterator<Item = WordHash>) -> Vec<WordHash> {
    let mut v: Vec<WordHash> = words.collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Clause boundaries inside a sentence (byte offsets relative to the
/// sentence): commas, semicolons, colons, dashes and the coordinators
/// " but ", " while ", " whereas ", " although ". Used by the polarity check
/// to tell a dropped clause from a reversed one.
pub fn clauses(sentence: &str) -> Vec<(usize, usize)> {
    const COORDINATORS: &[&[u8]] = &[b"but", b"while", b"whereas", b"although", b"and"];
    let bytes = sentence.as_bytes();
    let mut out = Vec::new();
    // Cuts come in increasing order (a cut at byte i is at i + 1 or, after a
    // dash, i + 3, and the dash's other bytes cut nothing): each new cut
    // closes the clause since the last one.
    let mut last = 0usize;
    let mut cut = |at: usize, out: &mut Vec<(usize, usize)>| {
        if at > last {
            if !sentence[last..at].trim().is_empty() {
                out.push((last, at));
            }
            last = at;
        }
    };
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b',' | b';' | b':' => cut(i + 1, &mut out),
            // em dash and en dash (U+2014, U+2013)
            0xE2 if bytes.get(i + 1) == Some(&0x80) && matches!(bytes.get(i + 2), Some(0x93 | 0x94)) => cut(i + 3, &mut out),
            // " but " and the like: cut before the coordinator (most words
            // start with another letter: one test rules them out)
            b' ' if bytes.get(i + 1).is_some_and(|b| matches!(b.to_ascii_lowercase(), b'b' | b'w' | b'a')) => {
                let rest = &bytes[i + 1..];
                if COORDINATORS.iter().any(|w| rest.len() > w.len() && rest[..w.len()].eq_ignore_ascii_case(w) && rest[w.len()] == b' ') {
                    cut(i + 1, &mut out);
                }
            }
            _ => {}
        }
    }
    cut(sentence.len(), &mut out);
    out
}

/// One word of a text, as the verifier aligns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// Byte range in the text it was read from.
    pub range: Range<usize>,
    /// Lower-cased surface form (held inline up to 24 bytes, as every field of a word: most
    /// words of a text allocate nothing).
    pub lower: CompactString,
    /// Normalised stem used for alignment (see [`stem`]).
    pub stem: CompactString,
    /// True when the surface form starts with an upper-case letter.
    pub capitalised: bool,
    /// True when the word is a function word (see [`is_stopword`]).
    pub stop: bool,
    /// [`stem_key`] of `stem`: words whose keys differ never match.
    pub key: u64,
}

use crate::stopwords::FUNCTION_WORDS;

/// Words never used to decide whether two sentences talk about the same
/// thing: [`FUNCTION_WORDS`] plus `lexicons/alignment_stopwords.txt` (modals,
/// reflexives, the FEVER bracket escapes, the stems of contracted negations).
pub fn is_stopword(lower: &str) -> bool {
    // A set, not a scan of the list: this runs for every word of every evidence sentence.
    static SET: OnceLock<HashSet<&'static str, FastHash>> = OnceLock::new();
    SET.get_or_init(|| FUNCTION_WORDS.iter().copied().chain(crate::stopwords::ALIGNMENT_STOPWORDS.iter().copied()).collect())
        .contains(lower)
}

fn irregular(lower: &str) -> Option<&'static str> {
    // Most words can be ruled out by their first byte and length before any hashing.
    static SHAPES: OnceLock<[u16; 256]> = OnceLock::new();
    let shapes = SHAPES.get_or_init(|| {
        let mut t = [0u16; 256];
        for (w, _) in IRREGULAR.iter() {
            if let Some(&b) = w.as_bytes().first() {
                t[usize::from(b)] |= 1 << w.len().min(15);
            }
        }
        t
    });
    let &first = lower.as_bytes().first()?;
    if lower.len() > 15 || shapes[usize::from(first)] & (1 << lower.len()) == 0 {
        return None;
    }
    static MAP: OnceLock<HashMap<&'static str, &'static str, FastHash>> = OnceLock::new();
    MAP.get_or_init(|| IRREGULAR.iter().copied().collect()).get(lower).copied()
}

/// The hasher of in-memory word tables (the verifier's word lists and
/// evidence cache, the extractor's word sets): [`word_hash`] folded into the
/// state. The keys are amem's own strings, not chosen by an adversary to
/// collide, and a collision costs time, never a wrong answer.
pub type FastHash = BuildHasherDefault<FastHasher>;

/// See [`FastHash`].
#[derive(Default)]
pub struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = (self.0.rotate_left(5) ^ word_hash(bytes)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// What lies between a position and its neighbouring word: [`word_before`], [`word_after`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gap {
    /// Spaces and tabs only: a line break ends the search (a value's unit is on its line).
    Blanks,
    /// Any whitespace, line breaks too.
    Whitespace,
}

impl Gap {
    fn skips(self, c: char) -> bool {
        match self {
            Gap::Blanks => c == ' ' || c == '\t',
            Gap::Whitespace => c.is_whitespace(),
        }
    }
}

/// The word ending right before byte `at`, `gap` skipped: the longest run of `is_word`
/// characters there, as written; empty when there is none. The one neighbour-word reader of
/// the text layer (cue conditions, month names beside numbers).
pub fn word_before(text: &str, at: usize, is_word: impl Fn(char) -> bool, gap: Gap) -> &str {
    let before = text[..at].trim_end_matches(|c| gap.skips(c));
    let len: usize = before.chars().rev().take_while(|&c| is_word(c)).map(char::len_utf8).sum();
    &before[before.len() - len..]
}

/// The word starting right after byte `at`, `gap` skipped: the longest run of `is_word`
/// characters there, as written; empty when there is none.
pub fn word_after(text: &str, at: usize, is_word: impl Fn(char) -> bool, gap: Gap) -> &str {
    let after = text[at..].trim_start_matches(|c| gap.skips(c));
    let len: usize = after.chars().take_while(|&c| is_word(c)).map(char::len_utf8).sum();
    &after[..len]
}

/// Byte ranges of the words of `text`: runs of letters and digits (hyphens and apostrophes split
/// words), the one tokenizer's [`WordRule::Alphanumeric`](crate::tokens::WordRule). Every evidence
/// word of the verifier is read through here, most of them ASCII.
pub fn word_ranges(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    crate::tokens::word_spans(text, crate::tokens::WordRule::Alphanumeric)
}

/// [`word_ranges`] as it was written over `char_indices`: the reference its tests hold it to.
#[cfg(test)]
fn word_ranges_by_chars(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut chars = text.char_indices();
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut start: Option<usize> = None;
        for (i, c) in chars.by_ref() {
            if c.is_alphanumeric() {
                if start.is_none() {
                    start = Some(i);
                }
            } else if let Some(s) = start {
                return Some(s..i);
            }
        }
        done = true;
        start.map(|s| s..text.len())
    })
}

/// The words of `text` (letters and digits; hyphens and apostrophes split words),
/// with byte ranges relative to `text`.
pub fn words(text: &str) -> Vec<Word> {
    // One borrow of the stem cache for the whole text; a probe gives stem and stopword flag.
    with_stem_reader(|reader| {
        let mut lower = String::new();
        word_ranges(text)
            .map(|r| {
                lower_into(&text[r.clone()], &mut lower);
                let (stem, stopword) = reader.read(&lower);
                word_with_stem(text, r, &lower, stem, stopword)
            })
            .collect()
    })
}

/// One word read on its own, as [`words`] read them before it borrowed the stem cache once
/// per text: the reference its tests hold it to.
#[cfg(test)]
fn make_word(text: &str, range: Range<usize>) -> Word {
    let mut lower = String::new();
    lower_into(&text[range.clone()], &mut lower);
    let stem = stem(&lower);
    let stopword = is_stopword(&lower);
    word_with_stem(text, range, &lower, &stem, stopword)
}

/// The [`Word`] of `text[range]` when its lower-cased form, [`stem`] and [`is_stopword`] are
/// already known (a caller that read them for every word of a text): what [`words`] gives
/// for that word, without stemming it again.
pub fn word_with_stem(text: &str, range: Range<usize>, lower: &str, stem: &str, stopword: bool) -> Word {
    let surface = &text[range.clone()];
    let stop = stopword || lower.chars().all(|c| c.is_ascii_digit());
    Word {
        range,
        key: stem_key(stem),
        stem: CompactString::new(stem),
        capitalised: surface.chars().next().is_some_and(|c| c.is_uppercase()),
        stop,
        lower: CompactString::new(lower),
    }
}

/// `surface.to_lowercase()` written into `out` (cleared first), without allocating for ASCII text.
pub fn lower_into(surface: &str, out: &mut String) {
    out.clear();
    if surface.is_ascii() {
        out.push_str(surface);
        out.make_ascii_lowercase();
    } else {
        out.push_str(&surface.to_lowercase());
    }
}

/// The one stemmer: a possessive dropped, the irregular forms below mapped
/// to their lemma, then Snowball English (Porter2, the `rust-stemmers`
/// crate; the same family as the FTS5 `porter` tokenizer of the index) on
/// ASCII words. Non-ASCII words are kept whole. Both sides of every
/// comparison go through it ("infected", "infects" → "infect"; "vaccines",
/// "vaccination" → "vaccin").
///
/// Chosen by measure (docs/adr/0002-text-layer.md): against the verifier's
/// own suffix stripper it kept by the text layer's first move, on the dev
/// halves macro-F1 climate_fever 28.9 → 29.1, covid_fact 14.0 → 14.3, wice
/// 43.1 → 43.9, fever_symmetric 37.4 → 37.3, healthver and
/// climate_fever_claims unchanged.
pub fn stem(lower: &str) -> String {
    let mut w = String::new();
    stem_into(lower, &mut w);
    w
}

/// [`stem`] written into `w` (cleared first), so a caller can reuse one buffer.
pub fn stem_into(lower: &str, w: &mut String) {
    // `try_borrow`: inside a `with_stem_reader` the cache is lent out; stem without it then.
    let hit = STEMS
        .try_with(|c| {
            c.try_borrow().ok()?.get(lower, word_hash(lower.as_bytes())).map(|e| {
                w.clear();
                w.push_str(e.stem());
            })
        })
        .ok()
        .flatten();
    if hit.is_none() {
        stem_uncached(lower, w);
        let _ = STEMS.try_with(|c| c.try_borrow_mut().map(|mut c| c.put(lower, word_hash(lower.as_bytes()), w)));
    }
}

/// Reads the stems of many words through this thread's stem cache, borrowed once for all of
/// them (see [`with_stem_reader`]): one hash and one probe a word give its stem and whether it
/// is a function word.
pub struct StemReader<'c> {
    cache: &'c mut StemCache,
    stem: String,
}

impl StemReader<'_> {
    /// [`stem`] of `lower` (a lower-cased word) and [`is_stopword`] of it.
    pub fn read<'s>(&'s mut self, lower: &'s str) -> (&'s str, bool) {
        let hash = word_hash(lower.as_bytes());
        match self.cache.position(lower, hash) {
            Some(at) => {
                let e = &self.cache.slots[at];
                // Most stems are the word cut short ("reports" -> "report"): a slice of the word
                // given, read without checking the slot's bytes again.
                match lower.get(..usize::from(e.stem_len)).filter(|_| e.stem_is_prefix) {
                    Some(stem) => (stem, e.stopword),
                    None => (e.stem(), e.stopword),
                }
            }
            None => {
                stem_uncached(lower, &mut self.stem);
                self.cache.put(lower, hash, &self.stem);
                (&self.stem, is_stopword(lower))
            }
        }
    }
}

/// Run `f` with a [`StemReader`] over this thread's stem cache (a fresh one if this thread's
/// is in use or gone).
pub fn with_stem_reader<R>(f: impl FnOnce(&mut StemReader<'_>) -> R) -> R {
    let mut f = Some(f);
    let mut run = |cache: &mut StemCache| f.take().map(|f| f(&mut StemReader { cache, stem: String::new() }));
    let done = STEMS.try_with(|c| c.try_borrow_mut().ok().and_then(|mut c| run(&mut c))).ok().flatten();
    match done {
        Some(r) => r,
        // Not run yet: this thread's cache is borrowed or destroyed.
        None => run(&mut StemCache { slots: Vec::new(), transient: true })
            .unwrap_or_else(|| unreachable!("invariant: `f` runs once, here or above")),
    }
}

thread_local! {
    /// This thread's [`StemCache`] (a thread of its own each: no lock on the hot path).
    static STEMS: std::cell::RefCell<StemCache> = std::cell::RefCell::new(StemCache::default());
}

/// Longest word (and stem), in bytes, the stem cache holds; longer words are
/// stemmed every time.
const CACHED_LEN: usize = 22;

/// Slots of the stem cache (a power of two), in sets of two: 65,536 slots of 56 bytes, 3.7 MB
/// a thread that stems. An audit's evidence chunks bring a mail archive's whole vocabulary;
/// at 4,096 slots Snowball still ran for most words of a new chunk (`verify_costs` on the
/// Enron bench: 862k -> 739k instructions a claim at 32,768; at 65,536 Snowball's share of a
/// claim fell from 17,900 to 5,900 instructions, 463k -> 449k in all).
const CACHE_SLOTS: usize = 65536;

/// A two-way set-associative cache of [`stem`] by lower-cased word. Snowball walks its
/// suffix tables for every word it is given and was most of the gate's time
/// (`perf`: `find_among_b` and friends, 35% of a gate run), while text
/// repeats its words: the gate stems the same words for the source and the
/// memory, the verifier every evidence sentence of a claim. A slot keeps the
/// word itself and is used only on an exact match, so a cached stem is the
/// stem: the cache changes speed, never an answer.
#[derive(Default)]
struct StemCache {
    /// Empty until the first `put` (a thread that never stems allocates nothing).
    slots: Vec<CachedStem>,
    /// Never fills: the stand-in used while this thread's cache is in use (or gone), which
    /// would cost its 1.8 MB for a few words.
    transient: bool,
}

#[derive(Clone, Copy)]
struct CachedStem {
    /// Length of `word`; 0 marks an empty slot (the empty word is never cached).
    word_len: u8,
    stem_len: u8,
    word: [u8; CACHED_LEN],
    stem: [u8; CACHED_LEN],
    /// [`word_hash`] of the stem.
    stem_hash: u64,
    /// [`is_stopword`] of the word.
    stopword: bool,
    /// The stem is the first `stem_len` bytes of the word.
    stem_is_prefix: bool,
}

impl CachedStem {
    const EMPTY: CachedStem = CachedStem {
        word_len: 0,
        stem_len: 0,
        word: [0; CACHED_LEN],
        stem: [0; CACHED_LEN],
        stem_hash: 0,
        stopword: false,
        stem_is_prefix: false,
    };

    fn stem(&self) -> &str {
        // only ever filled from a `&str` of exactly these bytes (see `put`)
        std::str::from_utf8(&self.stem[..usize::from(self.stem_len)]).unwrap_or("")
    }
}

impl StemCache {
    /// The first of the two slots (a set) where a word with this hash may sit.
    fn set(hash: u64) -> usize {
        // the high bits of a Fibonacci multiply: the word hash's low bits
        // alone mix less
        let sets = CACHE_SLOTS / 2;
        2 * (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - sets.trailing_zeros())) as usize
    }

    /// The slot of `hash`'s set whose word `same` accepts.
    fn find(&self, hash: u64, len: usize, same: impl Fn(&[u8]) -> bool) -> Option<&CachedStem> {
        let set = self.slots.get(Self::set(hash)..Self::set(hash) + 2)?;
        set.iter().find(|e| usize::from(e.word_len) == len && len > 0 && same(&e.word[..len]))
    }

    fn get(&self, word: &str, hash: u64) -> Option<&CachedStem> {
        self.find(hash, word.len(), |w| w == word.as_bytes())
    }

    /// Where [`StemCache::get`] finds `word`, as an index into `slots`.
    fn position(&self, word: &str, hash: u64) -> Option<usize> {
        let set = Self::set(hash);
        let len = word.len();
        let slots = self.slots.get(set..set + 2)?;
        slots.iter().position(|e| usize::from(e.word_len) == len && len > 0 && &e.word[..len] == word.as_bytes()).map(|i| set + i)
    }

    /// [`StemCache::get`] for an ASCII word in any case: the slot's word is
    /// lower-case, so an ASCII case-insensitive match is the lower-cased word.
    fn get_ascii_any_case(&self, word: &str, lower_hash: u64) -> Option<&CachedStem> {
        self.find(lower_hash, word.len(), |w| w.eq_ignore_ascii_case(word.as_bytes()))
    }

    /// [`word_hash`] of [`stem`]`(lower)`, where `lower_hash` is [`word_hash`]
    /// of `lower` (the gate's content words have it already, for the
    /// stopword probe); `scratch` holds the stem when it has to be computed.
    fn stem_hash(&mut self, lower: &str, lower_hash: u64, scratch: &mut String) -> WordHash {
        if let Some(e) = self.get(lower, lower_hash) {
            return e.stem_hash;
        }
        stem_uncached(lower, scratch);
        self.put(lower, lower_hash, scratch);
        word_hash(scratch.as_bytes())
    }

    fn put(&mut self, word: &str, hash: u64, stem: &str) {
        if word.is_empty() || word.len() > CACHED_LEN || stem.len() > CACHED_LEN || self.transient {
            return;
        }
        if self.slots.is_empty() {
            self.slots = vec![CachedStem::EMPTY; CACHE_SLOTS];
        }
        let mut e = CachedStem::EMPTY;
        e.word_len = word.len() as u8;
        e.word[..word.len()].copy_from_slice(word.as_bytes());
        e.stem_len = stem.len() as u8;
        e.stem[..stem.len()].copy_from_slice(stem.as_bytes());
        e.stem_hash = word_hash(stem.as_bytes());
        e.stopword = is_stopword(word);
        e.stem_is_prefix = word.as_bytes().starts_with(stem.as_bytes());
        // two ways a set: the newest word first, the one it displaces second
        // (two words of one text that share a set no longer evict each other)
        let set = Self::set(hash);
        self.slots[set + 1] = self.slots[set];
        self.slots[set] = e;
    }
}

/// [`stem_into`] without the cache.
fn stem_uncached(lower: &str, w: &mut String) {
    w.clear();
    // a possessive is its noun ("alice's" = "alice"); the word iterator of
    // the verifier splits at apostrophes and never hands one in
    let lower = lower.strip_suffix("'s").or_else(|| lower.strip_suffix("’s")).unwrap_or(lower);
    if let Some(lemma) = irregular(lower) {
        w.push_str(lemma);
        return;
    }
    // Non-ASCII words are kept whole; Snowball leaves words of one or two
    // letters and numbers as they are (its rules need three letters and
    // letter suffixes; the test `snowball_leaves_short_words_and_numbers`
    // pins it), so they skip the stemmer's tables.
    if !lower.is_ascii() || lower.len() <= 2 || lower.bytes().all(|b| b.is_ascii_digit()) || ends_past_snowball(lower) {
        w.push_str(lower);
        return;
    }
    static SNOWBALL: OnceLock<rust_stemmers::Stemmer> = OnceLock::new();
    w.push_str(&SNOWBALL.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English)).stem(lower));
}

/// True when Snowball English leaves the lower-case ASCII word as it is because
/// of its last byte. The algorithm changes a word only at its end (its
/// prelude's `Y` marks are undone by its postlude), by suffixes ending in an
/// apostrophe or in one of `c d e g i l m n r s t y` (steps 0 to 5 and both
/// exception lists), except that its prelude drops a leading apostrophe. A
/// quarter of the content words of the Enron sample end otherwise (digits,
/// "k", "o", "h", "p", "w", "x", ...). Pinned by the test
/// `snowball_leaves_words_ending_past_its_suffixes`.
fn ends_past_snowball(lower: &str) -> bool {
    !lower.starts_with('\'') && lower.bytes().last().is_some_and(|b| !b"cdegilmnrsty'".contains(&b))
}

/// Irregular English inflections (and the derivations "death"/"dead" of "die",
/// "birth" of "born") that no suffix rule (Snowball's included) joins to their lemma. A closed
/// class of the language, listed once, not tuned to any corpus; forms that are
/// also other words ("found", "left", "saw", "lead") are left out.
static IRREGULAR: crate::stopwords::WordPairs = crate::stopwords::WordPairs::new(crate::text_words::IRREGULAR);

/// A cheap necessary condition for [`stems_match`]: the stem's first five bytes (all of it
/// when shorter) and that count, packed into one integer. Two stems that match are equal or
/// share a prefix of at least five bytes, so their keys are equal; unequal keys rule a match
/// out with one integer comparison.
pub fn stem_key(stem: &str) -> u64 {
    let b = stem.as_bytes();
    let n = b.len().min(5);
    let mut key = n as u64;
    for &byte in &b[..n] {
        key = (key << 8) | u64::from(byte);
    }
    key
}

/// True when two stems name the same word: equal, or one a prefix (at least
/// five letters) of the other ("vaccin" / "vaccinat").
pub fn stems_match(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= 5 && long.starts_with(short)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbour_words_by_gap() {
        let t = "due  in\nMay 2024, so-called deal";
        let may = t.find("May").unwrap();
        assert_eq!(word_before(t, may, char::is_alphanumeric, Gap::Whitespace), "in");
        assert_eq!(word_before(t, may, char::is_alphanumeric, Gap::Blanks), "", "a line break ends the search");
        assert_eq!(word_after(t, may + 3, char::is_alphanumeric, Gap::Blanks), "2024");
        let called = t.find("called").unwrap();
        assert_eq!(word_before(t, called, char::is_alphanumeric, Gap::Whitespace), "", "punctuation is no gap");
        assert_eq!(word_after(t, t.len(), char::is_alphanumeric, Gap::Whitespace), "");
        assert_eq!(word_before(t, 0, char::is_alphanumeric, Gap::Whitespace), "");
    }

    /// [`clauses`] as it was written with a sorted list of cuts; the
    /// property test below holds the streaming version to it.
    fn clauses_by_sorted_cuts(sentence: &str) -> Vec<(usize, usize)> {
        const COORDINATORS: &[&[u8]] = &[b"but", b"while", b"whereas", b"although", b"and"];
        let bytes = sentence.as_bytes();
        let mut cuts = vec![0usize];
        for (i, &c) in bytes.iter().enumerate() {
            match c {
                b',' | b';' | b':' => cuts.push(i + 1),
                0xE2 if bytes.get(i + 1) == Some(&0x80) && matches!(bytes.get(i + 2), Some(0x93 | 0x94)) => cuts.push(i + 3),
                b' ' => {
                    let rest = &bytes[i + 1..];
                    for w in COORDINATORS {
                        if rest.len() > w.len() && rest[..w.len()].eq_ignore_ascii_case(w) && rest[w.len()] == b' ' {
                            cuts.push(i + 1);
                        }
                    }
                }
                _ => {}
            }
        }
        cuts.push(sentence.len());
        cuts.sort_unstable();
        cuts.dedup();
        cuts.windows(2).map(|w| (w[0], w[1])).filter(|&(a, b)| a < b && !sentence[a..b].trim().is_empty()).collect()
    }

    proptest::proptest! {
        #[test]
        fn word_ranges_agree_with_the_char_reading(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Zoë", "ß", "İ", "١٢", "x2", "'", "’", "-", " ", "\n", ".", "ǅ", "😀", "7", "Ⅻ", "\u{300}", "mañana", "東京", ",",
            ]), 0..24),
            raw in "\\PC{0,40}",
        ) {
            let t: String = parts.concat();
            for text in [t.as_str(), raw.as_str()] {
                let fast: Vec<Range<usize>> = word_ranges(text).collect();
                let slow: Vec<Range<usize>> = word_ranges_by_chars(text).collect();
                proptest::prop_assert_eq!(fast, slow, "{:?}", text);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn clauses_cut_as_the_sorted_cuts_did(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Bob", " ", ",", ";", ":", "\u{2014}", "\u{2013}", " but ", " And ", " while ", " whereas ", " although ", "but", "\u{e9}",
            ]), 0..20)
        ) {
            let t: String = parts.concat();
            proptest::prop_assert_eq!(clauses(&t), clauses_by_sorted_cuts(&t), "{:?}", t);
        }
    }

    /// The word loop as it was written before [`crate::tokens::next_with_apostrophes`]: byte by byte,
    /// a word open or not. The property test below holds the two to the same words.
    fn word_spans_byte_by_byte(piece: &str) -> Vec<(usize, usize)> {
        let bytes = piece.as_bytes();
        let mut out = Vec::new();
        let mut cur: Option<usize> = None;
        let mut i = 0usize;
        while i < bytes.len() {
            let b = bytes[i];
            let (is_word, len) = if b.is_ascii() {
                let inner_apos = b == b'\'' && cur.is_some() && bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric);
                (b.is_ascii_alphanumeric() || inner_apos, 1)
            } else {
                let c = piece[i..].chars().next().unwrap_or(' ');
                let l = c.len_utf8();
                let inner_apos = c == '’' && cur.is_some() && piece[i + l..].chars().next().is_some_and(char::is_alphanumeric);
                (c.is_alphanumeric() || inner_apos, l)
            };
            if is_word {
                if cur.is_none() {
                    cur = Some(i);
                }
            } else if let Some(s) = cur.take() {
                out.push((s, i));
            }
            i += len;
        }
        if let Some(s) = cur {
            out.push((s, piece.len()));
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn next_word_reads_the_words_of_the_byte_loop(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Bob", "it", "5", "'", "\u{2019}", " ", ".", ",", "-", "\u{e9}", "\u{c9}", "\u{1f389}", "\u{a0}", "\u{4e2d}",
                "\u{661}", "\u{2019}s", "n't", "_", "\t",
            ]), 0..24)
        ) {
            let t: String = parts.concat();
            let mut got = Vec::new();
            let mut i = 0;
            while let Some((s, e, ascii)) = crate::tokens::next_with_apostrophes(&t, i) {
                proptest::prop_assert_eq!(ascii, t[s..e].is_ascii());
                got.push((s, e));
                i = e;
            }
            proptest::prop_assert_eq!(got, word_spans_byte_by_byte(&t), "{:?}", t);
        }
    }

    #[test]
    fn stems_meet() {
        assert_eq!(stem("infected"), stem("infects"));
        assert_eq!(stem("caused"), stem("cause"));
        assert!(stems_match(&stem("vaccines"), &stem("vaccination")));
        assert_eq!(stem("studies"), stem("study"));
        assert!(!stems_match(&stem("cat"), &stem("catastrophe")));
    }

    #[test]
    fn words_have_ranges() {
        let t = "SARS-CoV-2 isn't new";
        let w = words(t);
        let surf: Vec<&str> = w.iter().map(|w| &t[w.range.clone()]).collect();
        assert_eq!(surf, vec!["SARS", "CoV", "2", "isn", "t", "new"]);
        assert!(w[0].capitalised && w[2].stop);
    }

    #[test]
    fn possessives_and_the_gate_inflections_meet() {
        assert_eq!(stem("alice's"), stem("alice"));
        assert_eq!(stem("promoted"), stem("promotes"));
        assert_eq!(stem("servers"), "server");
        assert_eq!(stem("access"), "access");
    }

    /// What [`StemReader`] and [`word_with_stem`] give is what [`stem`], [`is_stopword`] and
    /// [`words`] give, through the cache's hits, misses and evictions, and inside a reader
    /// (a nested reader works on a fresh cache).
    fn reader_agrees(text: &str) -> Result<(), String> {
        let reference: Vec<Word> = word_ranges(text).map(|r| make_word(text, r)).collect();
        if words(text) != reference {
            return Err(format!("words of {text:?} differ from one word at a time"));
        }
        with_stem_reader(|reader| {
            for (i, w) in words(text).into_iter().enumerate() {
                let (st, stop) = reader.read(&w.lower);
                let (st, stop) = (st.to_string(), stop);
                if st != stem(&w.lower) || stop != is_stopword(&w.lower) {
                    return Err(format!("{:?}: read {st:?} {stop}", w.lower));
                }
                let nested = if i < 50 { with_stem_reader(|inner| inner.read(&w.lower).0.to_string()) } else { w.stem.to_string() };
                let rebuilt = word_with_stem(text, w.range.clone(), &w.lower, &st, stop);
                if nested != w.stem || rebuilt != w {
                    return Err(format!("{w:?}: nested {nested:?}, rebuilt {rebuilt:?}"));
                }
            }
            Ok(())
        })
    }

    #[test]
    fn the_stem_reader_agrees_with_stem_and_words() {
        let text = "The Vaccines were given; children's teeth grew. It's the 2024 report by Zoë Ørsted, \
                    internationalisation-related antidisestablishmentarianism, THE the The.";
        reader_agrees(text).unwrap_or_else(|e| panic!("{e}"));
        // Enough distinct words to evict entries of the cache (two ways a set).
        let many: String = (0..20_000).map(|i| format!("word{i}s ")).collect();
        reader_agrees(&many).unwrap_or_else(|e| panic!("{e}"));
        reader_agrees(text).unwrap_or_else(|e| panic!("{e}"));
    }

    proptest::proptest! {
        #[test]
        fn the_stem_reader_agrees_on_any_text(text in "(\\PC|[A-Za-z']{1,12}| |ing|ies|ed){0,80}") {
            let result = reader_agrees(&text);
            proptest::prop_assert!(result.is_ok(), "{:?}", result);
        }
    }

    #[test]
    fn snowball_leaves_short_words_and_numbers() {
        let snowball = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
        let chars: Vec<char> = ('a'..='z').chain('0'..='9').chain(['\'']).collect();
        for &a in &chars {
            assert_eq!(snowball.stem(&a.to_string()), a.to_string());
            for &b in &chars {
                let w: String = [a, b].iter().collect();
                assert_eq!(snowball.stem(&w), w);
            }
        }
        for n in (0..100_000u64).chain([1_000_000, 20_260_803, 4_155_550_123]) {
            for w in [n.to_string(), format!("{n:07}")] {
                assert_eq!(snowball.stem(&w), w);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn snowball_leaves_words_ending_past_its_suffixes(
            body in "[a-z']{1,12}",
            last in proptest::sample::select(b"abfhjkopquvwxz0123456789-".to_vec()),
        ) {
            let w = format!("{}{}", body.trim_start_matches('\''), char::from(last));
            let snowball = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
            proptest::prop_assert!(ends_past_snowball(&w));
            let stemmed = snowball.stem(&w).into_owned();
            proptest::prop_assert_eq!(stemmed, w);
        }
    }

    /// The same on every word of the Enron sample (`../shared/corpora`).
    #[test]
    fn snowball_leaves_real_words_ending_past_its_suffixes() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/enron/maildir");
        if !root.is_dir() {
            eprintln!("SKIPPED snowball_leaves_real_words_ending_past_its_suffixes: ../shared is absent");
            return;
        }
        let snowball = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
        let (mut dirs, mut seen) = (vec![root], std::collections::HashSet::new());
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                    continue;
                }
                let Ok(bytes) = std::fs::read(&p) else { continue };
                let text = String::from_utf8_lossy(&bytes);
                for r in word_ranges(&text) {
                    let w = text[r].to_lowercase();
                    if w.is_ascii() && ends_past_snowball(&w) && seen.insert(w.clone()) {
                        assert_eq!(snowball.stem(&w), w, "{}", p.display());
                    }
                }
            }
        }
        assert!(seen.len() > 1000, "{} words", seen.len());
    }

    #[test]
    fn the_stem_cache_changes_no_stem() {
        let words = [
            "running",
            "Running",
            "RUNNING",
            "alice's",
            "said",
            "vaccination",
            "studies",
            "internationalisation",
            "café",
            "naïve's",
            "antidisestablishmentarianism",
            "2026",
            "a",
            "it's",
            "o'neill",
        ];
        let lex = Lexicon::get();
        for _ in 0..2 {
            // the second round reads every stem back from the cache
            for w in words {
                let lower = w.to_lowercase();
                let mut uncached = String::new();
                stem_uncached(&lower, &mut uncached);
                assert_eq!(stem(&lower), uncached, "{w}");
                let got = content_words(lex, w, 0, w.len(), NO_MARKS);
                if !lex.is_stopword(word_hash(lower.as_bytes())) {
                    assert_eq!(got.len(), 1, "{w}");
                    assert_eq!(got[0].word, word_hash(uncached.as_bytes()), "{w}");
                }
            }
        }
        // words given one hash share a slot: they evict each other and still stem right
        let mut cache = StemCache::default();
        let mut scratch = String::new();
        for w in ["promoted", "promotes", "servers"] {
            for _ in 0..2 {
                assert_eq!(cache.stem_hash(w, 42, &mut scratch), word_hash(stem(w).as_bytes()));
            }
        }
    }

    #[test]
    fn clauses_cut_on_commas_and_but() {
        let c = clauses("Alice has admin, but Bob does not");
        assert_eq!(c.len(), 2);
    }
}
