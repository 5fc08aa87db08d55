//! amem-factcheck: to be written.
