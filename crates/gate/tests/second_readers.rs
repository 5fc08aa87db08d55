//! The gate's second readers (`amem_gate::models`): whatever a role answers, the gate checks
//! it against the text and can only add a finding. The roles here answer from a table, as a
//! model behind an endpoint would (the endpoint itself is tested in `amem-endpoint` and
//! through the binary).

use amem_gate::{AddedContent, Addition, Check, GateModels, Stance, Witness, check, check_with};
use amem_records::GateVerdict;
use std::ops::Range;

/// A witness that reads `marker` as a hedge wherever it occurs, or answers with `forced`.
struct TableWitness {
    marker: &'static str,
    forced: Option<Option<Stance>>,
}

impl Witness for TableWitness {
    fn method(&self) -> &str {
        "test:witness"
    }
    fn read(&self, sentence: &str) -> Option<Stance> {
        if let Some(f) = &self.forced {
            return f.clone();
        }
        let hedge: Vec<Range<usize>> = sentence.find(self.marker).map(|i| i..i + self.marker.len()).into_iter().collect();
        Some(Stance { hedge, attribution: Vec::new() })
    }
}

struct TableAdded(Option<Addition>);

impl AddedContent for TableAdded {
    fn method(&self) -> &str {
        "test:added"
    }
    fn judge(&self, _source: &str, _memory_sentence: &str) -> Option<Addition> {
        self.0.clone()
    }
}

const SOURCE: &str = "Word on the floor is that the merger closes in May.";
const MEMORY: &str = "The merger closes in May.";

#[test]
fn a_witness_adds_a_hedge_the_word_lists_miss_and_nothing_else() {
    assert_eq!(check(SOURCE, MEMORY).verdict, GateVerdict::Pass);
    let w = TableWitness { marker: "Word on the floor is", forced: None };
    let r = check_with(SOURCE, MEMORY, GateModels { witness: Some(&w), added: None });
    assert_eq!(r.verdict, GateVerdict::Rewrite);
    assert_eq!(
        (r.flags[0].check, r.flags[0].rule.as_str(), r.flags[0].cue.as_str()),
        (Check::Hedge, "llm.witness:hedge", "Word on the floor is")
    );
    assert_eq!((r.models[0].asked, r.models[0].answered), (2, 2));
    // The memory keeps the source's marker: nothing to flag.
    let kept = check_with(SOURCE, "Word on the floor is the merger closes in May.", GateModels { witness: Some(&w), added: None });
    assert_eq!(kept.verdict, GateVerdict::Pass);
    // The word lists already decided the sentence: the witness is not asked about that class.
    let listed = check_with("The merger may close in May.", MEMORY, GateModels { witness: Some(&w), added: None });
    assert_eq!(listed.flags.iter().filter(|f| f.check == Check::Hedge).count(), 1);
    assert!(listed.flags.iter().all(|f| !f.rule.starts_with("llm.")), "{:?}", listed.flags);
}

#[test]
fn an_answer_the_gate_cannot_check_is_not_established() {
    for forced in [
        None,
        Some(Stance { hedge: std::iter::once(40..400).collect(), attribution: Vec::new() }),
        Some(Stance { hedge: std::iter::once(3..3).collect(), attribution: Vec::new() }),
    ] {
        let w = TableWitness { marker: "", forced: Some(forced.clone()) };
        let r = check_with(SOURCE, MEMORY, GateModels { witness: Some(&w), added: None });
        assert_eq!(r.verdict, GateVerdict::Pass, "{forced:?}");
        assert_eq!((r.models[0].answered, r.models[0].not_established), (0, 1), "{forced:?}");
    }
}

#[test]
fn added_content_counts_only_words_the_source_does_not_have() {
    let src = "Alice was promoted to team lead this morning.";
    let mem = "Alice was promoted to CTO this morning.";
    let unsupported = |added: Range<usize>| TableAdded(Some(Addition::Unsupported { source: 10..31, added }));
    let a = unsupported(22..25);
    let r = check_with(src, mem, GateModels { witness: None, added: Some(&a) });
    assert_eq!(r.verdict, GateVerdict::Rewrite);
    assert_eq!((r.flags[0].check, r.flags[0].cue.as_str(), r.flags[0].source_sentence.as_str()), (Check::Added, "CTO", src));
    // "promoted" is the source's own word: not added, not established.
    let a = unsupported(10..18);
    let r = check_with(src, mem, GateModels { witness: None, added: Some(&a) });
    assert_eq!((r.verdict, r.models[0].not_established), (GateVerdict::Pass, 1));
    // Supported, cannot tell, or no answer: nothing is added, and a flagged memory stays flagged.
    for answer in [Some(Addition::Supported { source: 0..9 }), Some(Addition::CannotTell), None] {
        let a = TableAdded(answer);
        let flat = check_with("Reportedly, the plant closed.", "The plant closed.", GateModels { witness: None, added: Some(&a) });
        assert_eq!(flat.verdict, GateVerdict::Rewrite);
        assert_eq!(flat.flags.len(), 1);
    }
}
