//! PLACEHOLDER: replaced by the owner of this command.

use crate::Exit;
use crate::printer::Ctx;

#[derive(clap::Subcommand, Debug)]
pub(crate) enum UnverifiedCommand {
    /// placeholder
    List,
}

pub(crate) fn run(_c: UnverifiedCommand, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
