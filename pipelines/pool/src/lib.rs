//! `amem-pool`: research write pools — build from mail threads that carry
//! quoted or forwarded content, gate every candidate write, draw a blind
//! stratified labelling session, and score the labels.
#![deny(missing_docs)]

pub mod stats;
