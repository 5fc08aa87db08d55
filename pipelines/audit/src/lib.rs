//! `amem-audit`: `amem audit chat-history`, composed from the stages.
#![deny(missing_docs)]

pub mod sources;
