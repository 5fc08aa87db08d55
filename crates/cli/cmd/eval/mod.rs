//! `amem eval …`: score amem's detectors against independently annotated
//! corpora (../shared/eval). One module per measure, each owned with its stage.

use crate::Exit;
use crate::printer::Ctx;

pub(crate) mod claims;
pub(crate) mod cues;
pub(crate) mod recall;
pub(crate) mod verify;

/// Which measure.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum EvalCommand {
    /// Negation, hedge and attribution cue detectors against annotated cue spans
    Cues(cues::CuesArgs),
    /// The claim extractor against hand labels ("audited claim or not", kind)
    Claims(claims::ClaimsArgs),
    /// The recall presence instrument with its shuffled control
    Recall(recall::RecallEvalArgs),
    /// The deterministic verifier against claim-evidence sets
    Verify(verify::VerifyEvalArgs),
}

pub(crate) fn run(c: EvalCommand, ctx: &Ctx) -> anyhow::Result<Exit> {
    match c {
        EvalCommand::Cues(a) => cues::run(a, ctx),
        EvalCommand::Claims(a) => claims::run(a, ctx),
        EvalCommand::Recall(a) => recall::run(a, ctx),
        EvalCommand::Verify(a) => verify::run(a, ctx),
    }
}
