//! `inspect`: the gate's findings as typed changes.

use crate::check::check;
use crate::report::{Check, GateReport, NOT_CHECKED};
use amem_records::{GateVerdict, Span};
use serde::{Deserialize, Serialize};

/// One typed change between source and memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// `dropped_attribution`, `strengthened_certainty`, `reversed_polarity`,
    /// `dropped_condition`, `dropped_temporal_scope`, `dropped_inputs`,
    /// `broken_total`, `changed_unit` (or `unaligned`, informational).
    #[serde(rename = "type")]
    pub kind: String,
    /// The check that found it.
    pub check: Check,
    /// The source sentence.
    pub source_sentence: String,
    /// Byte span of the cue in the source.
    pub source_span: Span,
    /// The cue text.
    pub cue: String,
    /// The memory sentence.
    pub memory_sentence: String,
    /// The rule or lexicon entry.
    pub rule: String,
}

/// The typed-change view of a gate report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InspectReport {
    /// The gate verdict.
    pub verdict: GateVerdict,
    /// One change per flag.
    pub changes: Vec<Change>,
    /// Change types with no detector: always `["broadened", "weakened"]`.
    pub not_checked: Vec<String>,
}

impl InspectReport {
    /// Typed changes of an existing report.
    pub fn from_report(r: &GateReport) -> InspectReport {
        InspectReport {
            verdict: r.verdict,
            changes: r
                .flags
                .iter()
                .map(|f| Change {
                    kind: f.check.change_type().to_string(),
                    check: f.check,
                    source_sentence: f.source_sentence.clone(),
                    source_span: f.source_span,
                    cue: f.cue.clone(),
                    memory_sentence: f.memory_sentence.clone(),
                    rule: f.rule.clone(),
                })
                .collect(),
            not_checked: NOT_CHECKED.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Text for people.
    pub fn to_text(&self) -> String {
        let mut s = format!("verdict: {}\n", self.verdict.as_str());
        if self.changes.is_empty() {
            s.push_str("no changes found\n");
        }
        for c in &self.changes {
            s.push_str(&format!(
                "- {}: {:?} ({}) in {:?}\n    memory: {:?}\n",
                c.kind, c.cue, c.rule, c.source_sentence, c.memory_sentence
            ));
        }
        s.push_str(&format!("not checked (no detector): {}\n", self.not_checked.join(", ")));
        s
    }
}

/// Gate `memory` against `source` and report typed changes.
pub fn inspect(source: &str, memory: &str) -> InspectReport {
    InspectReport::from_report(&check(source, memory))
}
