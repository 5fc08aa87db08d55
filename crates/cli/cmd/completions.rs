//! `amem completions <shell>` and `amem man`: shell completion scripts and
//! the man page, generated from the same clap definition the binary parses
//! with, so they cannot drift from the flags.
//!
//! stdout: the script or the roff page. Install, for example:
//! `amem completions bash > ~/.local/share/bash-completion/completions/amem`,
//! `amem completions zsh > ~/.zfunc/_amem`,
//! `amem man > ~/.local/share/man/man1/amem.1`, or every page at once,
//! one per command and subcommand as git names its pages
//! (`amem-audit-chat-history.1`): `amem man --out ~/.local/share/man/man1`.
//! `amem man audit chat-history` prints that one page.

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

/// `amem man`
#[derive(clap::Args, Debug)]
pub(crate) struct ManArgs {
    /// The command whose page to print (`audit chat-history`); none: amem's own page
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
    /// Write every page, one per command and subcommand (amem.1, amem-audit.1,
    /// amem-audit-chat-history.1, ...), into this folder instead of printing one
    #[arg(long, value_name = "DIR", value_parser = crate::paths::path_arg, conflicts_with = "command")]
    out: Option<std::path::PathBuf>,
}

/// Every page: `(file stem, command named as its page is titled)`, amem's
/// own first, then each subcommand under its parent, depth first.
fn pages() -> Vec<(String, clap::Command)> {
    fn walk(cmd: &clap::Command, stem: &str, out: &mut Vec<(String, clap::Command)>) {
        out.push((stem.to_string(), cmd.clone().name(stem.to_string())));
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            walk(sub, &format!("{stem}-{}", sub.get_name()), out);
        }
    }
    let mut root = crate::Cli::command();
    // Global flags and the help and version flags reach the subcommands.
    root.build();
    let mut out = Vec::new();
    walk(&root, "amem", &mut out);
    out
}

fn render(cmd: clap::Command) -> anyhow::Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut page)?;
    Ok(page)
}

pub(crate) fn run_man(a: ManArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        let all = pages();
        let n = all.len();
        for (stem, cmd) in all {
            let path = dir.join(format!("{stem}.1"));
            std::fs::write(&path, render(cmd)?).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        }
        ctx.note(format!("wrote {n} man pages into {}", dir.display()));
        return Ok(Exit::Success);
    }
    let stem = std::iter::once("amem").chain(a.command.iter().map(String::as_str)).collect::<Vec<_>>().join("-");
    let Some((_, cmd)) = pages().into_iter().find(|(s, _)| *s == stem) else {
        return Err(crate::UsageError(format!("no command {:?}: `amem --help` lists them", a.command.join(" "))).into());
    };
    let mut out = ctx.stdout();
    out.write_all(&render(cmd)?)?;
    out.flush()?;
    Ok(Exit::Success)
}
