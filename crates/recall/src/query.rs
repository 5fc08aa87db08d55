//! From a claim to a full-text query, and from a retrieved chunk to the span
//! the verifier cites.
//!
//! The query keeps a claim's content words, numbers, dates and names and drops
//! function words. Every term is written as an FTS5 string (double-quoted,
//! inner quotes doubled) and the terms are OR-ed, so nothing the user typed is
//! ever read as FTS5 syntax (`NEAR`, `AND`, `*`, `-`, `"`, `:` and `^` are
//! plain text here). bm25 then ranks chunks that share the rarer terms first.

use amem_records::Span;
use amem_text::stopwords::QUERY_STOPWORDS;
use amem_text::tokens::{WordRule, words_of};
use amem_text::words::{lower_into, stem, stem_into};
use std::collections::BTreeSet;

/// At most this many terms go into one query: a long claim's extra words add
/// latency (one FTS5 doclist each) and little ranking signal.
const MAX_TERMS: usize = 24;

/// On an index of more than four times this many chunks, a query whose
/// terms' document frequencies add up to more than this many chunks drops its
/// most frequent terms (keeping at least [`MIN_TERMS`]). bm25 is computed for
/// every chunk that matches any term (about 1 µs each in a release build), so
/// this bounds the work per query; the dropped terms are those whose idf adds
/// least to a chunk's score. On a smaller index nothing is dropped for cost:
/// a query there touches at most a few thousand chunks anyway. Tuned on the
/// generated 10,000-document bench wiki (p99 under 5 ms).
pub const ROW_BUDGET: i64 = 1_000;
/// The rarest terms always kept, whatever their frequency.
pub const MIN_TERMS: usize = 3;

/// What kind of term, for weighting the cited span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TermKind {
    /// A number or a year.
    Number,
    /// A capitalised word that does not start the claim: likely a name.
    Name,
    /// Any other content word.
    Word,
}

/// One query term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// The term as written in the claim.
    pub text: String,
    /// Lowercased, crudely stemmed form used to find it in a chunk.
    pub key: String,
    /// What kind of term it is.
    pub kind: TermKind,
}

/// A claim turned into search terms.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Query {
    /// Distinct terms, in claim order.
    pub terms: Vec<Term>,
}

impl Query {
    /// Terms of a claim: content words, numbers (with their decimal point or
    /// thousands separators kept together), dates' parts and names.
    pub fn from_claim(claim: &str) -> Query {
        let mut seen = BTreeSet::new();
        let mut terms = Vec::new();
        for (pos, tok) in tokens(claim).into_iter().enumerate() {
            let lower = tok.to_lowercase();
            let is_number = tok.chars().next().is_some_and(|c| c.is_ascii_digit());
            if !is_number && (QUERY_STOPWORDS.contains(&lower.as_str()) || tok.chars().count() < 2) {
                continue;
            }
            let key = if is_number { lower.replace(',', "") } else { stem(&lower) };
            if !seen.insert(key.clone()) {
                continue;
            }
            let kind = if is_number {
                TermKind::Number
            } else if pos > 0 && tok.chars().next().is_some_and(char::is_uppercase) {
                TermKind::Name
            } else {
                TermKind::Word
            };
            terms.push(Term { text: tok.to_string(), key, kind });
            if terms.len() == MAX_TERMS {
                break;
            }
        }
        Query { terms }
    }

    /// The terms worth sending to the index, given each term's document
    /// frequency (`dfs`, parallel to `terms`) among `chunks` chunks:
    /// - a term in no chunk cannot match and is dropped;
    /// - a term in more than half the chunks is dropped (FTS5's bm25 gives
    ///   it an idf of about zero: it changes no ranking, only the cost),
    ///   unless no other term is left;
    /// - then, on an index of more than 4 × [`ROW_BUDGET`] chunks, the rarest
    ///   terms are kept while their frequencies add up to at most
    ///   [`ROW_BUDGET`], and never fewer than [`MIN_TERMS`].
    ///
    /// Kept terms stay in claim order.
    pub fn plan(&self, dfs: &[i64], chunks: u64) -> Query {
        let half = i64::try_from(chunks / 2).unwrap_or(i64::MAX);
        let mut cands: Vec<(i64, usize)> =
            self.terms.iter().enumerate().filter_map(|(i, _)| dfs.get(i).map(|&d| (d, i))).filter(|&(d, _)| d > 0).collect();
        cands.sort();
        let informative = cands.iter().filter(|&&(d, _)| d <= half).count();
        let cands: Vec<(i64, usize)> =
            if informative == 0 { cands.into_iter().take(1).collect() } else { cands.into_iter().take(informative).collect() };
        let budget = if chunks > 4 * ROW_BUDGET.unsigned_abs() { ROW_BUDGET } else { i64::MAX };
        let mut keep = Vec::new();
        let mut rows = 0i64;
        for (d, i) in cands {
            if keep.len() >= MIN_TERMS && rows.saturating_add(d) > budget {
                break;
            }
            rows += d;
            keep.push(i);
        }
        keep.sort_unstable();
        Query { terms: keep.into_iter().map(|i| self.terms[i].clone()).collect() }
    }

    /// The FTS5 MATCH expression: every term a quoted string, OR-ed. `None`
    /// when the claim has no content terms (nothing to search for).
    pub fn fts_expression(&self) -> Option<String> {
        if self.terms.is_empty() {
            return None;
        }
        let parts: Vec<String> = self.terms.iter().map(|t| fts_string(&t.text)).collect();
        Some(parts.join(" OR "))
    }

    /// The best-matching sentence of `chunk` as a byte span on sentence
    /// boundaries: the sentence whose terms weigh most (numbers 3, names 2,
    /// other words 1, each counted once), the earliest on a tie, the first
    /// sentence when none matches. A markdown heading is the context of the
    /// text under it, never its quote: headings are passed over while the
    /// chunk has any other sentence (before, "# Falcon" was the quote of
    /// "The Falcon team has 14 engineers" for the claim "Falcon", a tie
    /// that the earlier heading won).
    pub fn best_span(&self, chunk: &str) -> Span {
        let all = crate::chunk::sentences(chunk);
        let is_heading = |r: &std::ops::Range<usize>| chunk[r.clone()].trim_start().starts_with('#');
        let body: Vec<_> = all.iter().filter(|r| !is_heading(r)).cloned().collect();
        let sentences = if body.is_empty() { all } else { body };
        let mut best: Option<(u32, Span)> = None;
        for r in &sentences {
            let score = self.score(&chunk[r.clone()]);
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, Span::new(r.start, r.end)));
            }
        }
        best.map_or_else(|| Span::new(0, chunk.len()), |(_, s)| s)
    }

    /// Weight of the query terms found in `text`.
    pub fn score(&self, text: &str) -> u32 {
        // Each term counts once: a flag per term, set when some word of
        // `text` has its key. One buffer for the lower-cased word and one for
        // its key, not a set of strings: best_span scores every sentence of
        // every hit.
        let mut found = vec![false; self.terms.len()];
        let (mut lower, mut key) = (String::new(), String::new());
        for t in tokens(text) {
            lower_into(t, &mut lower);
            if t.starts_with(|c: char| c.is_ascii_digit()) {
                key.clear();
                key.extend(lower.chars().filter(|&c| c != ','));
            } else {
                stem_into(&lower, &mut key);
            }
            for (f, term) in found.iter_mut().zip(&self.terms) {
                *f |= term.key == key;
            }
        }
        self.terms
            .iter()
            .zip(&found)
            .filter(|&(_, &f)| f)
            .map(|(t, _)| match t.kind {
                TermKind::Number => 3,
                TermKind::Name => 2,
                TermKind::Word => 1,
            })
            .sum()
    }
}

/// An FTS5 string literal: the text in double quotes with inner quotes
/// doubled. Inside a string FTS5 reads no operators, so this is the only
/// form in which claim text reaches the MATCH expression.
pub fn fts_string(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Word tokens: runs of letters and digits, where `.` and `,` between two
/// digits stay inside the token ("3.5", "1,200"); an apostrophe splits ("don't" → "don", "t"):
/// the one tokenizer's [`WordRule::Numbers`].
fn tokens(text: &str) -> Vec<&str> {
    words_of(text, WordRule::Numbers).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_words_numbers_and_names() {
        let q = Query::from_claim("The Arctic has lost 40% of its sea ice since 1979, and 1,200.5 km in March.");
        let texts: Vec<&str> = q.terms.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, vec!["Arctic", "lost", "40", "sea", "ice", "since", "1979", "1,200.5", "km", "March"]);
        assert_eq!(q.terms[0].kind, TermKind::Name);
        assert_eq!(q.terms[2].kind, TermKind::Number);
        assert_eq!(q.terms[7].key, "1200.5");
    }

    #[test]
    fn expression_is_quoted_strings_only() {
        let q = Query::from_claim(r#"NEAR(a b) "quoted" -minus col:val x* ^start AND OR NOT"#);
        let e = q.fts_expression().unwrap();
        assert_eq!(e, r#""NEAR" OR "quoted" OR "minus" OR "col" OR "val" OR "start""#);
        assert_eq!(fts_string(r#"a"b"#), r#""a""b""#);
        assert_eq!(Query::from_claim("the of and ... !!").fts_expression(), None);
    }

    #[test]
    fn best_span_is_a_whole_sentence() {
        let chunk = "Ice is white. Arctic sea ice fell 40 percent since 1979. Penguins live south.";
        let q = Query::from_claim("Arctic ice declined 40% since 1979");
        let s = q.best_span(chunk);
        assert_eq!(s.slice(chunk), Some("Arctic sea ice fell 40 percent since 1979."));
        let none = Query::from_claim("volcano");
        assert_eq!(none.best_span(chunk).slice(chunk), Some("Ice is white."));
        assert_eq!(none.best_span(""), Span::new(0, 0));
    }

    #[test]
    fn a_heading_is_never_the_quote_while_the_chunk_has_a_sentence() {
        let chunk = "# Project Falcon\n\nThe Falcon team has 14 engineers. It ships in May.";
        let q = Query::from_claim("Falcon");
        assert_eq!(q.best_span(chunk).slice(chunk), Some("The Falcon team has 14 engineers."));
        let none = Query::from_claim("volcano");
        assert_eq!(none.best_span(chunk).slice(chunk), Some("The Falcon team has 14 engineers."));
        // A chunk of headings only still gives one.
        let only = "# Project Falcon";
        assert_eq!(q.best_span(only).slice(only), Some("# Project Falcon"));
    }

    #[test]
    fn plan_drops_absent_and_common_terms_within_budget() {
        let q = Query::from_claim("alpha beta gamma delta epsilon zeta eta");
        let texts = |q: &Query| q.terms.iter().map(|t| t.text.clone()).collect::<Vec<_>>();
        // absent (0) and more-than-half (600 of 1000) go; the rest fit the budget.
        assert_eq!(texts(&q.plan(&[5, 0, 600, 10, 20, 30, 40], 1000)), vec!["alpha", "delta", "epsilon", "zeta", "eta"]);
        // Only common terms: the rarest one stays.
        assert_eq!(texts(&q.plan(&[900, 800, 700, 0, 0, 0, 0], 1000)), vec!["gamma"]);
        // Over budget: the MIN_TERMS rarest stay, then terms while the budget lasts.
        let big = q.plan(&[1500, 1400, 1300, 1200, 1100, 10, 4000], 100_000);
        assert_eq!(MIN_TERMS, 3);
        assert_eq!(texts(&big), vec!["delta", "epsilon", "zeta"]);
        let mid = q.plan(&[700, 600, 500, 400, 300, 10, 4000], 100_000);
        // 10 + 300 + 400 = 710 fits the budget; adding 500 would not.
        assert_eq!(texts(&mid), vec!["delta", "epsilon", "zeta"]);
        // 10 + 100 + 200 + 500 = 810 fits; adding 600 would not.
        let some = q.plan(&[700, 600, 500, 200, 100, 10, 4000], 100_000);
        assert_eq!(texts(&some), vec!["gamma", "delta", "epsilon", "zeta"]);
        // A small index is never pruned for cost.
        let small = q.plan(&[700, 600, 500, 400, 300, 10, 4000], 3_000);
        assert_eq!(texts(&small), vec!["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]);
        assert!(q.plan(&[0; 7], 10).terms.is_empty());
    }

    #[test]
    fn tokens_keep_numbers_whole() {
        assert_eq!(tokens("3.5 vs 3. 5, 1,000 don't"), vec!["3.5", "vs", "3", "5", "1,000", "don", "t"]);
        assert_eq!(stem("warming"), stem("warmed"));
        assert_eq!(stem("studies"), stem("study"));
        assert_eq!(stem("gas"), "gas");
    }
}
