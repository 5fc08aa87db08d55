//! `amem completions <shell>` and `amem man`: shell completion scripts and
//! the man page, generated from the same clap definition the binary parses
//! with, so they cannot drift from the flags.
//!
//! stdout: the script or the roff page. Install, for example:
//! `amem completions bash > ~/.local/share/bash-completion/completions/amem`,
//! `amem completions zsh > ~/.zfunc/_amem`,
//! `amem man > ~/.local/share/man/man1/amem.1`.

use crate::Exit;
use crate::printer::Ctx;
use clap::CommandFactory;
use std::io::Write;

/// `amem completions <shell>`
#[derive(clap::Args, Debug)]
pub(crate) struct CompletionsArgs {
    /// The shell to write completions for
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

pub(crate) fn run_completions(a: CompletionsArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let mut cmd = crate::Cli::command();
    // Generated into memory first: the generator panics on a write error,
    // and `amem completions bash | head` closes the pipe early.
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "amem", &mut script);
    let mut out = ctx.stdout();
    out.write_all(&script)?;
    out.flush()?;
    Ok(Exit::Success)
}

pub(crate) fn run_man(ctx: &Ctx) -> anyhow::Result<Exit> {
    let mut page = Vec::new();
    clap_mangen::Man::new(crate::Cli::command()).render(&mut page)?;
    let mut out = ctx.stdout();
    out.write_all(&page)?;
    out.flush()?;
    Ok(Exit::Success)
}
