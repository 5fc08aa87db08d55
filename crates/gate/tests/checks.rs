//! The gate's checks: a positive and a negative case for each, the
//! published cases of issue 2, the false friends at the check level, and the
//! property tests.

use amem_gate::{Check, GateReport, check, drift, inspect};
use amem_records::GateVerdict;
use std::collections::BTreeSet;

fn checks(r: &GateReport) -> Vec<&'static str> {
    r.checks().into_iter().map(|c| c.as_str()).collect()
}

fn show(r: &GateReport) -> String {
    r.to_text()
}

// ---- published cases ----

#[test]
fn published_someone_said_promoted() {
    let r = check("someone said Alice was promoted this morning", "Alice was elevated to administrator status on August 3, 2026");
    assert_eq!(r.verdict, GateVerdict::Rewrite, "{}", show(&r));
    assert_eq!(checks(&r), ["attribution"], "{}", show(&r));
    let f = &r.flags[0];
    assert_eq!(f.cue, "said");
    assert_eq!(f.rule, "attribution:say");
    assert_eq!(&"someone said Alice was promoted this morning"[f.source_span.start..f.source_span.end], "said");
}

#[test]
fn published_rumor_has_it() {
    let r = check(
        "Rumor has it Alice now has admin access after the reorg",
        "Alice was promoted to admin around late July or early August 2026 and now has admin access",
    );
    assert_eq!(r.verdict, GateVerdict::Rewrite, "{}", show(&r));
    assert!(checks(&r).contains(&"attribution"), "{}", show(&r));
    assert_eq!(r.flags.iter().find(|f| f.check == Check::Attribution).map(|f| f.cue.as_str()), Some("Rumor has it"));
}

#[test]
fn published_dollars_to_euros() {
    let r = check("The settlement was 1.2 million dollars.", "The settlement was 1.2 million euros.");
    assert_eq!(r.verdict, GateVerdict::Rewrite, "{}", show(&r));
    assert_eq!(checks(&r), ["unit"], "every stance check passes, only the unit changed: {}", show(&r));
    assert_eq!(r.flags[0].rule, "unit:USD->EUR");
}

#[test]
fn published_hedge_in_neighbour() {
    let r = check("Alice has admin. Not sure though.", "Alice has admin.");
    assert_eq!(r.verdict, GateVerdict::Rewrite, "{}", show(&r));
    assert_eq!(checks(&r), ["hedge"], "{}", show(&r));
    assert_eq!(r.flags[0].source_sentence, "Not sure though.");
}

#[test]
fn published_broadening_is_not_checked() {
    let r = check("Alice can access the test server", "Alice has server access");
    assert_eq!(r.verdict, GateVerdict::Pass, "{}", show(&r));
    assert_eq!(r.not_checked, ["broadened", "weakened"]);
    let i = inspect("Alice can access the test server", "Alice has server access");
    assert!(i.changes.is_empty());
    assert_eq!(i.not_checked, ["broadened", "weakened"]);
}

// ---- each check: positive and negative ----

fn assert_only(source: &str, memory: &str, expected: &[&str], verdict: GateVerdict) {
    let r = check(source, memory);
    assert_eq!(checks(&r), expected, "{source:?} -> {memory:?}\n{}", show(&r));
    assert_eq!(r.verdict, verdict, "{source:?} -> {memory:?}\n{}", show(&r));
}

#[test]
fn polarity_positive() {
    assert_only("The vendor did not sign the contract.", "The vendor signed the contract.", &["polarity"], GateVerdict::Rewrite);
    assert_only("Alice never had admin access.", "Alice had admin access.", &["polarity"], GateVerdict::Rewrite);
}

#[test]
fn polarity_reverse_direction() {
    assert_only("The vendor signed the contract.", "The vendor didn't sign the contract.", &["polarity"], GateVerdict::Rewrite);
}

#[test]
fn polarity_negative_kept_in_other_words() {
    assert_only("The vendor did not sign the contract.", "The vendor never signed the contract.", &[], GateVerdict::Pass);
    assert_only("The vendor did not sign the contract.", "The vendor failed to sign the contract.", &[], GateVerdict::Pass);
}

#[test]
fn polarity_negation_in_a_dropped_clause_is_not_a_reversal() {
    // false friend: the memory dropped the negated clause entirely
    assert_only(
        "Alice got admin access on Monday, but Bob was not granted any rights.",
        "Alice got admin access on Monday.",
        &[],
        GateVerdict::Pass,
    );
    assert_only("The meeting is not on Monday, it is on Tuesday.", "The meeting is on Tuesday.", &[], GateVerdict::Pass);
    // while keeping that clause without its negation is a reversal
    assert_only(
        "Alice got admin access on Monday, but Bob was not granted any rights.",
        "Bob was granted rights.",
        &["polarity"],
        GateVerdict::Rewrite,
    );
}

#[test]
fn condition_positive() {
    assert_only("If the audit passes, the bonus is paid in full.", "The bonus is paid in full.", &["condition"], GateVerdict::Rewrite);
    assert_only("The merger closes unless regulators object.", "The merger closes.", &["condition"], GateVerdict::Rewrite);
}

#[test]
fn condition_negative_kept() {
    assert_only(
        "If the audit passes, the bonus is paid in full.",
        "The bonus is paid in full provided that the audit passes.",
        &[],
        GateVerdict::Pass,
    );
}

#[test]
fn condition_false_friends() {
    assert_only("Prices are subject to change.", "Prices change.", &[], GateVerdict::Pass);
    assert_only("We tested if the backup restores cleanly.", "We tested the backup restore.", &[], GateVerdict::Pass);
    assert_only("General Lee assumed command of the army.", "Lee commanded the army.", &[], GateVerdict::Pass);
}

#[test]
fn hedge_positive() {
    assert_only(
        "The outage was probably caused by the new router.",
        "The outage was caused by the new router.",
        &["hedge"],
        GateVerdict::Rewrite,
    );
    assert_only("I think the invoice was paid.", "The invoice was paid.", &["hedge"], GateVerdict::Rewrite);
}

#[test]
fn hedge_negative_kept_in_other_words() {
    assert_only(
        "The outage was probably caused by the new router.",
        "The outage may have been caused by the new router.",
        &[],
        GateVerdict::Pass,
    );
    // the neighbour carries the hedge in the memory too
    assert_only("Alice has admin. Not sure though.", "Alice has admin. Possibly.", &[], GateVerdict::Pass);
}

#[test]
fn attribution_positive() {
    assert_only("According to Reuters, the plant will close.", "The plant will close.", &["attribution"], GateVerdict::Rewrite);
}

#[test]
fn attribution_negative_kept_in_other_words() {
    assert_only("According to Reuters, the plant will close.", "Reuters reported that the plant will close.", &[], GateVerdict::Pass);
    assert_only("German media say the plant will close.", "Reuters said the plant will close.", &[], GateVerdict::Pass);
}

#[test]
fn temporal_positive() {
    assert_only("As of May 2024 the office is closed.", "The office is closed.", &["temporal"], GateVerdict::Rewrite);
    assert_only("Bob was the team lead until last week.", "Bob was the team lead.", &["temporal"], GateVerdict::Rewrite);
}

#[test]
fn temporal_negative_kept() {
    assert_only("Bob was promoted yesterday.", "Bob was promoted on 3 March 2026.", &[], GateVerdict::Pass);
}

#[test]
fn brittle_positive() {
    assert_only(
        "Revenue was 5 million and costs were 3 million, so profit was 2 million.",
        "Profit was 2 million.",
        &["brittle"],
        GateVerdict::Reject,
    );
    assert_only(
        "We hired 3 engineers, 2 designers and 1 PM, 6 people in total.",
        "We hired 6 people in total.",
        &["brittle"],
        GateVerdict::Reject,
    );
}

#[test]
fn brittle_negative_inputs_kept() {
    assert_only(
        "Revenue was 5 million and costs were 3 million, so profit was 2 million.",
        "Revenue of 5 million minus costs of 3 million, so profit of 2 million.",
        &[],
        GateVerdict::Pass,
    );
}

#[test]
fn truncated_positive() {
    assert_only(
        "We hired 3 engineers, 2 designers and 1 PM, 6 people in total.",
        "We hired 3 engineers and 2 designers, 6 people in total.",
        &["truncated"],
        GateVerdict::Reject,
    );
}

#[test]
fn truncated_negative_total_recomputes() {
    assert_only(
        "We hired 3 engineers, 2 designers and 1 PM, 6 people in total.",
        "We hired 3 engineers, 2 designers and 1 PM: 6 people in total.",
        &[],
        GateVerdict::Pass,
    );
}

#[test]
fn unit_positive() {
    assert_only("The fine was $40,000.", "The fine was 40,000 euros.", &["unit"], GateVerdict::Rewrite);
    assert_only("Turnout rose 5 percentage points.", "Turnout rose 5%.", &["unit"], GateVerdict::Rewrite);
}

#[test]
fn unit_negative_same_unit_written_differently() {
    assert_only("The fine was $40,000.", "The fine was 40,000 dollars.", &[], GateVerdict::Pass);
}

// ---- verdicts outside the checks ----

#[test]
fn nothing_aligned_is_uncheckable_never_pass() {
    let r = check("The quarterly numbers look strong.", "Bob likes hiking in the Alps.");
    assert_eq!(r.verdict, GateVerdict::Uncheckable, "{}", show(&r));
    assert_eq!(check("Some text.", "").verdict, GateVerdict::Uncheckable);
    assert_eq!(check("", "Some text.").verdict, GateVerdict::Uncheckable);
}

#[test]
fn some_unaligned_is_informational() {
    let r = check("Alice has admin access.", "Alice has admin access. Bob likes hiking in the Alps.");
    assert_eq!(r.verdict, GateVerdict::PassWithFlags, "{}", show(&r));
    assert_eq!(r.flags[0].check, Check::Unaligned);
}

#[test]
fn a_sentence_without_content_words_is_not_a_finding() {
    let t = "Alice has admin access. !!!";
    let r = check(t, t);
    assert_eq!(r.verdict, GateVerdict::Pass, "{}", show(&r));
    // the text layer's splitter keeps no piece without a letter, digit or
    // symbol: "!!!" is not a sentence to align
    assert_eq!(r.alignment.len(), 1);
    assert!(r.alignment[0].aligned);
}

#[test]
fn alignment_scores_are_reported() {
    let r = check("Alice has admin access. Bob runs payroll.", "Bob runs payroll.");
    assert_eq!(r.alignment.len(), 1);
    assert_eq!(r.alignment[0].source_index, Some(1));
    assert!(r.alignment[0].aligned && r.alignment[0].score >= amem_gate::ALIGN_THRESHOLD);
}

#[test]
fn summary_carries_model_types() {
    let r = check("According to Reuters, the plant will close.", "The plant will close.");
    let s = r.summary();
    assert_eq!(s.verdict, GateVerdict::Rewrite);
    assert_eq!(s.flags[0].check, "attribution");
    assert_eq!(s.flags[0].cue, "According to");
}

// ---- inspect and drift ----

#[test]
fn inspect_types_every_check() {
    let cases = [
        ("According to Reuters, the plant will close.", "The plant will close.", "dropped_attribution"),
        ("The outage was probably caused by the router.", "The outage was caused by the router.", "strengthened_certainty"),
        ("The vendor did not sign the contract.", "The vendor signed the contract.", "reversed_polarity"),
        ("If the audit passes, the bonus is paid.", "The bonus is paid.", "dropped_condition"),
        ("Bob was the team lead until last week.", "Bob was the team lead.", "dropped_temporal_scope"),
        ("Revenue was 5 and costs were 3, so profit was 2.", "Profit was 2.", "dropped_inputs"),
        ("We hired 3 engineers, 2 designers and 1 PM, 6 people in total.", "We hired 3 engineers, 6 people in total.", "broken_total"),
        ("The fine was $40,000.", "The fine was 40,000 euros.", "changed_unit"),
    ];
    for (s, m, want) in cases {
        let i = inspect(s, m);
        let kinds: Vec<&str> = i.changes.iter().map(|c| c.kind.as_str()).collect();
        assert_eq!(kinds, [want], "{s:?} -> {m:?}");
        assert_eq!(i.not_checked, ["broadened", "weakened"]);
    }
}

#[test]
fn drift_blames_the_hop_that_lost_the_last_cue() {
    let chain = [
        "According to Reuters, the plant will probably close next year.",
        "Reuters said the plant will probably close next year.",
        "The plant will probably close next year.",
        "The plant will close next year.",
    ];
    let d = drift(&chain);
    assert_eq!(d.hops.len(), 3);
    let by: std::collections::BTreeMap<&str, Option<(usize, usize)>> = d.losses.iter().map(|l| (l.kind.as_str(), l.hop)).collect();
    assert_eq!(by.get("dropped_attribution"), Some(&Some((1, 2))), "{}", d.to_text());
    assert_eq!(by.get("strengthened_certainty"), Some(&Some((2, 3))), "{}", d.to_text());
    assert!(d.uncheckable_hops.is_empty());
}

#[test]
fn drift_reports_uncheckable_hops() {
    let d = drift(&["Alice has admin access.", "Bob likes hiking in the Alps.", "Alice has admin access."]);
    assert_eq!(d.uncheckable_hops, [0, 1]);
    assert!(d.hops[0].uncheckable);
}

// ---- properties ----

mod props {
    use super::*;
    use proptest::prelude::*;

    /// Neutral content words: none is a cue, a stopword or a number.
    const WORDS: &[&str] = &[
        "alice", "bob", "server", "contract", "invoice", "budget", "router", "payroll", "office", "plant", "vendor", "team", "laptop",
        "access", "account", "project", "meeting", "ticket", "release", "customer",
    ];

    /// (cue, the check its deletion must raise)
    const CUES: &[(&str, Check)] = &[
        ("not", Check::Polarity),
        ("never", Check::Polarity),
        ("probably", Check::Hedge),
        ("possibly", Check::Hedge),
        ("reportedly", Check::Attribution),
        ("allegedly", Check::Attribution),
        ("yesterday", Check::Temporal),
        ("recently", Check::Temporal),
        ("unless", Check::Condition),
        ("if", Check::Condition),
    ];

    fn sentence() -> impl Strategy<Value = Vec<&'static str>> {
        proptest::collection::vec(proptest::sample::select(WORDS), 3..8)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn identical_memory_always_passes(s in "\\PC{0,200}") {
            let r = check(&s, &s);
            prop_assert!(r.flags.is_empty(), "{}", r.to_text());
            prop_assert!(matches!(r.verdict, GateVerdict::Pass | GateVerdict::Uncheckable));
        }

        #[test]
        fn identical_wordy_memory_passes(words in sentence(), cue in proptest::sample::select(CUES)) {
            let mut w = words.clone();
            w.insert(1, cue.0);
            let s = format!("{}.", w.join(" "));
            let r = check(&s, &s);
            prop_assert_eq!(r.verdict, GateVerdict::Pass, "{}", r.to_text());
        }

        #[test]
        fn arbitrary_utf8_never_panics(a in "\\PC{0,300}", b in "\\PC{0,300}") {
            let r = check(&a, &b);
            let _ = r.summary();
            let _ = inspect(&b, &a);
            let _ = drift(&[&a, &b, &a]);
        }

        #[test]
        fn arbitrary_bytes_lossy_never_panic(a in proptest::collection::vec(any::<u8>(), 0..300)) {
            let t = String::from_utf8_lossy(&a);
            let half: String = t.chars().skip(t.chars().count() / 2).collect();
            let _ = check(&t, &half);
        }

        #[test]
        fn deleting_one_cue_raises_exactly_that_check(words in sentence(), cue in proptest::sample::select(CUES), pos in 1usize..3) {
            let mut with = words.clone();
            let pos = pos.min(with.len());
            with.insert(pos, cue.0);
            let source = format!("{}.", with.join(" "));
            let memory = format!("{}.", words.join(" "));
            let r = check(&source, &memory);
            let want: BTreeSet<Check> = [cue.1].into_iter().collect();
            prop_assert_eq!(r.checks(), want, "{} -> {}\n{}", source, memory, r.to_text());
        }
    }
}
