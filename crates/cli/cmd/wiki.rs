//! PLACEHOLDER: replaced by the owner of this command.

use crate::Exit;
use crate::printer::Ctx;

#[derive(clap::Args, Debug)]
pub(crate) struct IndexArgs {}
#[derive(clap::Args, Debug)]
pub(crate) struct RecallArgs {}
#[derive(clap::Args, Debug)]
pub(crate) struct OpenArgs {}
#[derive(clap::Args, Debug)]
pub(crate) struct CaptureArgs {}

pub(crate) fn run_index(_a: IndexArgs, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
pub(crate) fn run_recall(_a: RecallArgs, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
pub(crate) fn run_open(_a: OpenArgs, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
pub(crate) fn run_capture(_a: CaptureArgs, _ctx: &Ctx) -> anyhow::Result<Exit> {
    anyhow::bail!("not built yet")
}
