//! PLACEHOLDER: replaced by the owner of this command.

use crate::Exit;
use crate::printer::Ctx;

#[derive(clap::Subcommand, Debug)]
pub(crate) enum PoolCommand {
    /// placeholder
    Build,
}

pub(crate) fn run(_c: PoolCommand, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
