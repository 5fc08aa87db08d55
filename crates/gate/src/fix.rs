//! The fixer: for a memory the gate sent back for a rewrite, a model proposes one that keeps
//! what the source said. A proposal is never applied: it is a new revision beside the memory
//! (its own content digest, naming the one it revises), shown only when it passes the same
//! gate (the same second readers included), and reported with its own gate result.

use crate::models::GateModels;
use crate::report::{Flag, GateReport};
use amem_records::{Digest, GateVerdict};
use serde::{Deserialize, Serialize};

/// The fixer role.
pub trait Fixer: Sync {
    /// The method its proposals name (`llm:<model>@fix-1`).
    fn method(&self) -> &str;
    /// A rewrite of `memory` that keeps what `source` said, given the gate's `flags`; `None`
    /// when it gave no usable answer.
    fn propose(&self, source: &str, memory: &str, flags: &[Flag]) -> Option<String>;
}

/// What came of asking for a fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixOutcome {
    /// The proposal passed the gate: shown.
    Shown,
    /// The proposal did not pass the gate: its text is not shown.
    FailedGate,
    /// The model gave no usable proposal (or repeated the memory).
    NoProposal,
}

/// A proposed revision of a memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    /// Who proposed it.
    pub method: String,
    /// What came of it.
    pub outcome: FixOutcome,
    /// The SHA-256 of the memory it revises (which is left as it was).
    pub revises: String,
    /// The SHA-256 of the proposed text: the new revision's id (when there is a proposal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// The proposed text, only when it passed the gate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The proposal's own gate verdict (when there is a proposal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<GateVerdict>,
    /// The proposal's own gate report, when it passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<Box<GateReport>>,
}

/// Ask `fixer` for a rewrite of `memory`, whose gate report against `source` is `report`, and
/// gate the proposal with the same `models`. `None` unless the verdict is `REWRITE`: a
/// passing memory needs no fix, and a rejected one lost what a rewrite cannot restore
/// (values only the source had are for the writer to bring back from the source).
pub fn fix(source: &str, memory: &str, report: &GateReport, models: GateModels<'_>, fixer: &dyn Fixer) -> Option<Proposal> {
    if report.verdict != GateVerdict::Rewrite {
        return None;
    }
    let revises = Digest::of(memory.as_bytes()).to_hex();
    let mut p = Proposal {
        method: fixer.method().to_string(),
        outcome: FixOutcome::NoProposal,
        revises,
        revision: None,
        text: None,
        verdict: None,
        gate: None,
    };
    let Some(text) = fixer.propose(source, memory, &report.flags).filter(|t| !t.trim().is_empty() && t.trim() != memory.trim()) else {
        return Some(p);
    };
    let regated = crate::check_with(source, &text, models);
    p.revision = Some(Digest::of(text.as_bytes()).to_hex());
    p.verdict = Some(regated.verdict);
    if matches!(regated.verdict, GateVerdict::Pass | GateVerdict::PassWithFlags) {
        p.outcome = FixOutcome::Shown;
        p.text = Some(text);
        p.gate = Some(Box::new(regated));
    } else {
        p.outcome = FixOutcome::FailedGate;
    }
    Some(p)
}

impl Proposal {
    /// Lines for people (what `amem gate --fix` prints under the report).
    pub fn to_text(&self) -> String {
        match self.outcome {
            FixOutcome::Shown => format!(
                "proposed revision {} (by {}, revises {}; the memory is left as it was), gate {}:\n    {:?}\n",
                short(self.revision.as_deref()),
                self.method,
                short(Some(&self.revises)),
                self.verdict.map(|v| v.as_str()).unwrap_or("-"),
                self.text.as_deref().unwrap_or("")
            ),
            FixOutcome::FailedGate => format!(
                "no fix shown: the proposal by {} did not pass the gate ({})\n",
                self.method,
                self.verdict.map(|v| v.as_str()).unwrap_or("-")
            ),
            FixOutcome::NoProposal => format!("no fix shown: {} gave no usable proposal\n", self.method),
        }
    }
}

fn short(hex: Option<&str>) -> &str {
    hex.map(|h| &h[..h.len().min(12)]).unwrap_or("-")
}
