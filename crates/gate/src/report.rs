//! The gate's output: checks, flags, per-sentence alignment, the verdict
//! table, and the conversion to the model's [`GateSummary`].

use amem_records::{GateFlag, GateSummary, GateVerdict, Span};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Change types the gate has no detector for; listed on every report so a
/// reader never takes silence for a pass. The one list is the records' (the audit's report
/// lists it too, and cannot depend on the gate).
pub const NOT_CHECKED: &[&str] = &amem_records::NOT_CHECKED_CHANGE_TYPES;

/// One of the gate's checks (docs/architecture.md, "The gate"), plus the informational
/// `unaligned` finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// The source denied it, the memory asserts it (or the reverse).
    Polarity,
    /// An if/unless/provided-that on the source claim is gone.
    Condition,
    /// The source hedged (in the matched sentence or a neighbour), the memory is flat.
    Hedge,
    /// Who said it is gone.
    Attribution,
    /// The source dated or time-scoped it, the memory does not.
    Temporal,
    /// A conclusion kept, the values it came from dropped.
    Brittle,
    /// A stated total no longer recomputes from the listed parts.
    Truncated,
    /// A value kept, its unit or currency changed.
    Unit,
    /// The memory says what the source does not (found only by a model's added-content
    /// detector, [`crate::models::AddedContent`], never by the word lists).
    Added,
    /// A memory sentence aligned to no source sentence while others did
    /// (informational).
    Unaligned,
}

/// How a check weighs in the verdict table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Shown, does not fail the write.
    Informational,
    /// A stance, scope or unit loss a rewrite can fix.
    Rewrite,
    /// An arithmetic or value loss the reader can no longer check.
    Reject,
}

impl Check {
    /// The eight checks, in the order of docs/architecture.md, "The gate" (without `unaligned`).
    pub const ALL: [Check; 8] = [
        Check::Polarity,
        Check::Condition,
        Check::Hedge,
        Check::Attribution,
        Check::Temporal,
        Check::Brittle,
        Check::Truncated,
        Check::Unit,
    ];

    /// snake_case name, as in the JSON output.
    pub fn as_str(&self) -> &'static str {
        match self {
            Check::Polarity => "polarity",
            Check::Condition => "condition",
            Check::Hedge => "hedge",
            Check::Attribution => "attribution",
            Check::Temporal => "temporal",
            Check::Brittle => "brittle",
            Check::Truncated => "truncated",
            Check::Unit => "unit",
            Check::Added => "added",
            Check::Unaligned => "unaligned",
        }
    }

    /// The verdict table (one fixed table, not a score):
    ///
    /// | check | severity | verdict when present |
    /// |---|---|---|
    /// | brittle, truncated | reject | `REJECT` |
    /// | polarity, condition, hedge, attribution, temporal, unit, added | rewrite | `REWRITE` |
    /// | unaligned | informational | `PASS_WITH_FLAGS` |
    pub fn severity(&self) -> Severity {
        match self {
            Check::Brittle | Check::Truncated => Severity::Reject,
            Check::Unaligned => Severity::Informational,
            _ => Severity::Rewrite,
        }
    }

    /// The `inspect` change type this check reports.
    pub fn change_type(&self) -> &'static str {
        match self {
            Check::Polarity => "reversed_polarity",
            Check::Condition => "dropped_condition",
            Check::Hedge => "strengthened_certainty",
            Check::Attribution => "dropped_attribution",
            Check::Temporal => "dropped_temporal_scope",
            Check::Brittle => "dropped_inputs",
            Check::Truncated => "broken_total",
            Check::Unit => "changed_unit",
            Check::Added => "added_content",
            Check::Unaligned => "unaligned",
        }
    }
}

/// One finding, with the evidence it rests on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Flag {
    /// Which check fired.
    pub check: Check,
    /// The source sentence the check read (the matched sentence, or the
    /// neighbour that carried the hedge). Empty for `unaligned`.
    pub source_sentence: String,
    /// Byte span of the cue in the source text (for `unaligned`, empty; for
    /// a polarity flag raised by a negation the memory added, the source
    /// sentence, which has no cue).
    pub source_span: Span,
    /// The cue text, verbatim from the source (for a polarity flag raised by
    /// a negation the memory added, the memory's cue).
    pub cue: String,
    /// The memory sentence that lost it.
    pub memory_sentence: String,
    /// Byte span of that memory sentence in the memory text.
    pub memory_span: Span,
    /// The lexicon entry (`attribution:say`) or rule (`unit:USD->EUR`) that fired.
    pub rule: String,
    /// One line for people.
    pub detail: String,
}

/// How one memory sentence aligned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Alignment {
    /// Index of the memory sentence.
    pub memory_index: usize,
    /// The memory sentence.
    pub memory_sentence: String,
    /// Its byte span in the memory text.
    pub memory_span: Span,
    /// Index of the best source sentence, if any source sentence shares a
    /// content word.
    pub source_index: Option<usize>,
    /// The best source sentence.
    pub source_sentence: Option<String>,
    /// Its byte span in the source text.
    pub source_span: Option<Span>,
    /// Content-word containment: shared content words over the smaller of
    /// the two sentences' content-word sets (0..=1).
    pub score: f64,
    /// `score >= threshold`.
    pub aligned: bool,
}

/// The gate's full result for one source/memory pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateReport {
    /// From the fixed verdict table ([`Check::severity`]).
    pub verdict: GateVerdict,
    /// The findings, in memory-sentence order then check order.
    pub flags: Vec<Flag>,
    /// One entry per memory sentence.
    pub alignment: Vec<Alignment>,
    /// Change types with no detector ([`NOT_CHECKED`]).
    pub not_checked: Vec<String>,
    /// The alignment threshold used.
    pub threshold: f64,
    /// The model roles asked ([`crate::models`]); empty for the deterministic gate alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<crate::models::ModelUse>,
}

impl GateReport {
    /// Apply the verdict table: nothing aligned → `UNCHECKABLE`; else the
    /// worst severity among the flags (reject > rewrite > informational),
    /// `PASS` when there are none.
    pub(crate) fn verdict_for(alignment: &[Alignment], flags: &[Flag]) -> GateVerdict {
        if !alignment.iter().any(|a| a.aligned) {
            return GateVerdict::Uncheckable;
        }
        match flags.iter().map(|f| f.check.severity()).max() {
            None => GateVerdict::Pass,
            Some(Severity::Informational) => GateVerdict::PassWithFlags,
            Some(Severity::Rewrite) => GateVerdict::Rewrite,
            Some(Severity::Reject) => GateVerdict::Reject,
        }
    }

    /// The report as it travels with an assessment (amem-records types).
    pub fn summary(&self) -> GateSummary {
        GateSummary {
            verdict: self.verdict,
            flags: self
                .flags
                .iter()
                .map(|f| GateFlag {
                    check: f.check.as_str().to_string(),
                    source_sentence: f.source_sentence.clone(),
                    source_span: f.source_span,
                    cue: f.cue.clone(),
                    memory_sentence: f.memory_sentence.clone(),
                    rule: f.rule.clone(),
                })
                .collect(),
        }
    }

    /// The set of checks that fired (without `unaligned`).
    pub fn checks(&self) -> BTreeSet<Check> {
        self.flags.iter().map(|f| f.check).filter(|c| *c != Check::Unaligned).collect()
    }

    /// A human-readable rendering (what `amem gate --format text` prints).
    pub fn to_text(&self) -> String {
        let mut s = format!("verdict: {}\n", self.verdict.as_str());
        if self.flags.is_empty() {
            s.push_str("no findings\n");
        }
        for f in &self.flags {
            s.push_str(&format!("- {}: {}\n", f.check.as_str(), f.detail));
            if !f.source_sentence.is_empty() {
                s.push_str(&format!(
                    "    source: {:?}\n    cue:    {:?} at bytes {}..{} ({})\n",
                    f.source_sentence, f.cue, f.source_span.start, f.source_span.end, f.rule
                ));
            }
            s.push_str(&format!("    memory: {:?}\n", f.memory_sentence));
        }
        s.push_str("alignment:\n");
        for a in &self.alignment {
            let tag = if a.aligned { "aligned" } else { "unaligned" };
            match &a.source_sentence {
                Some(src) => s.push_str(&format!("  [{}] {:.2} {tag}: {:?} <- {:?}\n", a.memory_index, a.score, a.memory_sentence, src)),
                None => s.push_str(&format!("  [{}] 0.00 {tag}: {:?}\n", a.memory_index, a.memory_sentence)),
            }
        }
        s.push_str(&format!("not checked (no detector): {}\n", self.not_checked.join(", ")));
        for m in &self.models {
            s.push_str(&m.describe());
            s.push('\n');
        }
        s
    }
}
