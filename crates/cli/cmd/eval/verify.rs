//! PLACEHOLDER: replaced by the owner of this measure.

use crate::Exit;
use crate::printer::Ctx;

#[derive(clap::Args, Debug)]
pub(crate) struct VerifyEvalArgs {}

pub(crate) fn run(_a: VerifyEvalArgs, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
