//! The layout of `$AMEM_HOME` (docs/architecture.md, "Local recall and the wiki").

use std::path::{Path, PathBuf};

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
