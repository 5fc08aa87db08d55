//! amem-gate: to be written.
