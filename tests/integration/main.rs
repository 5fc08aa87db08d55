//! End-to-end tests: the built `amem` binary run on small fixtures written
//! for the project, on `examples/`, and (where present) on `../shared` data.
//! One test binary, one link. One module per feature.

mod audit;
mod cli;
mod conventions;
mod endpoint;
mod extract;
mod factcheck;
mod gate;
mod gate_models;
mod identity;
mod importers_chat;
mod importers_mail;
mod mcp;
mod pool;
mod shard;
mod util;
mod verify;
mod wiki;
