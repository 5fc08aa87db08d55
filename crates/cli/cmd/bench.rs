//! PLACEHOLDER: replaced by the owner of this command.

use crate::Exit;
use crate::printer::Ctx;

#[derive(clap::Args, Debug)]
pub(crate) struct BenchArgs {}

pub(crate) fn run(_a: BenchArgs, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
