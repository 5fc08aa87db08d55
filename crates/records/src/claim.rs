//! The `Claim` record: the smallest independently assessable assertion.

use crate::{Digest, MessageId, Span};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A claim's id: the digest of its message digest, span and text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClaimId(pub Digest);

impl fmt::Display for ClaimId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.short(16))
    }
}

/// What kind of sentence a claim is. The first seven are audited; the rest
/// are counted but never assessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// A factual statement about the world.
    Fact,
    /// A statement carrying a number with its anchor.
    Quantity,
    /// A statement dating an event.
    Date,
    /// Someone else's statement reported ("X said Y").
    Attribution,
    /// A comparison ("more than", "faster than").
    Comparison,
    /// A cause ("because", "led to").
    Causal,
    /// A statement about the future.
    Prediction,
    /// An opinion or preference (not audited).
    Opinion,
    /// A question (not audited).
    Question,
    /// Logistics: requests, scheduling (not audited).
    Logistics,
    /// Greeting, thanks, sign-off, emoji-only, joke (not audited).
    Greeting,
    /// A statement the word rules read as a claim and the check-worthiness model
    /// does not: a factual aside not worth checking ("I was in Houston last
    /// week."), a slogan, a line of a listing (not audited).
    NotCheckWorthy,
}

impl ClaimKind {
    /// True for the kinds the audit assesses.
    pub fn is_audited(&self) -> bool {
        matches!(
            self,
            ClaimKind::Fact
                | ClaimKind::Quantity
                | ClaimKind::Date
                | ClaimKind::Attribution
                | ClaimKind::Comparison
                | ClaimKind::Causal
                | ClaimKind::Prediction
        )
    }

    /// snake_case name, as serialised.
    pub fn as_str(&self) -> &'static str {
        match self {
            ClaimKind::Fact => "fact",
            ClaimKind::Quantity => "quantity",
            ClaimKind::Date => "date",
            ClaimKind::Attribution => "attribution",
            ClaimKind::Comparison => "comparison",
            ClaimKind::Causal => "causal",
            ClaimKind::Prediction => "prediction",
            ClaimKind::Opinion => "opinion",
            ClaimKind::Question => "question",
            ClaimKind::Logistics => "logistics",
            ClaimKind::Greeting => "greeting",
            ClaimKind::NotCheckWorthy => "not_check_worthy",
        }
    }
}

/// The class of a stance cue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CueClass {
    /// "maybe", "I think", "not sure".
    Hedge,
    /// "according to", "X said".
    Attribution,
    /// "not", "never", "no".
    Negation,
    /// "if", "unless", "provided that".
    Condition,
    /// "yesterday", "in 2019", "as of May".
    Temporal,
}

impl CueClass {
    /// snake_case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            CueClass::Hedge => "hedge",
            CueClass::Attribution => "attribution",
            CueClass::Negation => "negation",
            CueClass::Condition => "condition",
            CueClass::Temporal => "temporal",
        }
    }
}

/// A stance cue found in a text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Cue {
    /// Which class.
    pub class: CueClass,
    /// The cue text, verbatim.
    pub text: String,
    /// Where it sits, in bytes of the text it was found in.
    pub span: Span,
    /// The lexicon entry or rule that fired.
    pub rule: String,
}

/// One assessable assertion out of a message. Immutable; a correction is a
/// new claim (new span or text, so a new id).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// Content id.
    pub id: ClaimId,
    /// The message it came from.
    pub message: MessageId,
    /// Digest of that message revision.
    pub message_digest: Digest,
    /// Byte span of the claim in `Message.text`.
    pub span: Span,
    /// The claim text, verbatim from the message.
    pub text: String,
    /// Its kind.
    pub kind: ClaimKind,
    /// Stance cues it carries, spans relative to `text`.
    pub cues: Vec<Cue>,
    /// Extractor name and version, e.g. `rules@1`.
    pub extractor: String,
}

impl Claim {
    /// The id a claim with these parts has.
    pub fn id_for(message_digest: &Digest, span: Span, text: &str) -> ClaimId {
        ClaimId(Digest::of_fields([
            message_digest.0.as_slice(),
            &(span.start as u64).to_le_bytes(),
            &(span.end as u64).to_le_bytes(),
            text.as_bytes(),
        ]))
    }

    /// True when any cue of the class is present.
    pub fn has_cue(&self, class: CueClass) -> bool {
        self.cues.iter().any(|c| c.class == class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audited_kinds() {
        assert!(ClaimKind::Fact.is_audited());
        assert!(ClaimKind::Prediction.is_audited());
        assert!(!ClaimKind::Opinion.is_audited());
        assert!(!ClaimKind::Greeting.is_audited());
    }

    #[test]
    fn id_depends_on_span() {
        let d = Digest::of(b"m");
        assert_ne!(Claim::id_for(&d, Span::new(0, 3), "abc"), Claim::id_for(&d, Span::new(1, 4), "abc"));
    }
}
