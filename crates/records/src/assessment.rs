//! The `Assessment` record and the status vocabulary (docs/architecture.md, "Status vocabulary").

use crate::{ClaimId, Evidence, Span};
use serde::{Deserialize, Serialize};

/// A claim's status. Each maps to exactly one report [`Group`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The evidence entails the claim within its stated scope, every
    /// discriminant (number, date, name) matched in value.
    Supported,
    /// A shared proposition with incompatible value or polarity; both spans named.
    Contradicted,
    /// Some facets supported, the rest named as unsupported; or hedged /
    /// scoped evidence against a flat claim.
    PartiallySupported,
    /// Topically related evidence that does not support the assertion.
    NotAddressed,
    /// Nothing relevant in the reviewed set (local wiki + trust list as searched).
    NoEvidence,
    /// The sources disagree (one passage entails the claim, another
    /// conflicts with it), or the claim is too unclear to assess.
    Ambiguous,
    /// The claim has nothing a note could check: past its function words,
    /// pronouns and stance words no content word is left ("That is what I
    /// said."). Counted apart from `ambiguous`; never grounded on the trust list.
    NotCheckable,
    /// Supporting evidence older than the freshness policy, or its source changed.
    Stale,
    /// Nothing relevant locally, and a trust-list source that would have
    /// been searched could not be asked (unreachable, timed out, asked to
    /// wait, circuit open): never reported as `no_evidence`, since nobody
    /// looked.
    SourceUnavailable,
}

/// The three report groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// ✅
    Supported,
    /// ⚠
    Contradicted,
    /// ❓ everything that is neither: uncheckable is never a pass.
    Unverified,
}

impl Status {
    /// All statuses, in report order.
    pub const ALL: [Status; 9] = [
        Status::Supported,
        Status::Contradicted,
        Status::PartiallySupported,
        Status::NotAddressed,
        Status::NoEvidence,
        Status::Ambiguous,
        Status::NotCheckable,
        Status::Stale,
        Status::SourceUnavailable,
    ];

    /// The report group this status belongs to.
    pub fn group(&self) -> Group {
        match self {
            Status::Supported => Group::Supported,
            Status::Contradicted => Group::Contradicted,
            _ => Group::Unverified,
        }
    }

    /// snake_case name, as serialised.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Supported => "supported",
            Status::Contradicted => "contradicted",
            Status::PartiallySupported => "partially_supported",
            Status::NotAddressed => "not_addressed",
            Status::NoEvidence => "no_evidence",
            Status::Ambiguous => "ambiguous",
            Status::NotCheckable => "not_checkable",
            Status::Stale => "stale",
            Status::SourceUnavailable => "source_unavailable",
        }
    }

    /// Parse the snake_case name.
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// The verdict of the design's API (`amem factcheck --json`, the MCP
    /// tool): `SUPPORTED`, `CONTRADICTED`, `UNAVAILABLE` when a source that
    /// would have been searched could not be asked (never "no evidence":
    /// nobody looked), else `NO_EVIDENCE`.
    pub fn rfc_verdict(&self) -> &'static str {
        match self {
            Status::SourceUnavailable => "UNAVAILABLE",
            other => other.group().rfc_verdict(),
        }
    }

    /// Rank for "a model may only lower a verdict": higher is stronger.
    /// Supported and contradicted are both decisive; everything unverified ranks below.
    pub fn strength(&self) -> u8 {
        match self.group() {
            Group::Supported | Group::Contradicted => 2,
            Group::Unverified => 1,
        }
    }
}

impl Group {
    /// snake_case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Group::Supported => "supported",
            Group::Contradicted => "contradicted",
            Group::Unverified => "unverified",
        }
    }

    /// The group's verdict in the design's API: `SUPPORTED | CONTRADICTED |
    /// NO_EVIDENCE`, with `NO_EVIDENCE` for the unverified group; a claim's
    /// own verdict is [`Status::rfc_verdict`], which keeps `UNAVAILABLE` apart.
    pub fn rfc_verdict(&self) -> &'static str {
        match self {
            Group::Supported => "SUPPORTED",
            Group::Contradicted => "CONTRADICTED",
            Group::Unverified => "NO_EVIDENCE",
        }
    }
}

/// One reason behind a status: the claim facet it addresses and the
/// evidence spans it rests on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    /// The claim facet: `number`, `date`, `polarity`, `scope`, `hedge`, `topic`, ...
    pub facet: String,
    /// Human-readable explanation.
    pub detail: String,
    /// Span of the claim text this reason is about, if any.
    pub claim_span: Option<Span>,
    /// The evidence it cites.
    pub evidence: Vec<Evidence>,
    /// The rule that fired, e.g. `number.value_mismatch`.
    pub rule: String,
}

/// The gate's verdict, from a fixed table (docs/architecture.md, "The gate").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum GateVerdict {
    /// Nothing found.
    Pass,
    /// Informational findings only.
    PassWithFlags,
    /// Stance, scope or unit losses a rewrite can fix.
    Rewrite,
    /// Arithmetic losses the reader can no longer check.
    Reject,
    /// Nothing aligned: never a pass.
    Uncheckable,
}

impl GateVerdict {
    /// SCREAMING_SNAKE name.
    pub fn as_str(&self) -> &'static str {
        match self {
            GateVerdict::Pass => "PASS",
            GateVerdict::PassWithFlags => "PASS_WITH_FLAGS",
            GateVerdict::Rewrite => "REWRITE",
            GateVerdict::Reject => "REJECT",
            GateVerdict::Uncheckable => "UNCHECKABLE",
        }
    }
}

/// One gate finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateFlag {
    /// `polarity`, `condition`, `hedge`, `attribution`, `temporal`,
    /// `brittle`, `truncated`, `unit`, or `unaligned` (informational).
    pub check: String,
    /// The source sentence the flag reads.
    pub source_sentence: String,
    /// Byte span of the cue in the source text.
    pub source_span: Span,
    /// The cue text, verbatim.
    pub cue: String,
    /// The memory sentence that lost it.
    pub memory_sentence: String,
    /// The lexicon entry or rule that fired.
    pub rule: String,
}

/// The gate's result as it travels with an assessment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateSummary {
    /// The verdict.
    pub verdict: GateVerdict,
    /// The findings.
    pub flags: Vec<GateFlag>,
}

/// An observation about one claim revision against named evidence, made by
/// a named method at a time. Append-only: re-running adds new ones.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assessment {
    /// The claim assessed.
    pub claim: ClaimId,
    /// Its status.
    pub status: Status,
    /// Method: `deterministic@<version>` or `llm:<model>@<prompt-version>`.
    pub method: String,
    /// Reasons, each citing evidence spans.
    pub reasons: Vec<Reason>,
    /// Gate result on the claim against the evidence its verdict rests on.
    pub gate: Option<GateSummary>,
    /// When, RFC 3339 UTC (from the run's clock, not the wall clock in tests).
    pub assessed_at: String,
    /// Policy version the verdict was made under.
    pub policy_version: String,
}

impl Assessment {
    /// The report group.
    pub fn group(&self) -> Group {
        self.status.group()
    }
}

/// Something a stage could not use, and why: counted in every report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// Stage: `import`, `extract`, `recall`, `factcheck`, `verify`, `report`.
    pub stage: String,
    /// File and position (byte offset, line, ROWID), or URL.
    pub locator: String,
    /// Why, in words.
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups() {
        assert_eq!(Status::Supported.group(), Group::Supported);
        assert_eq!(Status::Contradicted.group(), Group::Contradicted);
        for s in [
            Status::PartiallySupported,
            Status::NotAddressed,
            Status::NoEvidence,
            Status::Ambiguous,
            Status::NotCheckable,
            Status::Stale,
            Status::SourceUnavailable,
        ] {
            assert_eq!(s.group(), Group::Unverified, "{s:?}");
            assert_eq!(s.group().rfc_verdict(), "NO_EVIDENCE");
            // Nobody looked: an unreachable source is never "no evidence".
            assert_eq!(s.rfc_verdict(), if s == Status::SourceUnavailable { "UNAVAILABLE" } else { "NO_EVIDENCE" });
        }
        assert_eq!(Status::Supported.rfc_verdict(), "SUPPORTED");
        assert_eq!(Status::Contradicted.rfc_verdict(), "CONTRADICTED");
    }

    #[test]
    fn names_round_trip() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
            let j = serde_json::to_string(&s).unwrap();
            assert_eq!(j, format!("\"{}\"", s.as_str()));
        }
        assert_eq!(serde_json::to_string(&GateVerdict::PassWithFlags).unwrap(), "\"PASS_WITH_FLAGS\"");
    }
}
