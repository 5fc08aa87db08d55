//! The layout of `$AMEM_HOME` (docs/architecture.md, "Local recall and the wiki").

use crate::UsageError;
use crate::printer::Ctx;
use std::path::{Path, PathBuf};

/// The home must exist for a command that reads or writes it: a mistyped
/// `--home` or `AMEM_HOME` is a usage error (exit 2), never a new empty home
/// (before, `amem capture`, `amem index`, `amem recall` and `amem factcheck`
/// created one wherever the path pointed). Only `amem init` and
/// `amem audit chat-history --init` create a home.
///
/// # Errors
/// The path does not exist (a [`UsageError`]) or is not a folder.
pub(crate) fn require(home: &Path) -> anyhow::Result<()> {
    if home.is_dir() {
        return Ok(());
    }
    if home.exists() {
        anyhow::bail!(UsageError(format!("the home {} is not a folder", home.display())));
    }
    let h = shell_quote(home);
    anyhow::bail!(UsageError(format!(
        "the home {} does not exist: create it with `amem init --home {h}` (or `amem audit chat-history --init --home {h} ...`), or point --home or AMEM_HOME at an existing one",
        home.display()
    )))
}

/// Create a home: the folder and its `wiki/`, saying what was created.
/// An existing home is left as it is (its `wiki/` added when missing).
///
/// # Errors
/// The path exists and is not a folder, or a folder cannot be created.
pub(crate) fn init(home: &Path, ctx: &Ctx) -> anyhow::Result<()> {
    if home.exists() && !home.is_dir() {
        anyhow::bail!(UsageError(format!("the home {} is not a folder", home.display())));
    }
    let existed = home.is_dir();
    let wiki = HomeLayout::new(home).wiki();
    let wiki_existed = wiki.is_dir();
    std::fs::create_dir_all(&wiki).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", wiki.display()))?;
    match (existed, wiki_existed) {
        (true, true) => {}
        (true, false) => ctx.note(format!("created {} in the existing home {}", wiki.display(), home.display())),
        (false, _) => ctx.note(format!("created the home {} with an empty wiki/ (add notes there)", home.display())),
    }
    Ok(())
}

/// `path` as a shell word, for a command to copy.
fn shell_quote(path: &Path) -> String {
    let s = path.display().to_string();
    if s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-~+=:,@".contains(&b)) { s } else { format!("'{}'", s.replace('\'', "'\\''")) }
}

/// Paths inside a home. One place names them, so no command invents its own.
#[allow(dead_code)]
pub(crate) struct HomeLayout {
    pub root: PathBuf,
}

#[allow(dead_code)]
impl HomeLayout {
    pub(crate) fn new(root: &Path) -> Self {
        HomeLayout { root: root.to_path_buf() }
    }
    pub(crate) fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    pub(crate) fn wiki(&self) -> PathBuf {
        self.root.join("wiki")
    }
    pub(crate) fn captured(&self) -> PathBuf {
        self.root.join("wiki").join("captured")
    }
    /// The one SQLite file holding the ledger and the FTS5 index, so that
    /// indexing and recording a run commit together.
    pub(crate) fn ledger(&self) -> PathBuf {
        self.root.join("ledger.sqlite")
    }
    pub(crate) fn grounding_log(&self) -> PathBuf {
        self.root.join("grounding.log")
    }
    pub(crate) fn unverified(&self) -> PathBuf {
        self.root.join("unverified")
    }
    pub(crate) fn reports(&self) -> PathBuf {
        self.root.join("reports")
    }
}
