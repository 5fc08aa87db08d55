//! amem-ledger: to be written.
