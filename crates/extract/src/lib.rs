//! amem-extract: to be written.
