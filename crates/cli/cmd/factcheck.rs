//! PLACEHOLDER: replaced by the owner of this command.

use crate::Exit;
use crate::printer::Ctx;

#[derive(clap::Args, Debug)]
pub(crate) struct FactcheckArgs {}

pub(crate) fn run(_a: FactcheckArgs, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
