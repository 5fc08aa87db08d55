//! PLACEHOLDER crate docs: `amem-factcheck` grounds a claim that local recall
//! missed in the user's trust list, and verifies claims against evidence.
//! (`verify` is owned by the verification engineer; everything else by the
//! fact-check engineer.)

pub mod verify;
