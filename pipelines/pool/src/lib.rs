//! amem-pool: to be written.
