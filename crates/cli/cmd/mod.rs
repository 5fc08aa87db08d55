//! One module per command family. Each exposes its clap `Args` (or a
//! subcommand enum) and a `run` that returns the [`crate::Exit`] status.

pub(crate) mod audit;
pub(crate) mod bench;
pub(crate) mod completions;
pub(crate) mod eval;
pub(crate) mod factcheck;
pub(crate) mod gate;
pub(crate) mod grounding;
pub(crate) mod import;
pub(crate) mod mcp;
pub(crate) mod pool;
pub(crate) mod report;
pub(crate) mod unverified;
pub(crate) mod verify;
pub(crate) mod wiki;
