//! `amem-extract`: from a [`Message`] to the [`Claim`]s it makes.
//!
//! Where it sits (docs/architecture.md, "Data flow"): importers yield
//! messages whose `text` is the author's own text (quoted and forwarded parts
//! already set apart); [`extract`] turns each into claims, which recall and
//! verification then assess. It is a plain synchronous function over one
//! record, deterministic; the rules alone, or with the check-worthiness model
//! beside them ([`extract_digested_with`], [`classify_with_model`]), which
//! decides only what the rules judged and never what a sentence's form
//! settles; the pipeline lifts it onto the
//! stream.
//!
//! Steps:
//! 1. a residual signature block is set aside ([`find_signature`]);
//! 2. the rest is cut into sentences ([`segment()`]: chat layout for Slack and
//!    iMessage, prose layout for mail), with code blocks, separators and
//!    stray `>` lines set aside;
//! 3. a compound sentence becomes two claims only when both halves stand
//!    alone ([`split_compound`]);
//! 4. each claim gets its stance cues from
//!    [`amem_text::cues::detect_cues`] (hedge, attribution, negation,
//!    condition, temporal; spans relative to the claim text) and a
//!    [`ClaimKind`] from [`classify()`]. Every sentence is returned, audited
//!    kinds and not-audited kinds alike, so the audit can count what it did
//!    not audit.
//!
//! ```
//! use amem_extract::extract;
//! use amem_records::{ClaimKind, CueClass, Message, MessageId, SourceKind};
//! let msg = Message {
//!     source: SourceKind::SLACK,
//!     archive: "export".into(),
//!     conversation: "general".into(),
//!     id: MessageId("general/1459052866.000012".into()),
//!     author: "ana".into(),
//!     recipients: vec![],
//!     sent_at: "2016-03-27T04:27:46Z".parse().unwrap(),
//!     subject: None,
//!     text: "thanks!\nI think the build broke because of the new flag\ncan you look?".into(),
//!     quoted: vec![],
//!     locator: "general/2016-03-27.json#0".into(),
//!     meta: Default::default(),
//!     not_claims: None,
//! };
//! let claims = extract(&msg);
//! let kinds: Vec<ClaimKind> = claims.iter().map(|c| c.kind).collect();
//! assert_eq!(kinds, [ClaimKind::Greeting, ClaimKind::Causal, ClaimKind::Question]);
//! assert!(claims[1].has_cue(CueClass::Hedge)); // reported as hedged, never as flat
//! assert_eq!(&msg.text[claims[1].span.start..claims[1].span.end], claims[1].text);
//! ```
#![deny(missing_docs)]

pub mod classify;
pub mod compound;
pub mod lexicon;

pub use amem_models::CheckWorthiness;
pub use classify::{Settled, classify, classify_settled};
pub use compound::split_compound;
// The sentence splitter is the text layer's; re-exported because the
// extractor's callers pick its layout per source.
pub use amem_text::sentence::{Layout, Segmentation, SetAsideReason, segment, split_sentences, split_sentences_as};
pub use amem_text::signature::find_signature;

use amem_records::{Claim, ClaimKind, Cue, Digest, Message, SourceKind, Span};
use amem_text::memory::Memory;
use std::cell::RefCell;

/// Extractor name and version recorded on every claim. Bump the version
/// whenever segmentation or classification rules change, so claims made by
/// different rule sets are never confused. `rules@1` was the rule set of
/// the first run on the hand labels (commit d734281); `rules@2` holds the
/// fixes listed in docs/benchmarks.md (claim extraction); `rules@3` (commit
/// 618aea9) added the check-worthiness step (step 8 of [`classify()`]);
/// `rules@4` (commit 8fc7ede) added the copula-classification rule and let
/// counts block the opinion rule; `rules@5` reads a clause of prose with a
/// value as a quantity when its verb is not in the lists; `rules@6` reads
/// creeds and denials of belief ("I believe in ...", "I don't think ...")
/// as stances, a ranking over a named set ("the largest manufacturer in the
/// world") as a value, "but"/"well" before an imperative, announcements
/// ("We are proud to announce that ...") as frames, a stance frame heading
/// a long clause with no event and no name as a stance, the speaker
/// reporting what they heard or say, and a subject opened by "my", as the
/// speaker's own story, a predicate that is only an auxiliary ("Governor
/// Thompson did.") as saying nothing, and a present state of a named
/// subject the speaker or listener is part of ("... have hurt us") as a view,
/// a stance verb with a plain object ("I remember the world with NATO") as
/// the speaker's memory, "today" and "tonight" as dating nothing, and a
/// request phrase ("we need to", "I'd like to") inside a long statement of
/// a value as leaving the value a claim; enumeration labels ("Number one,
/// ...") are frames and "have got" is possession, not an event; a
/// future-tense forecast with neither a value nor a name, and a stance verb
/// before "how"/"what" ("I know how to do that"), are not audited; a
/// cleft with a definite focus ("It's the private sector that creates
/// jobs.") is audited; "he said it ..." with nothing named is not; what "he"
/// or "they" did is audited with one name; a first-person encounter ("I
/// met with ...", "I visited ...") is the speaker's story; "Do you know
/// that ...?" asserts its clause; a sentence opening with "if" and no
/// figures is a hypothesis, as is a lone "Because ..." with no main clause;
/// a name characterised with an indefinite article and nothing else named
/// ("Russia is an adversary.") is a view.
pub const EXTRACTOR: &str = "rules@6";

/// The extractor's name when the check-worthiness model reads beside the rules
/// ([`classify_with_model`]): [`EXTRACTOR`] `+` [`amem_models::CHECKWORTHY_METHOD`].
pub const EXTRACTOR_WITH_MODEL: &str = "rules@6+model:checkworthy@1";

/// Everything extraction found in one message: the claims and the parts
/// of the text set aside (signature, code, separators, stray quotes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extraction {
    /// One claim per sentence (or per standalone clause), in text order.
    pub claims: Vec<Claim>,
    /// Byte spans of `Message.text` that are not sentences, with the reason.
    pub set_aside: Vec<(Span, SetAsideReason)>,
}

/// The line layout for a message's source: chat lines for Slack and
/// iMessage, wrapped prose for mail.
pub fn layout_for(source: SourceKind) -> Layout {
    if source.is_chat() { Layout::Chat } else { Layout::Prose }
}

/// The claims of a message: every sentence of `msg.text`, classified.
/// A message marked `not_claims` (a reaction, a join) yields none.
pub fn extract(msg: &Message) -> Vec<Claim> {
    extract_all(msg).claims
}

/// [`extract`] for a caller that already holds `msg.digest()`: the digest
/// serialises and hashes the whole message (quoted parts included), so the
/// audit computes it once a message, not once here and once for the ledger.
/// `digest` must be `msg.digest()`: the claim ids are derived from it.
pub fn extract_digested(msg: &Message, digest: Digest) -> Vec<Claim> {
    extract_with(msg, digest, None).claims
}

/// [`extract_digested`] with the check-worthiness model deciding, beside the rules, which
/// sentences are claims ([`classify_with_model`]); `None` is the rules alone.
pub fn extract_digested_with(msg: &Message, digest: Digest, model: Option<&CheckWorthiness>) -> Vec<Claim> {
    extract_with(msg, digest, model).claims
}

/// The claims of a message and the parts set aside.
pub fn extract_all(msg: &Message) -> Extraction {
    extract_with(msg, msg.digest(), None)
}

fn extract_with(msg: &Message, digest: Digest, model: Option<&CheckWorthiness>) -> Extraction {
    if msg.not_claims.is_some() {
        return Extraction { claims: Vec::new(), set_aside: Vec::new() };
    }
    let text = msg.text.as_str();
    // Made anew each time: remembering cuts by text cost more CPU than it saved (below).
    let cut = cut_text(text, layout_for(msg.source));
    let mut claims = Vec::with_capacity(cut.clauses.len());
    for &span in &cut.clauses {
        let claim_text = &text[span.start..span.end];
        let (kind, cues) = read_clause(claim_text, model);
        claims.push(Claim {
            id: Claim::id_for(&digest, span, claim_text),
            message: msg.id.clone(),
            message_digest: digest,
            span,
            text: claim_text.to_string(),
            kind,
            cues,
            extractor: if model.is_some() { EXTRACTOR_WITH_MODEL } else { EXTRACTOR }.to_string(),
        });
    }
    Extraction { claims, set_aside: cut.set_aside }
}

/// A message text cut into clauses: their spans (trimmed, none empty) and
/// the parts set aside.
struct Cut {
    clauses: Vec<Span>,
    set_aside: Vec<(Span, SetAsideReason)>,
}

/// [`Cut`] of a text in a layout. Not remembered by text, as the clause
/// readings are: a per-thread memory of cuts (the same mail sits in the
/// sender's and each recipient's folders) cost more than cutting again, on
/// the x1 bench archive (11,238 mails) 11.30 s of CPU without it against
/// 11.52 s with it, on x10 52.8 s against 53.8 s (with the check-worthiness
/// model, the mean of three and two runs).
fn cut_text(text: &str, layout: Layout) -> Cut {
    let (sentences, set_aside) = sentence_spans(text, layout);
    let mut clauses = Vec::with_capacity(sentences.len());
    for s in sentences {
        for (a, b) in split_compound(&text[s.start..s.end]) {
            let span = trim_clause(text, Span::new(s.start + a, s.start + b));
            if !span.is_empty() {
                clauses.push(span);
            }
        }
    }
    Cut { clauses, set_aside }
}

/// How many bytes of clause readings one thread keeps in each of its two
/// generations ([`Memory`], estimated from their text): 2 MB holds some
/// 12,000 readings of mail sentences (at 4 MB, with the cue, text and chunk
/// memories at their larger bounds, the x10 audit peaked at 509 MB).
const READINGS_BYTES: usize = 2 << 20;

/// One clause's reading: its kind and its cues.
type Reading = (ClaimKind, Vec<Cue>);

thread_local! {
    /// The clauses this thread has read, by their text: mail repeats
    /// itself (the same mail in several folders, a notice sent again, the
    /// same disclaimer under every mail): 98,424 distinct texts among the
    /// 238,525 clauses of the x1 bench archive. What it saves there: 0.44 s
    /// of the audit's 11.96 s of CPU with the check-worthiness model (4%),
    /// 0.05 s of 3.98 s with the rules alone (the mean of three runs each).
    /// The rules' readings and the model's are kept apart: a run is one or
    /// the other.
    static READINGS: RefCell<Memory<Reading>> = RefCell::new(Memory::new(READINGS_BYTES, 150));
    static MODEL_READINGS: RefCell<Memory<Reading>> = RefCell::new(Memory::new(READINGS_BYTES, 150));
}

/// The kind and cues of one clause: remembered if this thread read the
/// same text lately, else detected and classified now (and remembered).
/// Only the shipped model reads clauses here ([`CheckWorthiness::shipped`]),
/// so a text's reading is the same whichever call made it.
fn read_clause(clause: &str, model: Option<&CheckWorthiness>) -> Reading {
    let memory = if model.is_some() { &MODEL_READINGS } else { &READINGS };
    memory.with(|r| {
        r.borrow_mut().get_or_make(
            clause,
            |c| {
                let cues = amem_text::cues::detect_cues(c);
                let kind = match model {
                    Some(m) => classify_with_model(c, &cues, m),
                    None => classify(c, &cues),
                };
                (kind, cues)
            },
            |r| 64 + clause.len() + r.1.iter().map(|c| 64 + c.text.len() + c.rule.len()).sum::<usize>(),
        )
    })
}

/// The kind of a sentence when the check-worthiness model reads beside the
/// rules. What its form settles (greetings, questions, fragments, headings:
/// [`Settled::Structure`]) stays as the rules have it and the model is not
/// asked. Otherwise the model's probability decides ([`kind_given_worth`]).
/// Should the tokenizer fail, the rules' kind stands: they are the floor.
pub fn classify_with_model(sentence: &str, cues: &[Cue], model: &CheckWorthiness) -> ClaimKind {
    let (kind, settled) = classify_settled(sentence, cues);
    if settled == Settled::Structure {
        return kind;
    }
    match model.probability(sentence, kind.as_str()) {
        Ok(p) => kind_given_worth(kind, p, model.threshold(), model.demote_below()),
        Err(_) => kind,
    }
}

/// The kind of a sentence the rules read as `kind` and the model gives
/// P(worth checking) = `p`. One the rules audit is taken out as
/// [`ClaimKind::NotCheckWorthy`] only below `demote_below` (a claim taken
/// out is hidden from the report, so overruling the rules takes more
/// confidence than the F1-best `threshold`); an opinion at or above
/// `threshold` is audited as a [`ClaimKind::Fact`]. Logistics (requests,
/// scheduling, attachments, contact and label lines) stays logistics: on the
/// Enron sample, 2,023 of the 2,611 sentences the model let in were logistics
/// ("Dial-in number: 888-...", "Complete and Sign the Locker Payroll
/// Deduction Form."), mail's commonest non-claims, which its debate training
/// never showed it. Otherwise the rules' kind stands.
pub fn kind_given_worth(kind: ClaimKind, p: f32, threshold: f32, demote_below: f32) -> ClaimKind {
    if kind.is_audited() {
        if p < demote_below { ClaimKind::NotCheckWorthy } else { kind }
    } else if kind == ClaimKind::Opinion && p >= threshold {
        ClaimKind::Fact
    } else {
        kind
    }
}

/// Sentence spans of a message text after its signature is set aside.
pub fn sentence_spans(text: &str, layout: Layout) -> (Vec<Span>, Vec<(Span, SetAsideReason)>) {
    let sig = find_signature(text);
    let body_end = sig.map(|s| s.start).unwrap_or(text.len());
    let seg = segment(&text[..body_end], layout);
    let mut set_aside = seg.set_aside;
    if let Some(s) = sig {
        set_aside.push((s, SetAsideReason::Signature));
    }
    (seg.sentences, set_aside)
}

/// Classify one sentence on its own (the evaluation's entry point): the
/// same rules [`extract`] applies, with the sentence's own cues.
pub fn classify_sentence(sentence: &str) -> ClaimKind {
    classify(sentence, &amem_text::cues::detect_cues(sentence))
}

/// [`classify_sentence`] with the check-worthiness model beside the rules
/// ([`classify_with_model`]); `None` is the rules alone.
pub fn classify_sentence_with(sentence: &str, model: Option<&CheckWorthiness>) -> ClaimKind {
    let cues = amem_text::cues::detect_cues(sentence);
    match model {
        Some(m) => classify_with_model(sentence, &cues, m),
        None => classify(sentence, &cues),
    }
}

/// Trim whitespace off a clause span (the compound splitter cuts at spaces).
fn trim_clause(text: &str, s: Span) -> Span {
    let slice = &text[s.start..s.end];
    let lead = slice.len() - slice.trim_start().len();
    let trimmed = slice.trim();
    Span::new(s.start + lead, s.start + lead + trimmed.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use amem_records::{CueClass, MessageId};
    use proptest::prelude::*;

    fn msg(source: SourceKind, text: &str) -> Message {
        Message {
            source,
            archive: "a".into(),
            conversation: "c".into(),
            id: MessageId("m1".into()),
            author: "x".into(),
            recipients: vec![],
            sent_at: "2001-03-26T10:44:00Z".parse().unwrap(),
            subject: None,
            text: text.into(),
            quoted: vec![],
            locator: "a:0".into(),
            meta: Default::default(),
            not_claims: None,
        }
    }

    #[test]
    fn claims_carry_ids_spans_and_extractor() {
        let m = msg(SourceKind::ENRON, "Gas rose 5% on Monday. Please call me at 3.");
        let claims = extract(&m);
        assert_eq!(claims.len(), 2);
        for c in &claims {
            assert_eq!(&m.text[c.span.start..c.span.end], c.text);
            assert_eq!(c.id, Claim::id_for(&m.digest(), c.span, &c.text));
            assert_eq!(c.extractor, EXTRACTOR);
            assert_eq!(c.message_digest, m.digest());
        }
        assert!(claims[0].kind.is_audited());
        assert_eq!(claims[1].kind, ClaimKind::Logistics);
    }

    #[test]
    fn extract_digested_gives_the_claims_extract_gives() {
        let m = msg(SourceKind::GMAIL, "Hello all.\n\nThe plant closed in 2019. Revenue rose 4% last quarter.");
        let claims = extract(&m);
        assert!(claims.len() >= 2);
        assert_eq!(extract_digested(&m, m.digest()), claims);
        // A message that yields no claims yields none here either.
        let mut reaction = m.clone();
        reaction.not_claims = Some("reaction".into());
        assert!(extract_digested(&reaction, reaction.digest()).is_empty());
    }

    #[test]
    fn stance_cues_are_kept_relative_to_claim_text() {
        let m = msg(SourceKind::GMAIL, "Hello all.\n\nReuters said the plant may not reopen if the strike goes on.");
        let claims = extract(&m);
        let c = &claims[1];
        assert_eq!(c.kind, ClaimKind::Attribution);
        for class in [CueClass::Attribution, CueClass::Hedge, CueClass::Negation, CueClass::Condition] {
            assert!(c.has_cue(class), "{class:?} missing in {:?}", c.cues);
        }
        for cue in &c.cues {
            assert_eq!(&c.text[cue.span.start..cue.span.end], cue.text);
        }
    }

    #[test]
    fn the_model_decides_only_what_the_rules_judged_and_its_runs_are_named() {
        let model = CheckWorthiness::shipped().expect("the shipped check-worthiness model loads");
        // What form settles is never asked: a thank-you and a question stay as the rules have them.
        for (text, kind) in [("Thanks so much!", ClaimKind::Greeting), ("Did the merger close in March?", ClaimKind::Question)] {
            let cues = amem_text::cues::detect_cues(text);
            assert_eq!(classify_settled(text, &cues), (kind, Settled::Structure), "{text}");
            assert_eq!(classify_with_model(text, &cues, model), kind, "{text}");
        }
        // A judged sentence takes the model's decision, the rules' kind kept when both agree.
        for text in ["Unemployment fell to 4.1 percent last year.", "I think we should meet on Tuesday."] {
            let cues = amem_text::cues::detect_cues(text);
            let (rules, settled) = classify_settled(text, &cues);
            assert_eq!(settled, Settled::Rules, "{text}");
            let p = model.probability(text, rules.as_str()).unwrap();
            assert_eq!(
                classify_with_model(text, &cues, model),
                kind_given_worth(rules, p, model.threshold(), model.demote_below()),
                "{text}"
            );
        }
        let m = msg(SourceKind::ENRON, "Unemployment fell to 4.1 percent last year.  Thanks.");
        let with = extract_digested_with(&m, m.digest(), Some(model));
        let without = extract_digested_with(&m, m.digest(), None);
        assert!(with.iter().all(|c| c.extractor == EXTRACTOR_WITH_MODEL));
        assert!(without.iter().all(|c| c.extractor == EXTRACTOR));
        assert_eq!(with.iter().map(|c| c.id).collect::<Vec<_>>(), without.iter().map(|c| c.id).collect::<Vec<_>>());
        assert_eq!(EXTRACTOR_WITH_MODEL, format!("{EXTRACTOR}+{}", amem_models::CHECKWORTHY_METHOD));
    }

    #[test]
    fn worth_moves_a_sentence_across_the_audit_line_and_no_further() {
        let (t, d) = (0.5, 0.3);
        assert_eq!(kind_given_worth(ClaimKind::Quantity, 0.9, t, d), ClaimKind::Quantity);
        assert_eq!(kind_given_worth(ClaimKind::Quantity, 0.4, t, d), ClaimKind::Quantity, "under the threshold, over the demotion bar");
        assert_eq!(kind_given_worth(ClaimKind::Quantity, 0.2, t, d), ClaimKind::NotCheckWorthy);
        assert_eq!(kind_given_worth(ClaimKind::Opinion, 0.6, t, d), ClaimKind::Fact);
        assert_eq!(kind_given_worth(ClaimKind::Opinion, 0.4, t, d), ClaimKind::Opinion);
        assert_eq!(kind_given_worth(ClaimKind::Logistics, 0.99, t, d), ClaimKind::Logistics);
        assert_eq!(kind_given_worth(ClaimKind::Logistics, 0.01, t, d), ClaimKind::Logistics);
        assert!(!ClaimKind::NotCheckWorthy.is_audited());
    }

    #[test]
    fn signature_is_set_aside_and_sign_off_counted() {
        let t = "The meeting moved.  The price is $4.50 per MMBtu.  Thanks.\n\nEmy C. Geraldo\n3-5391\nEnron Corp.";
        let m = msg(SourceKind::ENRON, t);
        let ex = extract_all(&m);
        let texts: Vec<&str> = ex.claims.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["The meeting moved.", "The price is $4.50 per MMBtu.", "Thanks."]);
        assert_eq!(ex.claims[2].kind, ClaimKind::Greeting);
        assert_eq!(ex.set_aside.last().map(|s| s.1), Some(SetAsideReason::Signature));
    }

    #[test]
    fn compound_sentence_becomes_two_claims() {
        let t = "Her estimate is below $0.10 per share, but her revenue estimate is above the consensus.";
        let m = msg(SourceKind::GMAIL, t);
        let claims = extract(&m);
        assert_eq!(claims.len(), 2);
        assert_eq!(claims[0].text, "Her estimate is below $0.10 per share");
        assert_eq!(claims[1].text, "her revenue estimate is above the consensus.");
        assert_ne!(claims[0].id, claims[1].id);
    }

    #[test]
    fn not_claims_message_yields_nothing() {
        let mut m = msg(SourceKind::SLACK, "ana joined the channel");
        m.not_claims = Some("channel_join".into());
        assert!(extract(&m).is_empty());
    }

    #[test]
    fn chat_lines_are_separate_claims() {
        let m = msg(SourceKind::SLACK, "the deploy failed\nI think the disk is full\n👍");
        let kinds: Vec<ClaimKind> = extract(&m).iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [ClaimKind::Fact, ClaimKind::Fact, ClaimKind::Greeting]);
    }

    #[test]
    fn a_remembered_reading_is_the_fresh_one() {
        let m = msg(SourceKind::ENRON, "Gas rose 5% on Monday, Reuters said. Gas rose 5% on Monday, Reuters said. Call me.");
        let first = extract(&m);
        // the same text again on this thread (every clause remembered) and
        // on a fresh thread (nothing remembered)
        let again = extract(&m);
        let fresh = std::thread::spawn({
            let m = m.clone();
            move || extract(&m)
        })
        .join()
        .expect("extraction thread");
        assert_eq!(first, again);
        assert_eq!(first, fresh);
        assert_eq!(first[0].kind, first[1].kind);
        assert_eq!(first[0].cues, first[1].cues);
        assert_ne!(first[0].id, first[1].id);
    }

    #[test]
    fn a_repeated_message_is_cut_as_before() {
        let t = "Gas rose 5%; power fell 2%. The price\nis $4.50 today.\n\nEmy C. Geraldo\n3-5391\nEnron Corp.";
        let mail = msg(SourceKind::ENRON, t);
        let first = extract_all(&mail);
        assert_eq!(extract_all(&mail), first);
        // the same text as a chat message is cut by chat lines, not from memory
        let chat = msg(SourceKind::SLACK, t);
        let fresh = std::thread::spawn({
            let chat = chat.clone();
            move || extract_all(&chat)
        })
        .join()
        .expect("extraction thread");
        assert_eq!(extract_all(&chat), fresh);
        assert_ne!(fresh.claims.len(), first.claims.len());
    }

    #[test]
    fn deterministic() {
        let m = msg(SourceKind::ENRON, "Prices fell 3% yesterday because storage was full. Call me.");
        assert_eq!(extract(&m), extract(&m));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]
        #[test]
        fn any_text_never_panics_and_spans_slice(text in "\\PC{0,200}", chat in any::<bool>()) {
            let m = msg(if chat { SourceKind::SLACK } else { SourceKind::GMAIL }, &text);
            let ex = extract_all(&m);
            let mut last_end = 0;
            for c in &ex.claims {
                prop_assert!(text.is_char_boundary(c.span.start) && text.is_char_boundary(c.span.end));
                prop_assert_eq!(&text[c.span.start..c.span.end], c.text.as_str());
                prop_assert!(c.span.start >= last_end);
                last_end = c.span.end;
                for cue in &c.cues {
                    prop_assert!(c.text.get(cue.span.start..cue.span.end).is_some());
                }
            }
            for (s, _) in &ex.set_aside {
                prop_assert!(text.get(s.start..s.end).is_some());
            }
            for s in split_sentences(&text) {
                prop_assert!(text.get(s.start..s.end).is_some());
            }
        }

        #[test]
        fn line_noise_never_panics(text in "[ a-zA-Z0-9.!?:;,'\"()\\-\\n\\r\\t*•>`@$%]{0,300}") {
            let m = msg(SourceKind::ENRON, &text);
            for c in extract(&m) {
                prop_assert_eq!(&text[c.span.start..c.span.end], c.text.as_str());
            }
        }
    }
}
