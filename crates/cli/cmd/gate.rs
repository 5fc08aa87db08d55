//! PLACEHOLDER: replaced by the owner of this command.

use crate::Exit;
use crate::printer::Ctx;

#[derive(clap::Args, Debug)]
pub(crate) struct GateArgs {}
#[derive(clap::Args, Debug)]
pub(crate) struct DriftArgs {}

pub(crate) fn run_gate(_a: GateArgs, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
pub(crate) fn run_inspect(_a: GateArgs, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
pub(crate) fn run_drift(_a: DriftArgs, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
