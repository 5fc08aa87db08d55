//! Second readers the gate may consult: a model's answers, each checked against the text it
//! is about before it counts, and each able only to add a finding, never to remove one.
//!
//! - The **witness** ([`Witness`]) reads one sentence and says whether it hedges and whether
//!   it attributes, with the marker words. The gate asks it about an aligned source sentence
//!   in which the word lists found no hedge (or no attribution), and, when it reads one there,
//!   about the memory sentences aligned to it: a hedge or attribution the source carries and
//!   the memory does not (by the word lists, by the source's own marker words, and by the
//!   witness) is flagged as the deterministic check would flag it (`llm.witness:hedge`).
//! - The **added-content detector** ([`AddedContent`]) reads one memory sentence against the
//!   source and says supported, unsupported or cannot tell; an unsupported answer names the
//!   memory's added words and quotes the source, and becomes an [`Check::Added`] finding.
//!
//! Both are implemented behind a model endpoint (crate `amem-endpoint`); this crate only
//! defines what an answer is and what the gate does with it. The markers and quotes come as
//! byte ranges the implementation found verbatim; the gate checks them again (inside the
//! text, at character boundaries, not empty) and takes an answer that fails as not
//! established. A role that gives no answer adds nothing: the deterministic verdict stands,
//! and [`ModelUse`] counts what was asked, answered and not established.

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// A witness's reading of one sentence: the byte ranges, in the sentence, of the marker words
/// of a hedge and of an attribution (empty: it read none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stance {
    /// Hedge markers ("may", "reportedly", "I think").
    pub hedge: Vec<Range<usize>>,
    /// Attribution markers ("according to the CFO", "she said").
    pub attribution: Vec<Range<usize>>,
}

/// The witness role: one sentence, one question.
pub trait Witness: Sync {
    /// The method its findings name (`llm:<model>@witness-1`).
    fn method(&self) -> &str;
    /// Its reading of `sentence`; `None` when it gave no usable answer.
    fn read(&self, sentence: &str) -> Option<Stance>;
}

/// An added-content detector's answer about one memory sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addition {
    /// The source states it; `source` is the quoted range of the source text.
    Supported {
        /// The quoted source bytes.
        source: Range<usize>,
    },
    /// The memory sentence says something the source does not: `added` is the range of those
    /// words in the memory sentence, `source` the quoted range of the source it compared with.
    Unsupported {
        /// The quoted source bytes.
        source: Range<usize>,
        /// The added words, in the memory sentence.
        added: Range<usize>,
    },
    /// It cannot tell (an abstention: nothing is concluded).
    CannotTell,
}

/// The added-content role.
pub trait AddedContent: Sync {
    /// The method its findings name (`llm:<model>@added-1`).
    fn method(&self) -> &str;
    /// Its answer about `memory_sentence` against `source`; `None` when it gave no usable answer.
    fn judge(&self, source: &str, memory_sentence: &str) -> Option<Addition>;
}

/// The second readers a gate run consults (none by default: the deterministic gate alone).
#[derive(Clone, Copy, Default)]
pub struct GateModels<'a> {
    /// The witness, if configured.
    pub witness: Option<&'a dyn Witness>,
    /// The added-content detector, if configured.
    pub added: Option<&'a dyn AddedContent>,
}

impl std::fmt::Debug for GateModels<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GateModels")
            .field("witness", &self.witness.map(Witness::method))
            .field("added", &self.added.map(AddedContent::method))
            .finish()
    }
}

impl GateModels<'_> {
    /// True when no role is configured.
    pub fn is_empty(&self) -> bool {
        self.witness.is_none() && self.added.is_none()
    }
}

/// What one role was asked in one gate run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelUse {
    /// `witness` or `added_content`.
    pub role: String,
    /// `llm:<model>@<prompt-version>`.
    pub method: String,
    /// Questions put to it.
    pub asked: u32,
    /// Answers that passed the checks.
    pub answered: u32,
    /// Questions with no usable answer (failure, discarded, or cannot tell): nothing concluded.
    pub not_established: u32,
}

impl ModelUse {
    /// Add `more` (one gate run's uses) into `total`, role by role: what a pool or a bench
    /// reports for all its runs.
    pub fn add_all(total: &mut Vec<ModelUse>, more: &[ModelUse]) {
        for m in more {
            match total.iter_mut().find(|t| t.role == m.role && t.method == m.method) {
                Some(t) => {
                    t.asked += m.asked;
                    t.answered += m.answered;
                    t.not_established += m.not_established;
                }
                None => total.push(m.clone()),
            }
        }
    }

    /// One line for people.
    pub fn describe(&self) -> String {
        format!(
            "model {} ({}): {} asked, {} answered, {} not established",
            self.role, self.method, self.asked, self.answered, self.not_established
        )
    }
}

/// `range` when it is a non-empty range of `text` at character boundaries.
pub(crate) fn valid(text: &str, range: &Range<usize>) -> bool {
    range.start < range.end && text.get(range.clone()).is_some_and(|s| !s.trim().is_empty())
}
