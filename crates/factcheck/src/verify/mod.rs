//! PLACEHOLDER: deterministic verification of a claim against evidence.
